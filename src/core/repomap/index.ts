/**
 * The repo map (issue 3): the tree's most important definitions, with signatures, nested by scope
 * and grouped by file, fitted to a token budget — the orientation an agent reads before it
 * knows which files matter. Ranked by PageRank over the definition/reference graph; a scope or
 * focus personalises the PageRank towards those files and symbols (teleporting only to them), so
 * the map shows what they are built on and what builds on them.
 */
import { UsageError } from '../errors.js'
import type { FileSymbols } from '../graph/file-symbols.js'
import type { CodeGraph, SymbolTable } from '../graph/index.js'
import { PAGERANK_DAMPING } from '../graph/pagerank.js'
import type { QueryContext, Freshness } from '../query/context.js'
import { fitToBudget, type RankedEntries } from './fit.js'
import { topDefinitions, type MapFiles, type NodeRanks, type RankedDefinitions } from './rank.js'

export { countTokens, CHARS_PER_TOKEN } from './tokens.js'

export const DEFAULT_MAP_TOKENS = 1024

export interface RepoMapOptions {
  /** A directory or path prefix: only files under it are mapped, and ranking leans towards them. */
  scope?: string
  /** Token budget, ≥ 1 (default 1024). */
  tokens?: number
  /** File paths and symbols (`name`, `Class.method`, `path:name`) the ranking leans towards. */
  focus?: readonly string[]
  /** Told about focus items that name nothing indexed. */
  warn?: (message: string) => void
}

export interface RepoMap {
  /** The scope as normalised, null for the whole tree. */
  scope: string | null
  /** Tokens of `map` (see tokens.ts), never above the budget. */
  tokens: number
  files: number
  /** Definitions shown, the enclosing definitions shown as context included. */
  symbolsIncluded: number
  /** Distinct definitions in the scope. */
  symbolsTotal: number
  map: string
  freshness: Freshness
}

export type RepoMapContext = Pick<QueryContext, 'aggregates' | 'freshness'>

export function buildRepoMap(qctx: RepoMapContext, options: RepoMapOptions = {}): RepoMap {
  const budget = options.tokens ?? DEFAULT_MAP_TOKENS
  if (!Number.isInteger(budget) || budget < 1) throw new UsageError(`--tokens must be a positive integer, got ${budget}`)
  const { symbols, graph } = qctx.aggregates
  const scope = normalizeScope(options.scope)
  const focus = options.focus ?? []
  // Every line of the map costs at least one token, so no more entries than tokens can show.
  const limit = budget
  let files: MapFiles
  let ranked: RankedEntries
  if (scope === null && focus.length === 0) {
    files = graphFiles(symbols, graph)
    ranked = defaultRanking(symbols, graph, files, limit)
  } else {
    const listed = scope === null ? symbols.sortedFiles() : filesInScope(symbols, scope)
    files = listedFiles(graph, listed)
    ranked = topDefinitions(symbols, files, personalizedRanks(graph, personalization(symbols, graph, listed, scope, focus, options.warn)), limit)
  }
  const fitted = fitToBudget(ranked, budget)
  let symbolsTotal = 0
  for (let i = 0; i < files.count; i++) symbolsTotal += files.symbols(i)
  return {
    scope,
    tokens: fitted.tokens,
    files: fitted.files,
    symbolsIncluded: fitted.symbols,
    symbolsTotal,
    map: fitted.text,
    freshness: qctx.freshness,
  }
}

/** Size of the default map (whole tree, default budget), for `coderag status`. */
export function defaultRepoMapTokens(qctx: RepoMapContext): number {
  return buildRepoMap(qctx).tokens
}

/** Ranked lists of unpersonalised maps, per graph (a graph is one tree with one overlay). */
const defaultRankings = new WeakMap<CodeGraph, { limit: number; ranked: RankedDefinitions }>()

function defaultRanking(symbols: SymbolTable, graph: CodeGraph, files: MapFiles, limit: number): RankedEntries {
  const cached = defaultRankings.get(graph)
  // The best `limit` are a prefix of the best `cached.limit` when limit ≤ cached.limit.
  if (cached && cached.limit >= limit) return cached.ranked.prefix(limit)
  const ranked = topDefinitions(symbols, files, storedRanks(graph), limit)
  defaultRankings.set(graph, { limit, ranked })
  return ranked
}

