/**
 * The MCP side of a vlt tool (src/core/tools): the wrapper that turns a tool's answer into
 * `structuredContent` plus text, records the exchange in the conversation context (re-read first:
 * the CLI or another server may have added to it), says what earlier exchanges established about
 * the same symbols, and turns any failure into a tool result with `isError` (never a dead server). The text is escaped
 * (src/core/display): a snippet's control characters reach no client's terminal raw; the
 * structured content keeps every string exact.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { z } from 'zod'
import { visibleText } from '../display/index.js'
import { VltError } from '../errors.js'
import { answerRebuildingDamage } from '../index/index.js'
import { countTokens } from '../repomap/index.js'
import type { ToolEnv, ToolSpec } from '../tools/index.js'
import type { Conversation } from '../conversation/index.js'

export interface McpToolEnv extends ToolEnv {
  /** The context named (an ask_oracle argument), else the server's. */
  conversation(name?: string): Promise<Conversation>
}

export interface RegisterOptions {
  /** The tool records its own exchange (ask_oracle: the oracle keeps the question and answer verbatim). */
  recordsItself?: boolean
}

export function registerVltTool<In extends z.ZodRawShape, Out extends z.ZodRawShape>(server: McpServer, env: McpToolEnv, spec: ToolSpec<In, Out>, options: RegisterOptions = {}): void {
  const name = spec.name
  const handler = async (args: z.objectOutputType<In, z.ZodTypeAny>): Promise<CallToolResult> => {
    let conversation: Conversation | undefined
    try {
      conversation = await env.conversation(typeof args.context === 'string' ? args.context : undefined)
      await conversation.refresh()
      const answer = await answerRebuildingDamage(() => spec.run(args, conversation!), () => env.index.forget?.())
      const tokens = Math.max(countTokens(answer.text), countTokens(JSON.stringify(answer.structured)))
      const earlier = established(conversation, answer.remember.symbols, answer.text)
      if (!options.recordsItself) conversation.record({ tool: name, via: `mcp:${env.clientId()}`, input: args, tokens, ...answer.remember })
      const text = earlier.length > 0 ? `${answer.text}\n\nEstablished earlier in context ${conversation.name}:\n${earlier.map((line) => `- ${line}`).join('\n')}` : answer.text
      return { content: [{ type: 'text', text: visibleText(text) }], structuredContent: answer.structured as Record<string, unknown> }
    } catch (error) {
      const message = errorMessage(error, env)
      conversation?.record({ tool: name, via: `mcp:${env.clientId()}`, input: args, tokens: countTokens(message), summary: `error: ${message}`, insights: [], symbols: [], files: [], isError: true })
      return { content: [{ type: 'text', text: visibleText(message) }], isError: true }
    }
  }
  server.registerTool(
    name,
    { title: spec.title, description: spec.description, inputSchema: spec.input, outputSchema: spec.output, annotations: { title: spec.title, ...spec.annotations } },
    handler as never,
  )
}

/** Stored insights and decisions (this call's are recorded after) naming a symbol this answer is about and not already in its text: the last few. */
const ESTABLISHED = 3

function established(conversation: Conversation, symbols: readonly string[], text: string): string[] {
  if (symbols.length === 0) return []
  const { insights, decisions } = conversation.state
  const known = [...insights, ...decisions.map((d) => `${d.text} [context ${conversation.name}#${d.exchange}]`)]
  const names = symbols.map((s) => new RegExp(`(?<![\\w$])${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$])`))
  return [...new Set(known.filter((line) => names.some((n) => n.test(line)) && !text.includes(line)))].slice(-ESTABLISHED)
}

function errorMessage(error: unknown, env: ToolEnv): string {
  if (error instanceof VltError) return error.message
  // A bug, not the caller's fault: the stack goes to the log, the caller gets the gist.
  env.warn(`error: ${(error as Error)?.stack ?? String(error)}`)
  return `internal error: ${(error as Error)?.message ?? String(error)}`
}
