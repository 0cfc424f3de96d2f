/**
 * The offline rerank: fused rank normalised to [0, 1], plus small bonuses for signals the paths do
 * not see (a query word in the path, PageRank centrality), a penalty for module glue, tests
 * demoted unless asked for, and a bonus that puts a named identifier's definition above all —
 * then duplicates suppressed (chunks of one definition, overlapping ranges, identical bodies).
 */
import { createHash } from 'node:crypto'
import { analyzeQuery } from '../../search/index.js'
import type { Chunk } from '../../parse/types.js'
import { chunkKeyString, type ChunkSource } from './chunks.js'
import type { SearchFilters } from './filters.js'
import { isTestPath } from './filters.js'
import type { FusedCandidate } from './fusion.js'
import type { ParsedQuery } from './query.js'
import type { RerankDecision } from './types.js'

export const RERANK = {
  /** Above any other score, so a definition the query names comes first. */
  exactSymbol: 1,
  /** A capitalised word may be mentioned in passing: its definition is only helped. */
  mentionedSymbol: 0.1,
  /** Times the share of query terms found in the path. */
  pathMatch: 0.15,
  /** Module-level glue and anonymous blocks say less than a definition. */
  glue: -0.1,
  /** Times the file's PageRank on a log scale (1 = a file 64× more central than the average). */
  centrality: 0.02,
  /** Tests multiply the rest of their score by this unless the query mentions tests. */
  testFactor: 0.5,
} as const

export interface RankedCandidate extends FusedCandidate {
  chunk: Chunk
  final: number
}

export interface RerankInput {
  candidates: readonly FusedCandidate[]
  query: ParsedQuery
  chunks: ChunkSource
  filters: SearchFilters
  /** Keys (`path#chunk`) of symbol-path hits for strong identifiers. */
  strongHits: ReadonlySet<string>
  /** A file's share of PageRank (sums to 1 over the tree). */
  fileRank: (path: string) => number
  fileCount: number
  limit: number
}

export function rerank(input: RerankInput): { results: RankedCandidate[]; decisions: RerankDecision[] } {
  const { candidates, query, chunks, filters } = input
  const top = candidates[0]?.score ?? 1
  const queryTerms = new Set(query.terms)
  const pathShare = memo((path: string) => {
    if (queryTerms.size === 0) return 0
    let hits = 0
    for (const term of analyzeQuery(path)) if (queryTerms.has(term)) hits++
    return hits / queryTerms.size
  })
  const scored: Array<{ candidate: RankedCandidate; features: Record<string, number> }> = []
  for (const candidate of candidates) {
    const chunk = chunks.chunk(candidate)
    if (!chunk || !filters.chunk(chunk)) continue
    const features: Record<string, number> = { fused: candidate.score / top }
    // The symbol path returns only definitions of identifiers the query names.
    if (input.strongHits.has(chunkKeyString(candidate))) features.exactSymbol = RERANK.exactSymbol
    else if (candidate.ranks.symbol !== undefined) features.mentionedSymbol = RERANK.mentionedSymbol
    const share = pathShare(candidate.path)
    if (share > 0) features.pathMatch = RERANK.pathMatch * share
    if (chunk.name === '' || chunk.kind === 'module' || chunk.kind === 'block') features.glue = RERANK.glue
    const central = Math.min(1, Math.log1p(input.fileRank(candidate.path) * input.fileCount) / Math.log(65))
    if (central > 0) features.centrality = RERANK.centrality * central
    let rest = 0
    for (const [name, value] of Object.entries(features)) if (name !== 'exactSymbol') rest += value
    if (!query.mentionsTests && isTestPath(candidate.path)) {
      features.testFactor = RERANK.testFactor
      rest *= RERANK.testFactor
    }
    const final = (features.exactSymbol ?? 0) + rest
    scored.push({ candidate: { ...candidate, chunk, final }, features })
  }
  scored.sort((a, b) => b.candidate.final - a.candidate.final || compareKeys(a.candidate, b.candidate))
  return suppressDuplicates(scored, input.limit, chunks)
}

/**
 * Duplicates are suppressed in score order, and only the candidates examined before `limit`
 * results are kept need their text (told apart by it, shown by snippets): a cold query pays for
 * every file read (git, then the secrets scan). Each git run reads the files of the candidates
 * that could still fill the results, and this many more for the duplicates among them.
 */
const TEXT_MARGIN = 4

function suppressDuplicates(
  scored: Array<{ candidate: RankedCandidate; features: Record<string, number> }>,
  limit: number,
  chunks: ChunkSource,
): { results: RankedCandidate[]; decisions: RerankDecision[] } {
  const results: RankedCandidate[] = []
  const decisions: RerankDecision[] = []
  const bodies = new Map<string, string>()
  const asked = new Set<string>()
  scored.forEach(({ candidate, features }, k) => {
    const decision: RerankDecision = { path: candidate.path, chunkIndex: candidate.chunkIndex, fused: candidate.score, features, score: candidate.final }
    decisions.push(decision)
    if (results.length === limit) return
    if (!asked.has(candidate.path)) {
      const paths = scored.slice(k, k + limit - results.length + TEXT_MARGIN).map((entry) => entry.candidate.path)
      for (const path of paths) asked.add(path)
      chunks.prefetchText(paths)
    }
    const covering = results.find((kept) => kept.path === candidate.path && (overlaps(kept.chunk, candidate.chunk) || sameDefinition(kept.chunk, candidate.chunk)))
    const body = createHash('sha1').update(candidate.chunk.body.trim()).digest('hex')
    const twin = covering ? undefined : bodies.get(body)
    if (covering) decision.suppressedBy = chunkKeyString(covering)
    else if (twin) decision.suppressedBy = twin
    else {
      results.push(candidate)
      bodies.set(body, chunkKeyString(candidate))
    }
  })
  return { results, decisions }
}

function overlaps(a: Chunk, b: Chunk): boolean {
  return a.startLine <= b.endLine && b.startLine <= a.endLine
}

/** Pieces of one split definition: showing the best is enough. */
function sameDefinition(a: Chunk, b: Chunk): boolean {
  return a.qualifiedName !== '' && a.qualifiedName === b.qualifiedName && a.kind === b.kind
}

function compareKeys(a: FusedCandidate, b: FusedCandidate): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.chunkIndex - b.chunkIndex
}

function memo<T>(fn: (key: string) => T): (key: string) => T {
  const cache = new Map<string, T>()
  return (key) => {
    let value = cache.get(key)
    if (value === undefined) {
      value = fn(key)
      cache.set(key, value)
    }
    return value
  }
}
