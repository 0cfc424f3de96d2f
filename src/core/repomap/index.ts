/**
 * The repo map (issue 3): the tree's most important definitions, with signatures, nested by scope
 * and grouped by file, fitted to a token budget — the orientation an agent reads before it
 * knows which files matter. Ranked by PageRank over the definition/reference graph; a scope or
 * focus personalises the PageRank towards those files and symbols (teleporting only to them), so
 * the map shows what they are built on and what builds on them. On a stored graph of more than
 * EXACT_RANKS_NODES nodes that PageRank is pushed out from those files over the stored out-edges
 * (CodeGraph.localPersonalizedRanks), reading the part of the graph it reaches: on Linux an oracle's
 * focused map took 12 of its 13 s loading the whole table and graph for an exact run.
 */
import { UsageError } from '../errors.js'
import { fileOfNode, type CodeGraph, type SymbolTable } from '../graph/index.js'
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
  let symbolsTotal: number
  if (scope === null && focus.length === 0) {
    files = graphFiles(symbols, graph)
    ranked = defaultRanking(symbols, graph, files, limit)
    symbolsTotal = definitionsOf(graph.nodeBases(), null)
  } else {
    const bases = graph.nodeBases()
    const listed = scope === null ? null : filesInScope(symbols, scope)
    const teleport = personalization(symbols, bases, listed, focus, options.warn)
    const local = teleport && graph.localPersonalizedRanks(teleport)
    let ranksOfFiles: NodeRanks
    if (local) ({ files, ranks: ranksOfFiles } = reachedFiles(symbols, bases, listed, local))
    else {
      files = listed === null ? graphFiles(symbols, graph) : numberedFiles(symbols, bases, listed)
      ranksOfFiles = teleport ? { ranks: graph.personalizedRanks(denseWeights(graph.nodeCount, teleport)), floor: 0 } : storedRanks(graph)
    }
    ranked = topDefinitions(symbols, files, ranksOfFiles, limit)
    symbolsTotal = definitionsOf(bases, listed)
  }
  const fitted = fitToBudget(ranked, budget)
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

/** The files numbered `numbers` (ascending: path order), as the graph numbers their nodes. */
function numberedFiles(symbols: SymbolTable, bases: Uint32Array, numbers: readonly number[]): MapFiles {
  return { count: numbers.length, path: (i) => symbols.pathAt(numbers[i]!), base: (i) => bases[numbers[i]!]!, symbols: (i) => bases[numbers[i]! + 1]! - bases[numbers[i]!]! - 1 }
}

/**
 * The files a local push reached (of the scope's, when there is one), numbered afresh over their
 * own nodes with the ranks pushed: a map of a large tree ranks only them. A file reached by nothing
 * ranks 0, as it would were the exact personalised ranks computed, and never shows before one that was.
 */
function reachedFiles(symbols: SymbolTable, bases: Uint32Array, listed: readonly number[] | null, pushed: ReadonlyMap<number, number>): { files: MapFiles; ranks: NodeRanks } {
  const reached = new Set<number>()
  for (const node of pushed.keys()) reached.add(fileOfNode(bases, node))
  const numbers = (listed ?? [...reached].sort((a, b) => a - b)).filter((f) => reached.has(f))
  const localBases = new Uint32Array(numbers.length + 1)
  numbers.forEach((f, i) => (localBases[i + 1] = localBases[i]! + bases[f + 1]! - bases[f]!))
  const ranks = new Float64Array(localBases[numbers.length]!)
  numbers.forEach((f, i) => {
    for (let node = bases[f]!; node < bases[f + 1]!; node++) ranks[localBases[i]! + node - bases[f]!] = pushed.get(node) ?? 0
  })
  return {
    files: { count: numbers.length, path: (i) => symbols.pathAt(numbers[i]!), base: (i) => localBases[i]!, symbols: (i) => localBases[i + 1]! - localBases[i]! - 1 },
    ranks: { ranks, floor: 0 },
  }
}

/** Distinct definitions of the files numbered `listed` (all files when null). */
function definitionsOf(bases: Uint32Array, listed: readonly number[] | null): number {
  const files = bases.length - 1
  if (listed === null) return bases[files]! - files
  let total = 0
  for (const f of listed) total += bases[f + 1]! - bases[f]! - 1
  return total
}

/** `./src/core/` → `src/core`; '' and '.' mean the whole tree. */
function normalizeScope(scope: string | undefined): string | null {
  const normalized = (scope ?? '').replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/+$/, '')
  return normalized === '' || normalized === '.' ? null : normalized
}

/** Numbers (path order) of the files under the directory `scope` or equal to it; failing that, of the files whose path starts with it. */
function filesInScope(symbols: SymbolTable, scope: string): number[] {
  const under: number[] = []
  const prefixed: number[] = []
  for (let f = 0; f < symbols.fileCount; f++) {
    const path = symbols.pathAt(f)
    if (!path.startsWith(scope)) continue
    prefixed.push(f)
    if (path === scope || path.startsWith(`${scope}/`)) under.push(f)
  }
  const files = under.length > 0 ? under : prefixed
  if (files.length === 0) throw new UsageError(`no indexed file under '${scope}'`)
  return files
}

/**
 * Teleport weights by node number: the scope's files share one unit, the focus items another (each
 * item an equal part: a file's goes half to its node, half to its definitions; a symbol's to its
 * definitions). Null when nothing is personalised (focus items that name nothing ranked). Read through
 * lookups by path and name, so a stored table is not loaded whole.
 */
function personalization(symbols: SymbolTable, bases: Uint32Array, scopeFiles: readonly number[] | null, focus: readonly string[], warn?: (message: string) => void): Map<number, number> | null {
  const weights = new Map<number, number>()
  const add = (node: number, weight: number): void => {
    if (node >= 0 && weight > 0) weights.set(node, (weights.get(node) ?? 0) + weight)
  }
  if (scopeFiles !== null) for (const f of scopeFiles) add(bases[f]!, 1 / scopeFiles.length)
  for (const item of focus) {
    const share = 1 / focus.length
    const f = symbols.fileNumber(item.replace(/^\.\//, ''))
    if (f >= 0) {
      const node = bases[f]!
      const names = bases[f + 1]! - node - 1
      add(node, names > 0 ? share / 2 : share)
      for (let s = 0; s < names; s++) add(node + 1 + s, share / 2 / names)
      continue
    }
    const defs = symbols.lookup(item)
    if (defs.length === 0) warn?.(`warning: focus '${item}' names no indexed file or symbol`)
    for (const def of defs) {
      const defined = symbols.fileNumber(def.path)
      const offset = defined < 0 ? -1 : symbols.symbolNodeOffset(def.path, def.qualifiedName)
      add(offset < 0 ? -1 : bases[defined]! + 1 + offset, share / defs.length)
    }
  }
  return weights.size > 0 ? weights : null
}

/** Teleport weights as a vector over every node, for exact PageRank. */
function denseWeights(nodes: number, weights: ReadonlyMap<number, number>): Float64Array {
  const dense = new Float64Array(nodes)
  for (const [node, weight] of weights) dense[node] = weight
  return dense
}

/** The tree's PageRank as built; every node gets at least its share of the uniform teleport. */
function storedRanks(graph: CodeGraph): NodeRanks {
  const nodes = graph.nodeCount
  // A hair under the exact floor, so rounding never makes the bound cut a file it should visit.
  const floor = nodes === 0 ? 0 : ((1 - PAGERANK_DAMPING) / nodes) * (1 - 1e-9)
  return { ranks: graph.nodeRanks(), floor }
}
