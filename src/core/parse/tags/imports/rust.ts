import type { Node } from 'web-tree-sitter'
import type { ImportRef } from '../../types.js'
import type { ImportReader } from '../imports.js'

/** A `use` path prefix: its text and the node naming its last segment (what `self` re-binds). */
interface Prefix {
  text: string
  last: Node | null
}

interface Binding {
  module: string
  name?: string
  alias?: string
}

const ROOT: Prefix = { text: '', last: null }
const RELATIVE_ROOTS = new Set(['crate', 'self', 'super'])

/**
 * `use` trees flattened to one ImportRef per module (`use a::b::{c, d as e, f::*}` → `a::b`
 * [c, d as e] and `a::b::f` [*]), `extern crate x [as y]`, and file modules (`mod x;`).
 */
export const readRustUse: ImportReader = (node, _source, imports, importedName) => {
  const line = node.startPosition.row + 1
  if (node.type === 'mod_item') {
    const name = node.childForFieldName('name')
    if (name) imports.push({ module: name.text, names: [], line, relative: true })
    return
  }
  if (node.type === 'extern_crate_declaration') {
    const name = node.childForFieldName('name')
    if (!name) return
    const alias = node.childForFieldName('alias')
    imports.push({ module: name.text, names: [], ...(alias ? { alias: alias.text } : {}), line, relative: false })
    importedName(name)
    return
  }
  const argument = node.childForFieldName('argument')
  if (!argument) return
  const bindings: Binding[] = []
  collect(argument, ROOT, undefined, bindings, importedName)
  pushGrouped(bindings, line, imports)
}

function collect(node: Node, prefix: Prefix, alias: string | undefined, out: Binding[], importedName: (node: Node) => void): void {
  switch (node.type) {
    case 'use_list':
      for (const child of node.namedChildren) if (child) collect(child, prefix, undefined, out, importedName)
      return
    case 'scoped_use_list': {
      const path = node.childForFieldName('path')
      const list = node.childForFieldName('list')
      if (list) collect(list, path ? extend(prefix, path) : prefix, undefined, out, importedName)
      return
    }
    case 'use_as_clause': {
      const path = node.childForFieldName('path')
      if (path) collect(path, prefix, node.childForFieldName('alias')?.text, out, importedName)
      return
    }
    case 'use_wildcard': {
      const path = node.namedChildren[0]
      out.push({ module: path ? extend(prefix, path).text : prefix.text, name: '*' })
      return
    }
    case 'self':
      // `{self, …}` binds the list's own module under its last segment's name.
      if (prefix.last) {
        out.push({ module: parentOf(prefix.text), name: prefix.last.text, alias })
        importedName(prefix.last)
        return
      }
      break
    case 'scoped_identifier': {
      const path = node.childForFieldName('path')
      const name = node.childForFieldName('name')
      if (!name) return
      out.push({ module: path ? extend(prefix, path).text : prefix.text, name: name.text, alias })
      importedName(name)
      return
    }
  }
  // A bare segment: a name from the prefix, or (at the root, `use serde;`) a whole crate.
  if (prefix.text) out.push({ module: prefix.text, name: node.text, alias })
  else out.push({ module: node.text, alias })
  importedName(node)
}

function extend(prefix: Prefix, path: Node): Prefix {
  const last = path.type === 'scoped_identifier' ? path.childForFieldName('name') : path
  return { text: prefix.text ? `${prefix.text}::${path.text}` : path.text, last }
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('::')
  return cut < 0 ? '' : path.slice(0, cut)
}

function pushGrouped(bindings: Binding[], line: number, imports: ImportRef[]): void {
  const byModule = new Map<string, ImportRef>()
  for (const binding of bindings) {
    // `::std::io` is the 2015-edition spelling of `std::io`.
    if (binding.module.startsWith('::')) binding.module = binding.module.slice(2)
    if (binding.name === undefined) {
      imports.push({ module: binding.module, names: [], ...(binding.alias ? { alias: binding.alias } : {}), line, relative: isRelative(binding.module) })
      continue
    }
    let ref = byModule.get(binding.module)
    if (!ref) {
      ref = { module: binding.module, names: [], line, relative: isRelative(binding.module) }
      byModule.set(binding.module, ref)
      imports.push(ref)
    }
    ref.names.push(binding.alias ? { name: binding.name, alias: binding.alias } : { name: binding.name })
  }
}

function isRelative(module: string): boolean {
  const cut = module.indexOf('::')
  return RELATIVE_ROOTS.has(cut < 0 ? module : module.slice(0, cut))
}
