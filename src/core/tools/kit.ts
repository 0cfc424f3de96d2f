/**
 * What every vlt tool shares, whoever calls it (an MCP client, or the oracle's agent loop): schemas
 * for freshness and paging, the spec a tool is written as (name, zod input and output shapes, an
 * executor), and the environment it runs in. A tool's answer is structured content plus a text
 * rendering, and what a conversation should remember of it.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import type { Repo } from '../git/index.js'
import type { LspServers } from '../lsp/index.js'
import { STALE_REASONS, type Freshness, type QueryContext } from '../query/context.js'
import { argsKey, decodeCursor, type PageCursor } from './output-budget.js'

export const freshnessSchema = z
  .object({
    treeHash: z.string().describe('Indexed tree (HEAD after the just-in-time sync).'),
    stale: z.boolean().describe('True when the index could not be brought up to date.'),
    staleReason: z
      .enum(STALE_REASONS)
      .optional()
      .describe('Why, when stale: another run holds the index lock, .vlt/ is read-only or full, the update failed, or uncommitted edits are not laid over.'),
  })
  .describe('Which index answered.')

export const cursorInput = z.string().optional().describe('From a previous page of the same call.')
export const pageOutput = {
  cursor: z.string().optional().describe('Pass back, with the same arguments, for the next page.'),
  note: z.string().optional().describe('Set when the output was cut to the size cap.'),
}

export function freshnessOf(freshness: Freshness): z.infer<typeof freshnessSchema> {
  return { treeHash: freshness.treeHash, stale: freshness.stale, ...(freshness.staleReason ? { staleReason: freshness.staleReason } : {}) }
}

/** The freshness of the index as it is now (synced just in time). */
export async function currentFreshness(env: ToolEnv): Promise<z.infer<typeof freshnessSchema>> {
  return freshnessOf((await env.index.get()).freshness)
}

/** The call's arguments key and, when a cursor was passed, the page it continues (checked against both). */
export function pageOf(tool: string, args: Record<string, unknown> & { cursor?: string }): { key: string; page: PageCursor | undefined; offset: number } {
  const key = argsKey(args)
  const page = args.cursor ? decodeCursor(args.cursor, tool, key) : undefined
  return { key, page, offset: page?.offset ?? 0 }
}

/** The optional paging fields of a structured answer: set only when there is a next page or a cut. */
export function pageFields(cursor: string | undefined, note: string | undefined): { cursor?: string; note?: string } {
  return { ...(cursor ? { cursor } : {}), ...(note ? { note } : {}) }
}

/** The distinct paths of the first `count` items: the files an answer is remembered by. */
export function topFiles(items: ReadonlyArray<{ path: string }>, count = 3): string[] {
  return [...new Set(items.slice(0, count).map((item) => item.path))]
}

/** The last line of a tool's text: the cut or next page, and which tree answered. */
export function footer(cursor: string | undefined, note: string | undefined, freshness: { treeHash: string; stale: boolean }): string {
  const parts = [`[tree ${freshness.treeHash.slice(0, 12)}${freshness.stale ? ', STALE: the index could not be updated' : ''}]`]
  if (note) parts.unshift(note)
  else if (cursor) parts.unshift(`More: cursor "${cursor}"`)
  return parts.join('\n')
}

/** The index a tool reads: kept warm by the MCP server, opened once per question by the oracle. */
export interface ToolIndex {
  /** The working tree (the git dir for a bare repository): every path argument stays inside it. */
  readonly root: string
  readonly repo: Repo
  /** The up-to-date query context. */
  get(): Promise<QueryContext>
  /** Drops a context kept loaded, in which a query found damage (see index/damage.ts). */
  forget?(): void
  /** The language servers the MCP server keeps: with `[lsp] enabled`, definitions carry their hover types. */
  readonly lsp?: LspServers
}

export interface ToolEnv {
  index: ToolIndex
  /** Cap of one answer, in tokens (characters / 4). */
  maxTokens: number
  /** The client (agent) an answer is for: the author of what it writes. */
  clientId(): string
  warn(message: string): void
}

/**
 * What a tool may know of the conversation it is called in: pronouns resolved to the symbols last
 * discussed, and the files in play. The MCP server's conversation context is one; a fresh question
 * has none (`NO_MEMORY`).
 */
export interface ToolMemory {
  resolveSymbol(symbol: string): { symbol: string; resolved?: string }
  expandQuery(query: string): { query: string; resolved?: string }
  recentFiles(limit: number): string[]
}

export const NO_MEMORY: ToolMemory = {
  resolveSymbol: (symbol) => ({ symbol }),
  expandQuery: (query) => ({ query }),
  recentFiles: () => [],
}

/** What a conversation keeps of one answer. */
export interface Remembered {
  /** One line about the output. */
  summary: string
  insights: string[]
  symbols: string[]
  files: string[]
}

/** What a tool computed: the structured result, its text rendering, and what to remember of it. */
export interface ToolAnswer<T> {
  structured: T
  text: string
  remember: Remembered
}

export interface ToolSpec<In extends z.ZodRawShape, Out extends z.ZodRawShape> {
  name: string
  title: string
  description: string
  input: In
  output: Out
  annotations: ToolAnnotations
  run(args: z.objectOutputType<In, z.ZodTypeAny>, memory: ToolMemory): Promise<ToolAnswer<z.objectOutputType<Out, z.ZodTypeAny>>>
}

/** A tool of any shape, as the catalogue lists it (each spec checks its own arguments' types). */
export type AnyToolSpec = ToolSpec<any, any>

/** Read-only tools over the local index: no side effects, same answer for the same tree. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
/** Tools that add to what is under `.vlt/` (a thread entry): nothing is lost, but a repeat adds again. */
export const APPENDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }

/** A spec as written, its argument and answer types checked against its own shapes. */
export function defineTool<In extends z.ZodRawShape, Out extends z.ZodRawShape>(spec: ToolSpec<In, Out>): ToolSpec<In, Out> {
  return spec
}
