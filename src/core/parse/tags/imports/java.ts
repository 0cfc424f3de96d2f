import type { Node } from 'web-tree-sitter'
import type { ImportReader } from '../imports.js'

/**
 * `import a.b.C;` → module `a.b`, names [C]; `import a.b.*;` → module `a.b`, names [*];
 * `import static a.b.C.m;` → module `a.b.C`, names [m]. Java has no aliases or relative imports.
 */
export const readJavaImport: ImportReader = (node, _source, imports, importedName) => {
  let path: Node | undefined
  let wildcard = false
  for (const child of node.namedChildren) {
    if (child?.type === 'scoped_identifier' || child?.type === 'identifier') path = child
    else if (child?.type === 'asterisk') wildcard = true
  }
  if (!path) return
  const line = node.startPosition.row + 1
  if (wildcard) {
    imports.push({ module: path.text, names: [{ name: '*' }], line, relative: false })
    return
  }
  const name = path.type === 'scoped_identifier' ? path.childForFieldName('name') : path
  const scope = path.type === 'scoped_identifier' ? path.childForFieldName('scope') : null
  if (!name) return
  imports.push({ module: scope ? scope.text : '', names: [{ name: name.text }], line, relative: false })
  importedName(name)
}
