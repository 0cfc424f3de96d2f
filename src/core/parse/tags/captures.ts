import type { Query } from 'web-tree-sitter'
import type { ReferenceKind, SymbolKind } from '../types.js'

/**
 * What a capture name means. The query files speak this vocabulary:
 * - `@definition.<kind>` the whole definition (its line range), with `@name`, and optionally
 *   `@scope` (an explicit qualifier: a Go receiver type, C++ `Foo::`), `@body` (the signature ends
 *   where it starts), `@sig` (the signature starts here instead, e.g. after Python decorators) and
 *   `@inside` (the definition's own scope starts here: what comes before it in its range, such as
 *   Python decorators, is evaluated in the enclosing scope and does not see its parameters).
 * - `@declaration.<kind>` a definition without a body (overload signature, pure virtual method):
 *   kept only when the file has no full definition of the same qualified name.
 * - `@container` a named scope that is not itself a symbol (Rust `impl Type`, Ruby `class << self`).
 * - `@reference.<kind>` the referenced name itself, optionally with `@receiver` (`obj` in `obj.m()`).
 * - `@local` a name bound inside a function (parameter, local variable): bare references to it
 *   are not references to a symbol. `@local.type` a type parameter: it also hides type references,
 *   which a plain local does not (`struct ring *ring` refers to the type `ring`).
 * - `@import` an import statement, read by the language's import reader.
 * - `@doc` a comment: in a documentation comment (one opening with `/**`), the names `{@link Name}` points
 *   to are references (TypeScript resolves them like code, and finds them as references).
 * - `@_…` helpers for predicates, ignored.
 */
export type Role =
  | { role: 'definition'; kind: SymbolKind; weak: boolean }
  | { role: 'container' }
  | { role: 'reference'; kind: ReferenceKind }
  | { role: 'local'; type: boolean }
  | { role: 'name' | 'scope' | 'body' | 'sig' | 'inside' | 'receiver' | 'import' | 'doc' | 'ignore' }

const SYMBOL_KINDS = new Set<string>([
  'function', 'method', 'class', 'interface', 'struct', 'enum', 'trait', 'type',
  'module', 'constant', 'variable', 'field', 'macro', 'namespace',
])
const REFERENCE_KINDS = new Set<string>(['call', 'reference', 'type', 'inherit', 'import'])
const PLAIN_ROLES = new Set(['name', 'scope', 'body', 'sig', 'inside', 'receiver', 'import', 'doc', 'container'])

function roleOf(captureName: string): Role {
  if (captureName.startsWith('_')) return { role: 'ignore' }
  const dot = captureName.indexOf('.')
  const head = dot < 0 ? captureName : captureName.slice(0, dot)
  const tail = dot < 0 ? '' : captureName.slice(dot + 1)
  if ((head === 'definition' || head === 'declaration') && SYMBOL_KINDS.has(tail)) {
    return { role: 'definition', kind: tail as SymbolKind, weak: head === 'declaration' }
  }
  if (head === 'reference' && REFERENCE_KINDS.has(tail)) return { role: 'reference', kind: tail as ReferenceKind }
  if (head === 'local' && (!tail || tail === 'type')) return { role: 'local', type: tail === 'type' }
  if (!tail && PLAIN_ROLES.has(head)) return { role: head } as Role
  throw new Error(`tags query: unknown capture @${captureName}`)
}

const rolesByQuery = new WeakMap<Query, Role[]>()

/** Role of each capture of a query, by capture index; an unknown capture name is a bug in a query file. */
export function captureRoles(query: Query): Role[] {
  let roles = rolesByQuery.get(query)
  if (!roles) {
    roles = query.captureNames.map(roleOf)
    rolesByQuery.set(query, roles)
  }
  return roles
}
