/**
 * What each query command computes, given an open query context: one function per command, called
 * by the command itself (in process) and by the repository's daemon (src/core/daemon), so that both
 * give the same result. Rendering stays with the command; results are plain JSON-able objects.
 */
import type { QueryContext } from '../query/context.js'
import { findDefinitions, type DefResult } from '../query/def.js'
import { findReferences, type RefsResult } from '../query/refs.js'
import { searchCode, type SearchOptions, type SearchResponse } from '../query/search/index.js'
import { buildRepoMap, type RepoMap } from '../repomap/index.js'
import type { Progress } from './progress.js'

export type SearchParams = { query: string } & Pick<SearchOptions, 'limit' | 'language' | 'path' | 'kind' | 'noTests' | 'rerank'>
export interface DefParams {
  symbol: string
  limit: number
}
export interface RefsParams {
  symbol: string
  limit: number
  cursor?: string
}
export interface MapParams {
  scope?: string
  tokens: number
  focus?: string[]
}

export interface QueryParams {
  search: SearchParams
  def: DefParams
  refs: RefsParams
  map: MapParams
}

export interface QueryResults {
  search: SearchResponse
  def: DefResult
  refs: RefsResult
  map: RepoMap
}

export type QueryName = keyof QueryParams

export const QUERY_NAMES: readonly QueryName[] = ['search', 'def', 'refs', 'map']

export interface QueryIo {
  /** A line for stderr in text mode (a warning). */
  note(message: string): void
  /** Warnings raised while the context was opened for this query (already noted). */
  indexWarnings: readonly string[]
  progress?: Progress
}

type QueryFunction<N extends QueryName> = (qctx: QueryContext, params: QueryParams[N], io: QueryIo) => Promise<QueryResults[N]>

export const QUERIES: { [N in QueryName]: QueryFunction<N> } = {
  async search(qctx, { query, ...options }, io) {
    const response = await searchCode(qctx, query, { ...options, progress: io.progress })
    for (const warning of response.warnings) io.note(`warning: ${warning}`)
    response.warnings.unshift(...io.indexWarnings)
    return response
  },
  async def(qctx, { symbol, limit }) {
    return findDefinitions(qctx, symbol, { limit })
  },
  async refs(qctx, { symbol, limit, cursor }) {
    return findReferences(qctx, symbol, { limit, cursor })
  },
  async map(qctx, { scope, tokens, focus }, io) {
    return buildRepoMap(qctx, { scope, tokens, focus, warn: (message) => io.note(message) })
  },
}
