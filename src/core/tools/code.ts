/**
 * The code-intelligence tools: search_code, find_definition, find_references, get_repo_map. Thin
 * adapters over the core query functions — the work an adapter adds is paging to the output cap,
 * resolving paths inside the repository, and reading and feeding the conversation context.
 */
import { z } from 'zod'
import { quotedName } from '../display/index.js'
import { UsageError } from '../errors.js'
import { resolveInRepo } from '../files/index.js'
import { addHoverTypes } from '../lsp/index.js'
import type { QueryContext } from '../query/context.js'
import { findDefinitions, type Definition } from '../query/def.js'
import { findReferences, type Reference } from '../query/refs.js'
import { parseQuery, searchCode, searchFiles, SEARCH_LANGUAGES, type FileSearchResult, type SearchResult } from '../query/search/index.js'
import { buildRepoMap, DEFAULT_MAP_TOKENS } from '../repomap/index.js'
import { cutNote, encodeCursor, fitItems } from './output-budget.js'
import { cursorInput, defineTool, footer, freshnessOf, freshnessSchema, pageFields, pageOf, pageOutput, READ_ONLY, topFiles, type AnyToolSpec, type ToolEnv } from './kit.js'

/** Tokens kept for the answer's frame (headers, freshness, note) when fitting items. */
const FRAME_TOKENS = 200
/** Files of the conversation that search leans towards, and how much. */
const BOOSTED_FILES = 8
const BOOST = 1.25

const searchResultSchema = z.object({
  path: z.string(),
  startLine: z.number(),
  endLine: z.number(),
  name: z.string(),
  qualifiedName: z.string(),
  kind: z.string(),
  language: z.string(),
  score: z.number(),
  methods: z.array(z.string()),
  snippet: z.string(),
})

const fileResultSchema = z.object({
  path: z.string(),
  language: z.string(),
  score: z.number(),
  methods: z.array(z.string()).describe('Paths that found it: code, history (similar past commits changed it), cochange.'),
  chunks: z.array(z.object({ startLine: z.number(), endLine: z.number(), name: z.string(), qualifiedName: z.string(), kind: z.string(), snippet: z.string() })),
  commits: z.array(z.object({ hash: z.string(), subject: z.string(), date: z.string(), author: z.string() })).describe('Past commits similar to the query that changed this file.'),
})

const precisionSchema = z.enum(['scip', 'syntactic']).describe('"scip": from an imported SCIP index fresh for the file (compiler-resolved); "syntactic": from our own indexes.')
const definitionSchema = z.object({
  name: z.string(),
  qualifiedName: z.string(),
  kind: z.string(),
  path: z.string(),
  line: z.number(),
  endLine: z.number(),
  signature: z.string(),
  precision: precisionSchema,
  type: z.string().optional().describe("The symbol's type or signature, when known: the SCIP index's hover, else (with [lsp] enabled) the language server's."),
})
const referenceSchema = z.object({ path: z.string(), line: z.number(), column: z.number(), context: z.string(), enclosing: z.string(), precision: precisionSchema })
const symbolInput = z.string().min(1).max(500).describe('name, Class.method, module.name or path:name; "it" = the last symbol discussed.')

