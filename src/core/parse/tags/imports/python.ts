import type { Node } from 'web-tree-sitter'
import type { ImportRef } from '../../types.js'
import type { ImportReader } from '../imports.js'

/**
 * `import a.b as c, d` → one import per module (`a.b` bound to `c`, `d` bound to itself);
 * `from .x import y as z, w` → module `.x`, names [y as z, w], relative; `from m import *` →
 * names [*]. Relative modules keep their leading dots as written (`..`, `.x`).
 */
export const readPythonImport: ImportReader = (node, _source, imports, importedName) => {
  const line = node.startPosition.row + 1
  if (node.type === 'import_statement') {
    for (const bound of node.childrenForFieldName('name')) {
      if (!bound) continue
      const path = bound.type === 'aliased_import' ? bound.childForFieldName('name') : bound
      if (!path) continue
      const alias = bound.type === 'aliased_import' ? bound.childForFieldName('alias')?.text : undefined
      imports.push({ module: path.text, names: [], ...(alias ? { alias } : {}), line, relative: false })
      importedName(path)
    }
    return
  }

  const moduleNode = node.type === 'future_import_statement' ? undefined : node.childForFieldName('module_name')
  if (node.type !== 'future_import_statement' && !moduleNode) return
  const module = moduleNode ? moduleNode.text.replace(/\s+/g, '') : '__future__'
  const names: ImportRef['names'] = []
  for (const bound of node.childrenForFieldName('name')) {
    if (!bound) continue
    const path = bound.type === 'aliased_import' ? bound.childForFieldName('name') : bound
    if (!path) continue
    const alias = bound.type === 'aliased_import' ? bound.childForFieldName('alias')?.text : undefined
    names.push(alias ? { name: path.text, alias } : { name: path.text })
    importedName(path)
  }
  if (names.length === 0 && hasWildcard(node)) {
    names.push({ name: '*' })
    if (moduleNode) importedName(moduleNode)
  }
  imports.push({ module, names, line, relative: module.startsWith('.') })
}

function hasWildcard(node: Node): boolean {
  for (const child of node.namedChildren) if (child?.type === 'wildcard_import') return true
  return false
}
