/**
 * The symbol path: identifiers named in the query, looked up exactly in the symbol table. Their
 * definitions are what the user asked for, so this path's hits carry the most weight in fusion.
 */
import type { SymbolInfo, SymbolTable } from '../../graph/index.js'
import type { ChunkSource } from './chunks.js'
import type { SearchFilters } from './filters.js'
import { isTestPath } from './filters.js'
import type { PathHit } from './types.js'

/** Definitions kept per identifier: a name defined in hundreds of files (`init`) says little. */
const DEFINITIONS_PER_IDENTIFIER = 8

export interface ResolvedIdentifier {
  identifier: string
  /** See ParsedQuery.strong. */
  strong: boolean
  definitions: SymbolInfo[]
}

/** Kinds that define behaviour or a type rank above fields, variables and constants of the same name. */
const DEFINITION_KINDS = new Set(['function', 'method', 'class', 'interface', 'struct', 'enum', 'trait', 'type', 'macro'])

/**
 * The definitions an identifier names: `path:name`, a qualified name (`Class.method`, `Foo::bar`),
 * a name; a dotted name that is no qualified name (`module.function`, `self.helper`) falls back to
 * its last part.
 */
export function resolveIdentifier(symbols: SymbolTable, identifier: string, fileRank: (path: string) => number): SymbolInfo[] {
  let definitions = symbols.lookup(identifier)
  if (definitions.length === 0 && identifier.includes('::')) definitions = symbols.lookup(identifier.replace(/::/g, '.'))
  if (definitions.length === 0 && identifier.includes('.')) definitions = symbols.lookup(identifier.replace(/\./g, '::'))
  if (definitions.length === 0) {
    const parts = identifier.split(/\.|::/)
    if (parts.length > 1) {
      const last = parts[parts.length - 1]!
      const qualifier = parts[parts.length - 2]!
      const named = symbols.byName(last)
      // `module.name`: prefer the definitions in a file or class the qualifier names.
      const qualified = named.filter((s) => s.scope.endsWith(qualifier) || s.path.includes(qualifier))
      definitions = qualified.length > 0 ? qualified : named
    }
  }
  return [...definitions]
    .sort((a, b) => score(b) - score(a) || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line))
    .slice(0, DEFINITIONS_PER_IDENTIFIER)

  function score(s: SymbolInfo): number {
    return (DEFINITION_KINDS.has(s.kind) ? 2 : 0) + (isTestPath(s.path) ? 0 : 1) + fileRank(s.path)
  }
}

export function symbolPath(
  resolved: readonly ResolvedIdentifier[],
  chunks: ChunkSource,
  filters: SearchFilters,
): PathHit[] {
  const hits: PathHit[] = []
  const seen = new Set<string>()
  resolved.forEach(({ identifier, strong, definitions }, i) => {
    definitions.forEach((definition, d) => {
      if (!filters.file(definition.path)) return
      const key = chunks.chunkAt(definition.path, definition.line, definition.qualifiedName)
      if (!key) return
      const chunk = chunks.chunk(key)
      const id = `${key.path}#${key.chunkIndex}`
      if (!chunk || !filters.chunk(chunk) || seen.has(id)) return
      seen.add(id)
      // Strong identifiers, earlier identifiers and better-ranked definitions first.
      hits.push({ ...key, score: (strong ? 1 : 0.1) / (1 + i) / (1 + d), reason: `definition of ${identifier}`, strong })
    })
  })
  return hits.sort((a, b) => b.score - a.score)
}
