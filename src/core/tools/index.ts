/**
 * The vlt tools, defined once (name, description, zod input and output shapes, executor, cap) and
 * served two ways: to MCP clients by the MCP server, and to the model of the oracle's agent loop as
 * OpenAI function tools whose JSON schemas are the very ones MCP's tools/list gives.
 */
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js'
import { z } from 'zod'
import { VltError } from '../errors.js'
import type { LlmTool } from '../llm/index.js'
import { codeTools } from './code.js'
import { fileTools } from './files.js'
import { gitTools } from './git.js'
import type { AnyToolSpec, ToolEnv, ToolMemory } from './kit.js'
import { knowledgeTools } from './knowledge.js'
import { threadTools } from './threads.js'

export {
  APPENDS,
  currentFreshness,
  defineTool,
  freshnessSchema,
  NO_MEMORY,
  READ_ONLY,
  type AnyToolSpec,
  type Remembered,
  type ToolAnswer,
  type ToolEnv,
  type ToolIndex,
  type ToolMemory,
  type ToolSpec,
} from './kit.js'
export { fitItems, maxOutputTokens } from './output-budget.js'
export { resolveInRepo } from '../files/index.js'

/** Every vlt tool over the repository (ask_oracle, which calls the oracle, is the MCP server's own). */
export function vltTools(env: ToolEnv): AnyToolSpec[] {
  return [...codeTools(env), ...fileTools(env), ...gitTools(env), ...knowledgeTools(env), ...threadTools(env)]
}

/** The tools that only read: the ones a model may call on its own. */
export function readOnlyTools(env: ToolEnv): AnyToolSpec[] {
  return vltTools(env).filter((spec) => spec.annotations.readOnlyHint === true)
}

/** A tool as an OpenAI function tool: the JSON schema MCP clients see for it. */
export function llmTool(spec: AnyToolSpec): LlmTool {
  // The meta-schema key is MCP's business; some chat endpoints refuse unknown keys at the top.
  const { $schema: _meta, ...parameters } = toJsonSchemaCompat(z.object(spec.input), { strictUnions: true, pipeStrategy: 'input' })
  return { type: 'function', function: { name: spec.name, description: spec.description, parameters } }
}

/** What one call of a tool by a model gave back: the text it reads, and whether it failed. */
export interface ToolOutcome {
  status: 'ok' | 'error'
  text: string
}

/**
 * Runs `spec` with arguments as a model sent them: checked against its input schema first, so a
 * malformed call is an error the model reads and can correct, never an exception. The text is cut
 * to `maxTokens` whatever the tool did.
 */
export async function callTool(spec: AnyToolSpec, raw: unknown, memory: ToolMemory, maxTokens: number, warn: (message: string) => void): Promise<ToolOutcome> {
  const parsed = z.object(spec.input).strict().safeParse(raw)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`)
    const what = typeof raw === 'string' ? 'arguments that are not a JSON object' : 'invalid arguments'
    return { status: 'error', text: `${spec.name} was called with ${what}: ${problems.join('; ')}` }
  }
  try {
    const answer = await spec.run(parsed.data, memory)
    return { status: 'ok', text: capText(answer.text, maxTokens) }
  } catch (error) {
    if (error instanceof VltError) return { status: 'error', text: error.message }
    warn(`error: ${spec.name}: ${(error as Error)?.stack ?? String(error)}`)
    return { status: 'error', text: `internal error: ${(error as Error)?.message ?? String(error)}` }
  }
}

function capText(text: string, maxTokens: number): string {
  const chars = maxTokens * 4
  if (text.length <= chars) return text
  const cut = text.lastIndexOf('\n', chars)
  return `${text.slice(0, cut > 0 ? cut : chars)}\n(output cut to ${maxTokens} tokens)`
}