export function codeTools(env: ToolEnv): AnyToolSpec[] {
  const searchCodeTool = defineTool({
    name: 'search_code',
    title: 'Search code',
    description: 'Hybrid code search: ranked chunks, or (granularity "file") the files a request is about, with past commits.',
    input: {
      query: z.string().min(1).max(2000).describe('Words and/or identifiers.'),
      granularity: z.enum(['chunk', 'file']).optional().describe('"chunk" (default): ranked code chunks. "file": ranked files, fusing code search with the repository\'s commit history; best for "where would I change …" and conceptual requests.'),
      limit: z.number().int().min(1).max(100).optional().describe('Results per page (default 10).'),
      path: z.string().max(500).optional().describe('Glob inside the repo, e.g. "src/**".'),
      language: z.enum(SEARCH_LANGUAGES).optional(),
      cursor: cursorInput,
    },
    output: {
      query: z.string().describe('As searched (pronouns resolved from the conversation).'),
      resolved: z.string().optional(),
      results: z.array(searchResultSchema).describe('Ranked chunks (empty with granularity "file").'),
      files: z.array(fileResultSchema).optional().describe('With granularity "file": ranked files.'),
      warnings: z.array(z.string()),
      ...pageOutput,
      freshness: freshnessSchema,
    },
    annotations: READ_ONLY,
    run: async (args, memory) => {
      const qctx = await env.index.get()
      const { key, page, offset } = pageOf('search_code', args)
      const limit = args.limit ?? 10
      const expanded = memory.expandQuery(args.query)
      // The files a page leans towards travel in its cursor, so that later pages rank alike.
      const boosted = page ? (page.core ? page.core.split('\n') : []) : memory.recentFiles(BOOSTED_FILES)
      const path = args.path === undefined ? undefined : resolveInRepo(env.index.root, args.path, 'path')
      // One page of ranked chunks or files: what fits the output budget, and the cursor to the rest.
      const pageOfRanked = <T>(ranked: readonly T[], render: (item: T) => string) => {
        const window = ranked.slice(offset, offset + limit)
        const fitted = fitItems(window, render, FRAME_TOKENS, env.maxTokens)
        const more = fitted < window.length || ranked.length > offset + limit
        const cursor = more ? encodeCursor({ tool: 'search_code', offset: offset + fitted, core: boosted.join('\n'), tree: qctx.freshness.treeHash, args: key }) : undefined
        const note = fitted < window.length && cursor ? cutNote(fitted, `${window.length} on this page`, cursor) : undefined
        return { items: window.slice(0, fitted), cursor, note }
      }
      const searched = `for ${JSON.stringify(expanded.query)}${expanded.resolved ? ` (${expanded.resolved})` : ''}`
      if (args.granularity === 'file') {
        const response = await searchFiles(qctx, expanded.query, { limit: offset + limit * 2, language: args.language, path: path || undefined })
        const { items: files, cursor, note } = pageOfRanked(boost(response.files, boosted), renderFile)
        const header = `${files.length === 0 ? 'No files' : `${files.length} file(s)`} ${searched}`
        const top = files[0]
        return {
          structured: {
            query: expanded.query,
            ...(expanded.resolved ? { resolved: expanded.resolved } : {}),
            results: [],
            files,
            warnings: response.warnings,
            ...pageFields(cursor, note),
            freshness: freshnessOf(qctx.freshness),
          },
          text: [header, ...files.map((f, i) => `${offset + i + 1}. ${renderFile(f)}`), ...response.warnings.map((w) => `warning: ${w}`), footer(cursor, note, qctx.freshness)].filter(Boolean).join('\n'),
          remember: {
            summary: top ? `${files.length} files; top ${top.path}` : 'no files',
            insights: top ? [`files for ${JSON.stringify(args.query)} → ${topFiles(files).join(', ')}`] : [],
            symbols: parseQuery(args.query).identifiers,
            files: topFiles(files),
          },
        }
      }
      const response = await searchCode(qctx, expanded.query, { limit: offset + limit * 2, language: args.language, path: path || undefined })
      const { items: results, cursor, note } = pageOfRanked(boost(response.results, boosted), renderResult)
      const structured = {
        query: expanded.query,
        ...(expanded.resolved ? { resolved: expanded.resolved } : {}),
        results,
        warnings: response.warnings,
        ...pageFields(cursor, note),
        freshness: freshnessOf(qctx.freshness),
      }
      const header = `${results.length === 0 ? 'No results' : `${results.length} result(s)`} ${searched}`
      const text = [header, ...results.map((r, i) => `${offset + i + 1}. ${renderResult(r)}`), ...response.warnings.map((w) => `warning: ${w}`), footer(cursor, note, qctx.freshness)].filter(Boolean).join('\n')
      const top = results[0]
      return {
        structured,
        text,
        remember: {
          summary: top ? `${results.length} results; top ${top.path}:${top.startLine} ${top.qualifiedName || top.kind}` : 'no results',
          insights: top ? [`search ${JSON.stringify(args.query)} → ${top.qualifiedName || top.kind} at ${top.path}:${top.startLine}`] : [],
          symbols: parseQuery(args.query).identifiers,
          files: topFiles(results),
        },
      }
    },
  })

  const findDefinitionTool = defineTool({
    name: 'find_definition',
    title: 'Find definition',
    description: 'Where a symbol is defined (exact, best first). Unknown names get suggestions.',
    input: { symbol: symbolInput, limit: z.number().int().min(1).max(100).optional().describe('Default 20.'), cursor: cursorInput },
    output: {
      symbol: z.string(),
      resolved: z.string().optional(),
      definitions: z.array(definitionSchema),
      total: z.number(),
      ...pageOutput,
      freshness: freshnessSchema,
    },
    annotations: READ_ONLY,
    run: async (args, memory) => {
      const qctx = await env.index.get()
      const { key, offset } = pageOf('find_definition', args)
      const limit = args.limit ?? 20
      const { symbol, resolved } = memory.resolveSymbol(args.symbol)
      const result = findDefinitions(qctx, symbol, { limit: offset + limit })
      if (result.total === 0) throw new UsageError(`No definition of ${symbol}${suggest(result.suggestions)}`)
      const window = result.definitions.slice(offset)
      await withHoverTypes(env, qctx, window)
      const fitted = fitItems(window, renderDefinition, FRAME_TOKENS, env.maxTokens)
      const definitions = window.slice(0, fitted)
      const shown = offset + fitted
      const cursor = shown < result.total ? encodeCursor({ tool: 'find_definition', offset: shown, tree: qctx.freshness.treeHash, args: key }) : undefined
      const note = cursor ? cutNote(definitions.length, result.total, cursor) : undefined
      const structured = { symbol, ...(resolved ? { resolved } : {}), definitions, total: result.total, ...pageFields(cursor, note), freshness: freshnessOf(qctx.freshness) }
      const best = definitions[0]!
      return {
        structured,
        text: [`${result.total} definition(s) of ${symbol}${resolved ? ` (${resolved})` : ''}`, ...definitions.map(renderDefinition), footer(cursor, note, qctx.freshness)].filter(Boolean).join('\n'),
        remember: {
          summary: `${result.total} definition(s); best ${best.path}:${best.line}`,
          insights: [`${best.qualifiedName} is a ${best.kind} at ${best.path}:${best.line}`],
          symbols: [symbol],
          files: topFiles(definitions),
        },
      }
    },
  })

  const findReferencesTool = defineTool({
    name: 'find_references',
    title: 'Find references',
    description: 'Uses of a symbol (calls, reads, types, imports), resolved through imports and scopes; paged.',
    input: {
      symbol: symbolInput,
      limit: z.number().int().min(1).max(500).optional().describe('At most this many references, and this many ambiguous uses, per page (default 50): a page ends before the first use that does not fit; the cursors lead through every use once, in order.'),
      cursor: cursorInput,
    },
    output: {
      symbol: z.string(),
      resolved: z.string().optional(),
      definitions: z.array(definitionSchema),
      references: z.array(referenceSchema),
      ambiguous: z.array(referenceSchema).optional().describe('Uses that may be of a same-named symbol.'),
      mentions: z.number().describe('Occurrences of the name before resolution (upper bound).'),
      ...pageOutput,
      freshness: freshnessSchema,
    },
    annotations: READ_ONLY,
    run: async (args, memory) => {
      const qctx = await env.index.get()
      const { key, page, offset: skip } = pageOf('find_references', args)
      const { symbol, resolved } = memory.resolveSymbol(args.symbol)
      const result = findReferences(qctx, symbol, { limit: args.limit ?? 50, cursor: page?.core })
      if (result.definitions.length === 0 && result.references.length === 0 && result.mentions === 0) {
        throw new UsageError(`No definition of or reference to ${symbol}${suggest(result.suggestions)}`)
      }
      await withHoverTypes(env, qctx, result.definitions)
      // A core page's uses, its references then its ambiguous ones, go out in parts that fit the cap;
      // the cursor's offset counts the uses of the core page already shown, so none is lost to a cut.
      const resolvedCount = result.references.length
      const window = [...result.references, ...(result.ambiguous ?? [])].slice(skip)
      const fitted = window.length === 0 ? 0 : fitItems(window, renderReference, FRAME_TOKENS, env.maxTokens)
      const references = window.slice(0, Math.max(0, Math.min(fitted, resolvedCount - skip)))
      const ambiguous = window.slice(references.length, fitted)
      const cut = fitted < window.length
      const next = cut ? { offset: skip + fitted, core: page?.core } : result.cursor ? { offset: 0, core: result.cursor } : undefined
      const cursor = next ? encodeCursor({ tool: 'find_references', ...next, tree: qctx.freshness.treeHash, args: key }) : undefined
      const note = cut && cursor ? cutNote(fitted, `${window.length} on this page`, cursor) : undefined
      const structured = {
        symbol,
        ...(resolved ? { resolved } : {}),
        definitions: result.definitions,
        references,
        ...(ambiguous.length > 0 ? { ambiguous } : {}),
        mentions: result.mentions,
        ...pageFields(cursor, note),
        freshness: freshnessOf(qctx.freshness),
      }
      const files = [...new Set(references.map((r) => r.path))]
      const text = [
        `${references.length} reference(s) to ${symbol}${resolved ? ` (${resolved})` : ''}${result.definitions[0] ? ` defined at ${quotedName(result.definitions[0].path)}:${result.definitions[0].line}` : ' (not defined in this repository)'}`,
        ...references.map(renderReference),
        ...(ambiguous.length > 0 ? ['Ambiguous (may be a same-named symbol):', ...ambiguous.map(renderReference)] : []),
        footer(cursor, note, qctx.freshness),
      ].filter(Boolean).join('\n')
      return {
        structured,
        text,
        remember: {
          summary: `${references.length} reference(s) in ${files.length} file(s)${cursor ? ', more on next page' : ''}`,
          insights: references.length > 0 ? [`${symbol} is used in ${files.slice(0, 3).join(', ')}${files.length > 3 ? ` and ${files.length - 3} more file(s)` : ''}`] : [],
          symbols: [symbol],
          files: files.slice(0, 3),
        },
      }
    },
  })

  const getRepoMapTool = defineTool({
    name: 'get_repo_map',
    title: 'Repository map',
    description: 'Most important files, classes and functions with signatures (PageRank), fitted to a token budget.',
    input: {
      scope: z.string().max(500).optional().describe('Directory or path prefix inside the repo.'),
      tokens: z.number().int().min(64).max(100_000).optional().describe(`Budget (default ${DEFAULT_MAP_TOKENS}).`),
    },
    output: {
      scope: z.string().nullable(),
      tokens: z.number(),
      files: z.number(),
      symbolsIncluded: z.number(),
      symbolsTotal: z.number(),
      map: z.string(),
      note: z.string().optional(),
      freshness: freshnessSchema,
    },
    annotations: READ_ONLY,
    run: async (args) => {
      const qctx = await env.index.get()
      const scope = args.scope === undefined ? undefined : resolveInRepo(env.index.root, args.scope, 'scope') || undefined
      const wanted = args.tokens ?? DEFAULT_MAP_TOKENS
      const budget = Math.min(wanted, env.maxTokens - FRAME_TOKENS)
      const map = buildRepoMap(qctx, { scope, tokens: budget, warn: env.warn })
      const note = budget < wanted ? `Output capped: the map was fitted to ${budget} tokens, not ${wanted}.` : undefined
      const structured = { scope: map.scope, tokens: map.tokens, files: map.files, symbolsIncluded: map.symbolsIncluded, symbolsTotal: map.symbolsTotal, map: map.map, ...(note ? { note } : {}), freshness: freshnessOf(qctx.freshness) }
      return {
        structured,
        text: [map.map, `(${map.symbolsIncluded} of ${map.symbolsTotal} symbols in ${map.files} file(s), ${map.tokens} tokens)`, footer(undefined, note, qctx.freshness)].filter(Boolean).join('\n'),
        remember: { summary: `map of ${map.scope ?? 'the repository'}: ${map.files} files, ${map.symbolsIncluded}/${map.symbolsTotal} symbols`, insights: [], symbols: [], files: map.scope ? [map.scope] : [] },
      }
    },
  })
  return [searchCodeTool, findDefinitionTool, findReferencesTool, getRepoMapTool]
}

