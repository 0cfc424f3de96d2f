import type { Node } from 'web-tree-sitter'
import type { ImportRef } from '../../types.js'
import type { ImportReader } from '../imports.js'

/**
 * `import "p"`, `import alias "p"` and grouped `import (…)`. Go binds the package's own name
 * (declared in its files, not knowable here) unless an alias is given, so the module is the
 * path and `alias` is set only when written; a dot import binds every exported name (`*`).
 */
export const readGoImport: ImportReader = (node, _source, imports, importedName) => {
  for (const child of node.namedChildren) {
    if (!child) continue
    if (child.type === 'import_spec') readSpec(child, imports, importedName)
    else if (child.type === 'import_spec_list') {
      for (const spec of child.namedChildren) if (spec?.type === 'import_spec') readSpec(spec, imports, importedName)
    }
  }
}

function readSpec(spec: Node, imports: ImportRef[], importedName: (node: Node) => void): void {
  const path = spec.childForFieldName('path')
  // The literal's content child is absent for `""`; an empty path is no import.
  const content = path?.namedChildren[0]
  if (!content) return
  const module = content.text
  const name = spec.childForFieldName('name')
  imports.push({
    module,
    names: name?.type === 'dot' ? [{ name: '*' }] : [],
    ...(name && name.type !== 'dot' ? { alias: name.text } : {}),
    line: spec.startPosition.row + 1,
    relative: module.startsWith('./') || module.startsWith('../'),
  })
  importedName(content)
}
