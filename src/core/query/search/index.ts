/**
 * Hybrid code search: BM25, symbol, graph and vector paths, fused by reciprocal rank and
 * reranked offline (see rerank.ts). One function for the CLI, the MCP server and the oracle.
 */
import { createEmbeddingProvider } from '../../embed/index.js'
import { UsageError } from '../../errors.js'
import { codeViewPath } from '../../semantic/code-view-path.js'
import type { QueryContext } from '../context.js'
import { ChunkSource, chunkKeyString } from './chunks.js'
import { compileFilters } from './filters.js'
import { fuse, fuseKeywordViews, METHOD_ORDER } from './fusion.js'
import { graphPath } from './graph-path.js'
import { applyLlmRerank, planLlmRerank } from './llm-rerank.js'
import { parseQuery } from './query.js'
import { rerank } from './rerank.js'
import { snippetOf } from './snippet.js'
import { resolveIdentifier, symbolPath, type ResolvedIdentifier } from './symbol-path.js'
import type { PathHit, RetrievalMethod, SearchOptions, SearchResponse, SearchResult } from './types.js'
import { configuredProvider, vectorPath, type VectorPathResult } from './vector-path.js'

export { SEARCH_KINDS, SEARCH_LANGUAGES, type SearchOptions, type SearchResponse, type SearchResult, type RetrievalMethod, type SearchExplain, type PathHit, type RerankDecision, type ChunkKey } from './types.js'
export { parseQuery, type ParsedQuery } from './query.js'
export { isTestPath } from './filters.js'

export const DEFAULT_LIMIT = 10
/** Candidates each ranked path contributes: enough that fusion can lift a result several paths agree on. */
const MIN_DEPTH = 50

export async function searchCode(qctx: QueryContext, query: string, options: SearchOptions = {}): Promise<SearchResponse> {
  const limit = options.limit ?? DEFAULT_LIMIT
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer, not ${limit}`)
  if (query.trim() === '') throw new UsageError('the search query is empty')
  const parsed = parseQuery(query)
  const filters = compileFilters(qctx, options)
  const chunks = new ChunkSource(qctx)
  const depth = Math.max(MIN_DEPTH, limit * 5)
  const warnings: string[] = []
  const llmRerank = planLlmRerank(qctx.index.config, options)

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
    // The model picks from the offline top candidates, which may be more than are shown.
    limit: llmRerank ? Math.max(limit, llmRerank.candidates) : limit,
  })

  const response: SearchResponse = {
    query,
    freshness: { treeHash: qctx.freshness.treeHash, stale: qctx.freshness.stale, ...(qctx.freshness.staleReason ? { staleReason: qctx.freshness.staleReason } : {}) },
    results: results.map((result): SearchResult => ({
      path: result.path,
      startLine: result.chunk.startLine,
      endLine: result.chunk.endLine,
      name: result.chunk.name,
      qualifiedName: result.chunk.qualifiedName,
      kind: result.chunk.kind,
      language: result.chunk.language,
      score: Math.round(result.final * 10_000) / 10_000,
      methods: METHOD_ORDER.filter((method) => result.ranks[method] !== undefined),
      snippet: snippetOf(result.chunk, parsed.terms, parsed.identifiers),
    })),
    warnings,
  }
  if (llmRerank) await applyLlmRerank(llmRerank, response, limit)
  if (options.explain) {
    response.explain = {
      identifiers: parsed.identifiers,
      paths,
      fusion: fused.map(({ path, chunkIndex, score, ranks }) => ({ path, chunkIndex, score, ranks })),
      rerank: decisions,
    }
  }
  return response
}
