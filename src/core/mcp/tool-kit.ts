/**
 * The MCP side of a vlt tool (src/core/tools): the wrapper that turns a tool's answer into
 * `structuredContent` plus text, records the exchange in the conversation context, and turns any
 * failure into a tool result with `isError` (never a dead server). The text is escaped
 * (src/core/display): a snippet's control characters reach no client's terminal raw; the
 * structured content keeps every string exact.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { z } from 'zod'
import { visibleText } from '../display/index.js'
import { VltError } from '../errors.js'
import { countTokens } from '../repomap/index.js'
import type { ToolEnv, ToolSpec } from '../tools/index.js'
import type { Conversation } from '../conversation/index.js'

export interface McpToolEnv extends ToolEnv {
  conversation(): Promise<Conversation>
}

export function registerVltTool<In extends z.ZodRawShape, Out extends z.ZodRawShape>(server: McpServer, env: McpToolEnv, spec: ToolSpec<In, Out>): void {
  const name = spec.name
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