/** Results in the conversation's files move up (a bounded boost, so relevance still leads). */
function boost<T extends { path: string; score: number }>(results: T[], files: readonly string[]): T[] {
  if (files.length === 0) return results
  const wanted = new Set(files)
  return results
    .map((result, rank) => ({ result, rank, score: wanted.has(result.path) ? result.score * BOOST : result.score }))
    .sort((a, b) => b.score - a.score || a.rank - b.rank)
    .map(({ result }) => result)
}

function renderResult(r: SearchResult): string {
  const what = r.qualifiedName === '' ? r.kind : `${r.qualifiedName} (${r.kind})`
  return `${quotedName(r.path)}:${r.startLine}-${r.endLine}  ${what}  ${r.score.toFixed(3)}\n${r.snippet.split('\n').map((line) => `    ${line}`).join('\n')}`
}

function renderFile(f: FileSearchResult): string {
  const chunks = f.chunks.map((c) => `    ${c.startLine}-${c.endLine} ${c.qualifiedName === '' ? c.kind : `${c.qualifiedName} (${c.kind})`}`)
  const commits = f.commits.map((c) => `    commit ${c.hash.slice(0, 10)} ${c.date.slice(0, 10)} ${JSON.stringify(c.subject)}`)
  return [`${quotedName(f.path)}  ${f.score.toFixed(3)}  [${f.methods.join(', ')}]`, ...chunks, ...commits].join('\n')
}

