/**
 * Hybrid code search: BM25, symbol, graph and vector paths, fused by reciprocal rank and
 * reranked offline (see ranking.ts, rerank.ts), as chunks (searchCode) or as files with the
 * history's paths fused in (searchFiles, files.ts). One function each for the CLI, the MCP server
 * and the oracle.
 */
import type { QueryContext } from '../context.js'
import { METHOD_ORDER } from './fusion.js'
import { applyLlmRerank, planLlmRerank } from './llm-rerank.js'
import { checkLimit, DEFAULT_LIMIT, rankChunks, roundScore } from './ranking.js'
import { snippetOf } from './snippet.js'
import type { SearchOptions, SearchResponse, SearchResult } from './types.js'

export { SEARCH_KINDS, SEARCH_LANGUAGES, type SearchOptions, type SearchResponse, type SearchResult, type RetrievalMethod, type SearchExplain, type PathHit, type RerankDecision, type ChunkKey } from './types.js'
export { parseQuery, type ParsedQuery } from './query.js'
export { isTestPath } from './filters.js'

export { DEFAULT_LIMIT, rankChunks, type ChunkRanking } from './ranking.js'
export { searchFiles, LOCALIZATION_PATHS, type LocalizationPath, type FileSearchOptions, type FileSearchResponse, type FileSearchResult, type FileChunk, type SupportingCommit } from './files.js'

export async function searchCode(qctx: QueryContext, query: string, options: SearchOptions = {}): Promise<SearchResponse> {
  const limit = options.limit ?? DEFAULT_LIMIT
  checkLimit(limit)
  const llmRerank = planLlmRerank(qctx.index.config, options)
  // The model picks from the offline top candidates, which may be more than are shown.
  const ranking = await rankChunks(qctx, query, options, llmRerank ? Math.max(limit, llmRerank.candidates) : limit)
  const { parsed, results, warnings } = ranking
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
      score: roundScore(result.final),
      methods: METHOD_ORDER.filter((method) => result.ranks[method] !== undefined),
      snippet: snippetOf(result.chunk, parsed.terms, parsed.identifiers),
    })),
    warnings,
  }
  if (llmRerank) await applyLlmRerank(llmRerank, response, limit)
  if (options.explain) {
    response.explain = {
      identifiers: parsed.identifiers,
      paths: ranking.paths,
      fusion: ranking.fused.map(({ path, chunkIndex, score, ranks }) => ({ path, chunkIndex, score, ranks })),
      rerank: ranking.decisions,
    }
  }
  return response
}
