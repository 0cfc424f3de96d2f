/**
 * The command-line side of each query command (search, def, refs, map): how its parsed arguments
 * and flags become the query's params, and how its result is printed in text mode. Shared by the
 * oclif commands (src/commands/coderag) and bin/run.js's fast path (fast-query.ts), which must print
 * the same thing; so this module imports neither oclif nor the query engine (types only). File names
 * are quoted when they hold control characters; the printer escapes any other (src/core/display).
 */
import { quotedName } from '../display/index.js'
import type { DefResult } from '../query/def.js'
import type { Reference, RefsResult } from '../query/refs.js'
import type { SearchResponse } from '../query/search/types.js'
import type { FileSearchResponse } from '../query/search/files.js'
import type { RepoMap } from '../repomap/index.js'
import type { DefParams, MapParams, QueryName, QueryParams, QueryResults, RefsParams, SearchParams } from './queries.js'

/** What a query command prints for a result (text mode only): lines for stdout, then for stderr. */
export interface Rendering {
  stdout: string[]
  stderr?: string[]
}

/** One query command: its arguments and flags (as oclif parses them) to params, its result to text. */
export interface QueryCli<N extends QueryName, A, F> {
  params(args: A, flags: F): QueryParams[N]
  render(params: QueryParams[N], result: QueryResults[N]): Rendering
}

export const searchCli: QueryCli<'search', { query: string }, { limit: number; lang?: string; path?: string; kind?: string; 'no-tests'?: boolean; rerank?: string; files?: boolean; paths?: string }> = {
  params: (args, flags) => ({
    query: args.query,
    limit: flags.limit,
    language: flags.lang as SearchParams['language'],
    path: flags.path,
    kind: flags.kind as SearchParams['kind'],
    noTests: flags['no-tests'],
    rerank: flags.rerank as SearchParams['rerank'],
    files: flags.files,
    paths: flags.paths,
  }),
  render: (_params, response) => ({ stdout: ['files' in response ? formatFileResults(response) : formatSearchResults(response)] }),
}

export const defCli: QueryCli<'def', { symbol: string }, { limit: number; lsp?: boolean }> = {
  params: (args, flags) => ({ symbol: args.symbol, limit: flags.limit, lsp: flags.lsp }),
  render: renderDefinitions,
}

export const refsCli: QueryCli<'refs', { symbol: string }, { limit: number; cursor?: string; lsp?: boolean }> = {
  params: (args, flags) => ({ symbol: args.symbol, limit: flags.limit, cursor: flags.cursor, lsp: flags.lsp }),
  render: renderReferences,
}

export const mapCli: QueryCli<'map', { scope?: string }, { tokens: number; focus?: string[] }> = {
  params: (args, flags) => ({ scope: args.scope, tokens: flags.tokens, focus: flags.focus }),
  render: (params: MapParams, map: RepoMap) => ({
    stdout: [map.map],
    stderr: [`(${map.symbolsIncluded} of ${map.symbolsTotal} symbols in ${map.files} file(s), ${map.tokens} of ${params.tokens} tokens)`],
  }),
}

/** By command name, for the fast path: it parses from oclif's manifest, so its arguments are untyped. */
export const QUERY_CLIS: { readonly [N in QueryName]: QueryCli<N, never, never> } = { search: searchCli, def: defCli, refs: refsCli, map: mapCli }

function formatSearchResults(response: SearchResponse): string {
  if (response.results.length === 0) return `No results for ${JSON.stringify(response.query)}.`
  const width = String(response.results.length).length
  const blocks = response.results.map((result, i) => {
    const what = result.qualifiedName === '' ? result.kind : `${result.qualifiedName} (${result.kind})`
    const header = `${String(i + 1).padStart(width)}. ${quotedName(result.path)}:${result.startLine}-${result.endLine}  ${what}  ${result.score.toFixed(3)}  [${result.methods.join(', ')}]`
    const snippet = result.snippet.split('\n').map((line) => `${' '.repeat(width + 2)}│ ${line}`).join('\n')
    return `${header}\n${snippet}`
  })
  // Another run holding the lock, or a `.vlt/` that cannot be written, was told in a line of its own (query/context.ts).
  const unannounced = response.freshness.staleReason === 'no-overlay' || response.freshness.staleReason === 'update-failed'
  const stale = unannounced ? '\n(the index is stale: run `git vlt coderag sync`)' : ''
  return blocks.join('\n\n') + stale
}

/** A file per entry: score and paths, its best chunks (location, name), the commits that support it. */
function formatFileResults(response: FileSearchResponse): string {
  if (response.files.length === 0) return `No files for ${JSON.stringify(response.query)}.`
  const width = String(response.files.length).length
  const indent = ' '.repeat(width + 2)
  const blocks = response.files.map((file, i) => {
    const lines = [`${String(i + 1).padStart(width)}. ${quotedName(file.path)}  ${file.score.toFixed(3)}  [${file.methods.join(', ')}]`]
    for (const chunk of file.chunks) lines.push(`${indent}${chunk.startLine}-${chunk.endLine}  ${chunk.qualifiedName === '' ? chunk.kind : `${chunk.qualifiedName} (${chunk.kind})`}`)
    for (const commit of file.commits) lines.push(`${indent}${commit.hash.slice(0, 10)} ${commit.date.slice(0, 10)}  ${commit.subject}`)
    return lines.join('\n')
  })
  const stale = response.freshness.stale ? '\n(the index is stale: run `git vlt coderag sync`)' : ''
  return blocks.join('\n') + stale
}

function renderDefinitions({ symbol }: DefParams, result: DefResult): Rendering {
  if (result.definitions.length === 0) {
    const hint = result.suggestions?.length ? ` — did you mean ${result.suggestions.join(', ')}?` : ''
    return { stdout: [`No definition of ${symbol}${hint}`] }
  }
  const lines = result.definitions.map((def) => `${quotedName(def.path)}:${def.line}  ${def.kind} ${def.qualifiedName}  ${def.signature}${def.type && def.type !== def.signature ? `  : ${oneLine(def.type)}` : ''}${def.precision === 'scip' ? '  [scip]' : ''}`)
  if (result.total > result.definitions.length) lines.push(`… ${result.total - result.definitions.length} more (--limit)`)
  return { stdout: lines }
}

/** A multi-line hover (a long signature) on the definition's one line. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ')
}

function renderReferences({ symbol }: RefsParams, result: RefsResult): Rendering {
  if (result.definitions.length === 0 && result.references.length === 0) {
    const hint = result.suggestions?.length ? ` — did you mean ${result.suggestions.join(', ')}?` : ''
    return { stdout: [`No references to ${symbol}${hint}`] }
  }
  const line = (ref: Reference): string => `${quotedName(ref.path)}:${ref.line}:${ref.column + 1}  ${ref.context}${ref.enclosing ? `  (in ${ref.enclosing})` : ''}${ref.precision === 'scip' ? '  [scip]' : ''}`
  const lines = result.references.map(line)
  if (result.ambiguous) lines.push(`\nAmbiguous (may be another ${symbol}):`, ...result.ambiguous.map(line))
  if (result.cursor) lines.push(`\nMore: --cursor ${result.cursor}`)
  return { stdout: lines }
}