function renderDefinition(d: Definition): string {
  return `${quotedName(d.path)}:${d.line}-${d.endLine}  ${d.kind} ${d.qualifiedName}  ${d.signature}${d.type && d.type !== d.signature ? `  : ${d.type.replace(/\s*\n\s*/g, ' ')}` : ''}${d.precision === 'scip' ? '  [scip]' : ''}`
}

function renderReference(r: Reference): string {
  return `${quotedName(r.path)}:${r.line}:${r.column + 1}  ${r.context}${r.enclosing ? `  (in ${r.enclosing})` : ''}${r.precision === 'scip' ? '  [scip]' : ''}`
}

function suggest(suggestions: string[] | undefined): string {
  return suggestions && suggestions.length > 0 ? ` — did you mean ${suggestions.join(', ')}?` : ' (no close name is defined)'
}

/** With `[lsp] enabled` (the user's config), the kept language servers' hover types (src/core/lsp); warnings go to the server's log. */
async function withHoverTypes(env: ToolEnv, qctx: QueryContext, definitions: Definition[]): Promise<void> {
  const { config, repo } = qctx.index
  if (!config.lsp.enabled || !env.index.lsp || repo.root === null) return
  await addHoverTypes(definitions, (path) => qctx.files.get(path)?.language, { root: repo.root, servers: env.index.lsp, timeoutMs: config.lsp.timeoutMs, idleMs: config.lsp.idleS * 1000, warn: env.warn })
}
