/**
 * `def SYMBOL`: where a symbol is defined, best first. Ranking: the qualified name typed beats a
 * bare-name match (and, when it matched, excludes them); a definition beats a declaration
 * (prototype, overload signature); a function, class or type beats a variable of the same name
 * (often a re-binding); code beats tests; then PageRank (consulted only to break a tie, so a
 * unique answer never loads the graph); then the shorter path.
 */
import { UsageError } from '../errors.js'
import type { SymbolKind } from '../parse/types.js'
import type { SymbolInfo } from '../graph/symbol-table.js'
import type { Freshness, QueryContext } from './context.js'
import { isTestPath } from './search/filters.js'
import { findCandidates, nameOf, type Candidate } from './symbols/candidates.js'
import { suggestNames } from './symbols/suggest.js'

/**
 * Where an answer about a file comes from: `scip` when an imported SCIP index is fresh for the file
 * and confirms it (a compiler's resolution), else `syntactic` (our tree-sitter indexes).
 */
export type Precision = 'scip' | 'syntactic'

export interface Definition {
  name: string
  qualifiedName: string
  kind: SymbolKind
  path: string
  line: number
  endLine: number
  signature: string
  precision: Precision
  /** The symbol's type or signature as the SCIP indexer describes it (its hover), when it does. */
  type?: string
}

export interface DefResult {
  symbol: string
  definitions: Definition[]
  /** How many definitions matched, when `--limit` cut the list. */
  total: number
  /** Closest defined names, when nothing matched. */
  suggestions?: string[]
  freshness: Freshness
}

export interface DefOptions {
  limit?: number
}

export const DEFAULT_DEF_LIMIT = 20

export function findDefinitions(qctx: QueryContext, symbol: string, options: DefOptions = {}): DefResult {
  requireSymbol(symbol)
  const ranked = rankedDefinitions(qctx, symbol, true, true)
  const result: DefResult = {
    symbol,
    definitions: ranked.slice(0, options.limit ?? DEFAULT_DEF_LIMIT).map((c) => toDefinition(c, scipSymbolOf(qctx, c), qctx)),
    total: ranked.length,
    freshness: qctx.freshness,
  }
  if (ranked.length === 0) result.suggestions = suggestNames(qctx.aggregates.symbols, symbol.slice(symbol.lastIndexOf(':') + 1))
  return result
}

/** A blank symbol names nothing: a usage error, as an empty search is (not an empty answer). */
export function requireSymbol(symbol: string): void {
  if (symbol.trim() === '') throw new UsageError('the symbol is empty')
}

/**
 * Every definition matching `symbol`, best first. `def` lists each definition of a name a file
 * defines twice (getter and setter); refs resolves against one per file. `withScip`: also the
 * definitions only an imported SCIP index knows (scipOnlyCandidates).
 */
export function rankedDefinitions(qctx: QueryContext, symbol: string, every = false, withScip = false): Candidate[] {
  let candidates = findCandidates(qctx.aggregates.symbols, symbol, every)
  if (withScip) candidates.push(...scipOnlyCandidates(qctx, symbol, candidates))
  // A qualified query that matched as typed does not want the same bare name elsewhere.
  if (nameOf(symbol) !== symbol && candidates.some((c) => c.tier === 0)) candidates = candidates.filter((c) => c.tier === 0)
  const ranks = new Map<Candidate, number>()
  const rank = (c: Candidate): number => {
    let value = ranks.get(c)
    if (value === undefined) ranks.set(c, (value = qctx.aggregates.graph.rank(`s:${c.path}#${c.qualifiedName}`)))
    return value
  }
  return candidates.sort(
    (a, b) =>
      a.tier - b.tier ||
      Number(isDeclaration(a)) - Number(isDeclaration(b)) ||
      Number(BINDINGS.has(a.kind)) - Number(BINDINGS.has(b.kind)) ||
      Number(isTestPath(a.path)) - Number(isTestPath(b.path)) ||
      rank(b) - rank(a) ||
      a.path.length - b.path.length ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line),
  )
}

/** Kinds that often merely re-bind a name defined elsewhere (`GoldenRatio = S.GoldenRatio`). */
const BINDINGS = new Set<SymbolKind>(['variable', 'constant', 'field'])

const DECLARATION_FILE = /\.(h|hh|hpp|hxx|pyi)$|\.d\.ts$/

/**
 * A prototype, forward declaration, overload signature or stub: a signature ending in `;`, or a
 * function in a header or stub file (where definitions are the exception).
 */
export function isDeclaration(def: SymbolInfo): boolean {
  if (def.signature.trimEnd().endsWith(';')) return true
  return (def.kind === 'function' || def.kind === 'method') && DECLARATION_FILE.test(def.path) && def.endLine === def.line
}

/** `c` as a definition; `scipSymbol`: the SCIP symbol a fresh SCIP document defines there, if any. */
export function toDefinition(c: SymbolInfo, scipSymbol: number | undefined, qctx: QueryContext): Definition {
  const definition: Definition = { name: c.name, qualifiedName: c.qualifiedName, kind: c.kind, path: c.path, line: c.line, endLine: c.endLine, signature: c.signature, precision: 'syntactic' }
  if (scipSymbol === undefined) return definition
  definition.precision = 'scip'
  const type = qctx.scip()?.hover(scipSymbol)
  if (type !== undefined) definition.type = type
  return definition
}

/** The SCIP symbol defined where `c` is, when the SCIP index is fresh for its file and agrees that a definition starts there. */
export function scipSymbolOf(qctx: QueryContext, c: SymbolInfo): number | undefined {
  const source = qctx.files.get(c.path)
  return source ? qctx.scip()?.definitionAt(c.path, source.blob, c.line, c.column) : undefined
}

/**
 * Definitions the imported SCIP index holds in fresh files at lines where our symbol table has
 * none of that name: what a syntactic table misses (a name bound by destructuring, a re-export),
 * matched as findCandidates matches ours (the qualified name typed, else the bare name; inside the
 * file a `path:` names). Their signature is the indexer's hover, else the name.
 */
function scipOnlyCandidates(qctx: QueryContext, symbol: string, ours: Candidate[]): Candidate[] {
  const view = qctx.scip()
  if (!view) return []
  const at = symbol.search(/(?<!:):(?!:)/)
  const path = at > 0 ? symbol.slice(0, at).replace(/^\.\//, '') : null
  const name = at > 0 ? symbol.slice(at + 1) : symbol
  const known = new Set(ours.map((c) => `${c.path}:${c.line}`))
  const found: Candidate[] = []
  for (const d of view.definitionsNamed(nameOf(symbol))) {
    if (qctx.files.get(d.path)?.blob !== d.blob || known.has(`${d.path}:${d.line}`) || (path !== null && d.path !== path)) continue
    known.add(`${d.path}:${d.line}`)
    const scope = d.qualifiedName.slice(0, Math.max(0, d.qualifiedName.lastIndexOf('.')))
    const signature = view.hover(d.symbol)?.split('\n')[0] ?? d.name
    found.push({ name: d.name, qualifiedName: d.qualifiedName, kind: d.kind, path: d.path, line: d.line, endLine: d.line, column: d.column, signature, scope, tier: d.qualifiedName === name.replace(/::/g, '.') ? 0 : 1 })
  }
  return found
}
