/**
 * Today's code paths for one query: BM25 (with its code view), symbols, graph and vectors, fused
 * by reciprocal rank and reranked offline (rerank.ts). What searchCode shows and what file-level
 * search (files.ts) builds on.
 */
import { createEmbeddingProvider } from '../../embed/index.js'
import { UsageError } from '../../errors.js'
import { codeViewPath } from '../../semantic/code-view-path.js'
import type { QueryContext } from '../context.js'
import { ChunkSource, chunkKeyString } from './chunks.js'
import { compileFilters, type SearchFilters } from './filters.js'
import { fuse, fuseKeywordViews, type FusedCandidate } from './fusion.js'
import { graphPath } from './graph-path.js'
import { parseQuery, type ParsedQuery } from './query.js'
import { rerank, type RankedCandidate } from './rerank.js'
import { resolveIdentifier, symbolPath, type ResolvedIdentifier } from './symbol-path.js'
import type { PathHit, RerankDecision, RetrievalMethod, SearchOptions } from './types.js'
import { configuredProvider, vectorPath, type VectorPathResult } from './vector-path.js'

export const DEFAULT_LIMIT = 10
/** Candidates each ranked path contributes: enough that fusion can lift a result several paths agree on. */
const MIN_DEPTH = 50

export function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer, not ${limit}`)
}

export function roundScore(score: number): number {
  return Math.round(score * 10_000) / 10_000
}

/** Today's code paths fused and reranked: what searchCode shows, and what file-level search builds on. */
export interface ChunkRanking {
  parsed: ParsedQuery
  filters: SearchFilters
  chunks: ChunkSource
  paths: Record<RetrievalMethod, PathHit[]>
  fused: FusedCandidate[]
  /** The top `limit` after rerank and duplicate suppression. */
  results: RankedCandidate[]
  decisions: RerankDecision[]
  warnings: string[]
}

/** Runs the retrieval paths, fuses and reranks; `limit` results are kept. */
export async function rankChunks(qctx: QueryContext, query: string, options: SearchOptions, limit: number): Promise<ChunkRanking> {
  checkLimit(limit)
  if (query.trim() === '') throw new UsageError('the search query is empty')
  const parsed = parseQuery(query)
  const filters = compileFilters(qctx, options)
  const chunks = new ChunkSource(qctx)
  const depth = Math.max(MIN_DEPTH, limit * 5)
  const warnings: string[] = []

  // Started first: it waits on the network while the other paths compute.
  const configured = options.provider !== undefined
    ? { provider: options.provider }
    : qctx.index.config.embedding.provider === 'none'
      ? { provider: null }
      : configuredProvider(() => createEmbeddingProvider(qctx.index.config.embedding))
  if (configured.warning) warnings.push(configured.warning)
  const vector: Promise<VectorPathResult> = configured.provider
    ? vectorPath(qctx, configured.provider, query, filters, depth, options.progress)
    : Promise.resolve({ hits: [] })
  // Handled here too so that a failure of the other paths never leaves it unhandled.
  vector.catch(() => {})

  const keyword: PathHit[] = parsed.terms.length === 0
    ? []
    : qctx.aggregates.bm25.search(query, { limit: depth, filter: (path) => filters.file(path) })
  const code = await codeViewPath(qctx, parsed.terms, keyword, chunks)
  if (code.warning) warnings.push(code.warning)
  const bm25 = fuseKeywordViews(keyword, code.hits)
  const fileRank = (path: string): number => qctx.aggregates.graph.fileRank(path)
  const resolved: ResolvedIdentifier[] = parsed.identifiers.map((identifier) => ({
    identifier,
    strong: parsed.strong.has(identifier),
    definitions: resolveIdentifier(qctx.aggregates.symbols, identifier, fileRank),
  }))
  const symbol = symbolPath(resolved, chunks, filters)
  const graph = resolved.length === 0 ? [] : graphPath(resolved, qctx.aggregates.symbols, chunks, filters)
  const vectorResult = await vector
  if (vectorResult.warning) warnings.push(vectorResult.warning)

  const paths: Record<RetrievalMethod, PathHit[]> = { symbol, bm25, vector: vectorResult.hits, graph }
  const fused = fuse(paths)
  const { results, decisions } = rerank({
    strongHits: new Set(symbol.filter((hit) => hit.strong).map(chunkKeyString)),
    candidates: fused.slice(0, depth + limit * 2),
    query: parsed,
    chunks,
    filters,
    fileRank,
    fileCount: qctx.files.size,
    limit,
  })
  return { parsed, filters, chunks, paths, fused, results, decisions, warnings }
}
