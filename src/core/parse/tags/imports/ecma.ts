import type { Node } from 'web-tree-sitter'
import type { ImportRef } from '../../types.js'
import type { ImportReader } from '../imports.js'

type Names = ImportRef['names']
type ImportedName = (node: Node) => void

/**
 * JavaScript/TypeScript imports: `import x, {a as b} from 'm'` (a default import is the name
 * `default` under the local alias), `import * as ns from 'm'` and `import x = require('m')` (the
 * module bound to an alias), `import 'm'`, re-exports (`export {a} from 'm'`, `export * from 'm'`),
 * CommonJS `require('m')` and dynamic `import('m')` with what the surrounding declaration binds.
 */
export const readEcmaImport: ImportReader = (node, _source, imports, importedName) => {
  switch (node.type) {
    case 'import_statement':
    case 'export_statement':
      readStatement(node, node.childForFieldName('source'), imports, importedName)
      return
    case 'call_expression':
      readCall(node, imports, importedName)
  }
}

function readStatement(node: Node, source: Node | null, imports: ImportRef[], importedName: ImportedName): void {
  const names: Names = []
  let alias: string | undefined
  for (const child of node.namedChildren) {
    if (!child) continue
    switch (child.type) {
      case 'import_clause':
        alias = readClause(child, names, importedName)
        break
      case 'import_require_clause':
        alias = child.namedChildren.find((c) => c?.type === 'identifier')?.text
        source = child.childForFieldName('source')
        break
      case 'export_clause':
        readSpecifiers(child, names, importedName)
        break
      case 'namespace_export':
        alias = child.namedChildren[0] ? nameText(child.namedChildren[0]) : undefined
        break
    }
  }
  // `export * from 'm'` has no clause at all: it re-exports every name.
  if (node.type === 'export_statement' && names.length === 0 && alias === undefined) names.push({ name: '*' })
  push(imports, source, names, alias, node)
}

/** The clause's default import and named imports go to `names`; returns a namespace alias. */
function readClause(clause: Node, names: Names, importedName: ImportedName): string | undefined {
  let alias: string | undefined
  for (const child of clause.namedChildren) {
    if (!child) continue
    if (child.type === 'identifier') {
      names.push({ name: 'default', alias: child.text })
      importedName(child)
    } else if (child.type === 'named_imports') {
      readSpecifiers(child, names, importedName)
    } else if (child.type === 'namespace_import') {
      alias = child.namedChildren[0]?.text
    }
  }
  return alias
}

/** `{a, b as c}` of an import or a re-export. */
function readSpecifiers(list: Node, names: Names, importedName: ImportedName): void {
  for (const specifier of list.namedChildren) {
    if (specifier?.type !== 'import_specifier' && specifier?.type !== 'export_specifier') continue
    const name = specifier.childForFieldName('name')
    if (!name) continue
    const alias = specifier.childForFieldName('alias')
    names.push(alias ? { name: nameText(name), alias: nameText(alias) } : { name: nameText(name) })
    importedName(name)
  }
}

/** `require('m')` / `import('m')`, and the names its declaration binds. */
function readCall(call: Node, imports: ImportRef[], importedName: ImportedName): void {
  const callee = call.childForFieldName('function')
  if (callee?.type !== 'import' && callee?.text !== 'require') return
  const source = call.childForFieldName('arguments')?.namedChildren[0] ?? null
  const names: Names = []
  let alias: string | undefined
  let bound: Node = call
  if (bound.parent?.type === 'await_expression') bound = bound.parent
  const parent = bound.parent
  if (parent?.type === 'variable_declarator' && parent.childForFieldName('value')?.equals(bound)) {
    const target = parent.childForFieldName('name')
    if (target?.type === 'identifier') alias = target.text
    else if (target?.type === 'object_pattern') readObjectPattern(target, names, importedName)
  } else if (parent?.type === 'member_expression') {
    // `const x = require('m').y` imports `y` under the declared name.
    const property = parent.childForFieldName('property')
    const declarator = parent.parent
    if (property) {
      const target = declarator?.type === 'variable_declarator' ? declarator.childForFieldName('name') : null
      names.push(target?.type === 'identifier' && target.text !== property.text
        ? { name: property.text, alias: target.text }
        : { name: property.text })
      importedName(property)
    }
  }
  push(imports, source, names, alias, call)
}

/** `{a, b: c, d = 1}` → a, b as c, d. Rest elements bind what is left and name nothing. */
function readObjectPattern(pattern: Node, names: Names, importedName: ImportedName): void {
  for (const child of pattern.namedChildren) {
    if (!child) continue
    if (child.type === 'shorthand_property_identifier_pattern') {
      names.push({ name: child.text })
      importedName(child)
    } else if (child.type === 'object_assignment_pattern') {
      const left = child.childForFieldName('left')
      if (left?.type === 'shorthand_property_identifier_pattern') {
        names.push({ name: left.text })
        importedName(left)
      }
    } else if (child.type === 'pair_pattern') {
      const key = child.childForFieldName('key')
      const value = child.childForFieldName('value')
      if (!key) continue
      names.push(value?.type === 'identifier' && value.text !== key.text
        ? { name: nameText(key), alias: value.text }
        : { name: nameText(key) })
      importedName(key)
    }
  }
}

function push(imports: ImportRef[], source: Node | null, names: Names, alias: string | undefined, node: Node): void {
  if (source?.type !== 'string') return
  const module = nameText(source)
  if (!module) return
  imports.push({
    module,
    names,
    ...(alias ? { alias } : {}),
    line: node.startPosition.row + 1,
    relative: module.startsWith('.') || module.startsWith('/'),
  })
}

/** An identifier's text, or a string literal's content (`import {"a-b" as c}`). */
function nameText(node: Node): string {
  return node.type === 'string' ? node.text.slice(1, -1) : node.text
}
