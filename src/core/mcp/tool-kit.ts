/**
 * What every vlt MCP tool shares: schemas for freshness and paging, and the wrapper that turns a
 * tool's answer into `structuredContent` plus text, records the exchange in the conversation
 * context, and turns any failure into a tool result with `isError` (never a dead server). The text
 * is escaped (src/core/display): a snippet's control characters reach no client's terminal raw;
 * the structured content keeps every string exact.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { visibleText } from '../display/index.js'
import { VltError } from '../errors.js'
import { STALE_REASONS, type Freshness } from '../query/context.js'
import { countTokens } from '../repomap/index.js'
import type { Conversation, NewExchange } from '../conversation/index.js'
import { argsKey, decodeCursor, type PageCursor } from './output-budget.js'
import type { WarmIndex } from './warm-index.js'

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

/** The freshness of the warm index as it is now (synced just in time). */
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

export interface ToolEnv {
  index: WarmIndex
  /** Cap of one answer, in tokens (characters / 4). */
  maxTokens: number
  conversation(): Promise<Conversation>
  /** The client (agent) id the conversation context belongs to. */
  clientId(): string
  warn(message: string): void
}

/** What a tool computed: the structured result, its text rendering, and what to remember of it. */
export interface ToolAnswer<T> {
  structured: T
  text: string
  remember: Omit<NewExchange, 'tool' | 'input' | 'tokens' | 'isError'>
}

export interface ToolSpec<In extends z.ZodRawShape, Out extends z.ZodRawShape> {
  title: string
  description: string
  input: In
  output: Out
  annotations: ToolAnnotations
  run(args: z.objectOutputType<In, z.ZodTypeAny>, conversation: Conversation): Promise<ToolAnswer<z.objectOutputType<Out, z.ZodTypeAny>>>
}

export function registerVltTool<In extends z.ZodRawShape, Out extends z.ZodRawShape>(server: McpServer, env: ToolEnv, name: string, spec: ToolSpec<In, Out>): void {
  const handler = async (args: z.objectOutputType<In, z.ZodTypeAny>): Promise<CallToolResult> => {
    let conversation: Conversation | undefined
    try {
      conversation = await env.conversation()
      const answer = await spec.run(args, conversation)
      const tokens = Math.max(countTokens(answer.text), countTokens(JSON.stringify(answer.structured)))
      conversation.record({ tool: name, input: args, tokens, ...answer.remember })
      return { content: [{ type: 'text', text: visibleText(answer.text) }], structuredContent: answer.structured as Record<string, unknown> }
    } catch (error) {
      const message = errorMessage(error, env)
      conversation?.record({ tool: name, input: args, tokens: countTokens(message), summary: `error: ${message}`, insights: [], symbols: [], files: [], isError: true })
      return { content: [{ type: 'text', text: visibleText(message) }], isError: true }
    }
  }
  server.registerTool(
    name,
    { title: spec.title, description: spec.description, inputSchema: spec.input, outputSchema: spec.output, annotations: { title: spec.title, ...spec.annotations } },
    handler as never,
  )
}

function errorMessage(error: unknown, env: ToolEnv): string {
  if (error instanceof VltError) return error.message
  // A bug, not the caller's fault: the stack goes to the log, the caller gets the gist.
  env.warn(`error: ${(error as Error)?.stack ?? String(error)}`)
  return `internal error: ${(error as Error)?.message ?? String(error)}`
}

/** Read-only tools over the local index: no side effects, same answer for the same tree. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
/** Tools that add to what is under `.vlt/` (a thread entry): nothing is lost, but a repeat adds again. */
export const APPENDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }
