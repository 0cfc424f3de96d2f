/**
 * What each query command computes, given an open query context: one function per command, called
 * by the command itself (in process) and by the repository's daemon (src/core/daemon), so that both
 * give the same result. Rendering stays with the command; results are plain JSON-able objects.
 */
import type { QueryContext } from '../query/context.js'
import { findDefinitions, type DefResult, type Definition } from '../query/def.js'
import { addHoverTypes, type LspServers } from '../lsp/index.js'
import { findReferences, type RefsResult } from '../query/refs.js'
import { UsageError } from '../errors.js'
import { LOCALIZATION_PATHS, searchCode, searchFiles, type FileSearchResponse, type LocalizationPath, type SearchOptions, type SearchResponse } from '../query/search/index.js'
import { buildRepoMap, type RepoMap } from '../repomap/index.js'
import type { Progress } from './progress.js'

export type SearchParams = { query: string } & Pick<SearchOptions, 'limit' | 'language' | 'path' | 'kind' | 'noTests' | 'rerank'> & {
  /** Rank files (searchFiles) instead of chunks. */
  files?: boolean
  /** With `files`: the localization paths to run, comma-separated (`--paths history`). */
  paths?: string
}
export interface DefParams {
  symbol: string
  limit: number
  /** Add language servers' hover types (`--lsp`); else as `[lsp] enabled` says. */
  lsp?: boolean
}
export interface RefsParams {
  symbol: string
  limit: number
  cursor?: string
  lsp?: boolean
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
  search: SearchResponse | FileSearchResponse
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
  /** The language servers a daemon keeps for the repository; without them, a query starts its own and stops them after. */
  lsp?: LspServers
}

type QueryFunction<N extends QueryName> = (qctx: QueryContext, params: QueryParams[N], io: QueryIo) => Promise<QueryResults[N]>

export const QUERIES: { [N in QueryName]: QueryFunction<N> } = {
  async search(qctx, { query, files, paths, ...options }, io) {
    if (paths !== undefined && !files) throw new UsageError('--paths chooses the paths of --files: add --files')
    if (files && options.rerank === 'llm') throw new UsageError('--rerank llm reorders chunks, not files: leave it out with --files')
    const response = files
      ? await searchFiles(qctx, query, { language: options.language, path: options.path, kind: options.kind, noTests: options.noTests, limit: options.limit, paths: paths === undefined ? undefined : localizationPaths(paths), progress: io.progress })
      : await searchCode(qctx, query, { ...options, progress: io.progress })
    for (const warning of response.warnings) io.note(`warning: ${warning}`)
    response.warnings.unshift(...io.indexWarnings)
    return response
  },
  async def(qctx, { symbol, limit, lsp }, io) {
    const result = findDefinitions(qctx, symbol, { limit })
    await withHoverTypes(qctx, result.definitions, lsp, io)
    return result
  },
  async refs(qctx, { symbol, limit, cursor, lsp }, io) {
    const result = findReferences(qctx, symbol, { limit, cursor })
    await withHoverTypes(qctx, result.definitions, lsp, io)
    return result
  },
  async map(qctx, { scope, tokens, focus }, io) {
    return buildRepoMap(qctx, { scope, tokens, focus, warn: (message) => io.note(message) })
  },
}

/** The language servers' hover types on the definitions, when asked (`--lsp`) or configured (`[lsp] enabled`). */
async function withHoverTypes(qctx: QueryContext, definitions: Definition[], lsp: boolean | undefined, io: QueryIo): Promise<void> {
  const { config, repo } = qctx.index
  if (!(lsp || config.lsp.enabled) || repo.root === null) return
  await addHoverTypes(definitions, (path) => qctx.files.get(path)?.language, { root: repo.root, servers: io.lsp, timeoutMs: config.lsp.timeoutMs, idleMs: config.lsp.idleS * 1000, warn: (message) => io.note(message) })
}

/** `code,history` → the paths; a UsageError names an unknown one. */
function localizationPaths(list: string): LocalizationPath[] {
  const names = list.split(',').map((name) => name.trim()).filter(Boolean)
  const unknown = names.find((name) => !(LOCALIZATION_PATHS as readonly string[]).includes(name))
  if (unknown !== undefined || names.length === 0) throw new UsageError(`--paths ${JSON.stringify(list)}: expected a comma-separated list of ${LOCALIZATION_PATHS.join(', ')}`)
  return names as LocalizationPath[]
}