/**
 * Every file of the tree, numbered as the graph numbers them (path order): a stored graph answers
 * from its rank slices, so the default map reads the symbol table only for the files it shows.
 */
function graphFiles(symbols: SymbolTable, graph: CodeGraph): MapFiles {
  const bases = graph.nodeBases()
  return { count: bases.length - 1, path: (i) => symbols.pathAt(i), base: (i) => bases[i]!, symbols: (i) => bases[i + 1]! - bases[i]! - 1 }
}

/** The files listed (a scope's, in path order), numbered by the graph. */
function listedFiles(graph: CodeGraph, files: readonly FileSymbols[]): MapFiles {
  return { count: files.length, path: (i) => files[i]!.path, base: (i) => graph.fileNode(files[i]!), symbols: (i) => files[i]!.symbolNodes().length }
}

/** `./src/core/` → `src/core`; '' and '.' mean the whole tree. */
function normalizeScope(scope: string | undefined): string | null {
  const normalized = (scope ?? '').replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/+$/, '')
  return normalized === '' || normalized === '.' ? null : normalized
}

/** Files under the directory `scope` or equal to it; failing that, files whose path starts with it. */
function filesInScope(symbols: SymbolTable, scope: string): FileSymbols[] {
  const all = symbols.sortedFiles()
  const under = all.filter((file) => file.path === scope || file.path.startsWith(`${scope}/`))
  const files = under.length > 0 ? under : all.filter((file) => file.path.startsWith(scope))
  if (files.length === 0) throw new UsageError(`no indexed file under '${scope}'`)
  return files
}

/**
 * Teleport weights by node number: the scope's files share one unit, the focus items another (each
 * item an equal part: a file's goes half to its node, half to its definitions; a symbol's to its
 * definitions). Null when nothing is personalised (focus items that name nothing).
 */
function personalization(symbols: SymbolTable, graph: CodeGraph, files: readonly FileSymbols[], scope: string | null, focus: readonly string[], warn?: (message: string) => void): Float64Array | null {
  const weights = new Float64Array(graph.nodeCount)
  let any = false
  const add = (node: number, weight: number): void => {
    any = true
    if (node >= 0) weights[node] += weight
  }
  if (scope !== null) for (const file of files) add(graph.fileNode(file), 1 / files.length)
  for (const item of focus) {
    const share = 1 / focus.length
    const file = symbols.file(item.replace(/^\.\//, ''))
    if (file) {
      const node = graph.fileNode(file)
      const names = file.symbolNodes()
      add(node, names.length > 0 ? share / 2 : share)
      for (let s = 0; s < names.length; s++) add(node < 0 ? -1 : node + 1 + s, share / 2 / names.length)
      continue
    }
    const defs = symbols.lookup(item)
    if (defs.length === 0) warn?.(`warning: focus '${item}' names no indexed file or symbol`)
    for (const def of defs) {
      const defined = symbols.file(def.path)
      add(defined ? graph.symbolNode(defined, symbols.strings.find(def.qualifiedName)) : -1, share / defs.length)
    }
  }
  return any ? weights : null
}

function personalizedRanks(graph: CodeGraph, weights: Float64Array | null): NodeRanks {
  if (weights === null) return storedRanks(graph)
  // Teleporting to a few nodes leaves the others no floor.
  return { ranks: graph.personalizedRanks(weights), floor: 0 }
}

/** The tree's PageRank as built; every node gets at least its share of the uniform teleport. */
function storedRanks(graph: CodeGraph): NodeRanks {
  const nodes = graph.nodeCount
  // A hair under the exact floor, so rounding never makes the bound cut a file it should visit.
  const floor = nodes === 0 ? 0 : ((1 - PAGERANK_DAMPING) / nodes) * (1 - 1e-9)
  return { ranks: graph.nodeRanks(), floor }
}
