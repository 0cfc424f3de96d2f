/**
 * The Librarian (seed 001 Subagent): an agent with its own system prompt
 * (templates/prompts/librarian.md), its own tools (tools.ts) and its own model (`[llm.models]
 * librarian`, else llm.model, `--model` over both) that organises the notes and threads at the
 * user's request. It runs on the oracle's agent loop and its bounds. What it changes is left in
 * the working tree, never staged or committed, and listed after its answer — by us, not by the
 * model — so that the user reviews it with git.
 */
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { displayPath, loadConfig, userConfigPath } from '../config/index.js'
import { VltError } from '../errors.js'
import { openRepo } from '../git/index.js'
import { createLlmClient, DATA_BLOCK_RULE, LlmUnavailableError } from '../llm/index.js'
import { roleUsage, runAgent, type AgentSpend, type AgentStop, type OracleToolCall, type RoleUsage } from '../oracle/index.js'
import { NO_MEMORY } from '../tools/index.js'
import { Desk, type LibrarianWrite } from './desk.js'
import { writableShelves } from './shelves.js'
import { librarianTools } from './tools.js'

export { DEFAULT_SHELF } from './shelves.js'
export type { LibrarianWrite } from './desk.js'

const PROMPT_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'templates', 'prompts', 'librarian.md')
/** Cap of one tool result given to the model, in tokens (the oracle's). */
const TOOL_RESULT_TOKENS = 4000
/** A turn may carry a whole note to write. */
const MAX_TURN_TOKENS = 8000

export interface LibrarianOptions {
  /** Replaces the librarian role's model. */
  model?: string
  /** Where the API key is looked up (default process.env). */
  env?: NodeJS.ProcessEnv
  onText?: (delta: string) => void
  onProgress?: (line: string) => void
  warn?: (message: string) => void
  now?: Date
}

export interface LibrarianResult {
  /** The model's answer, then the list of changes. */
  answer: string
  writes: LibrarianWrite[]
  toolCalls: OracleToolCall[]
  usageByRole: { librarian: RoleUsage }
  stopped: AgentStop | null
}

export async function runLibrarian(cwd: string, request: string, options: LibrarianOptions = {}): Promise<LibrarianResult> {
  const warn = options.warn ?? (() => {})
  const repo = await openRepo(cwd)
  if (!repo.root) throw new VltError('the Librarian writes notes in a working tree; this repository is bare')
  const config = await loadConfig(repo.root)
  const client = createLlmClient(config.llm, { role: 'librarian', model: options.model, env: options.env })
  if (!client) {
    throw new VltError(`the Librarian needs a language model: set [llm] provider, base_url and model (or [llm.models] librarian) in ${displayPath(userConfigPath())}`)
  }
  const shelves = writableShelves(repo.root, config.notes.folders)
  const desk = new Desk(repo.root, repo.vltDir, shelves)
  const tools = librarianTools({ desk, maxTokens: TOOL_RESULT_TOKENS, warn })
  const now = options.now ?? new Date()
  const system = [
    (await readFile(PROMPT_FILE, 'utf8')).trim(),
    `The notes folders you write to: ${shelves.map((s) => `${s}/`).join(', ')}. Today is ${now.toISOString().slice(0, 10)}.`,
    DATA_BLOCK_RULE,
  ].join('\n\n')
  const result = await runAgent({
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: request },
    ],
    tools,
    memory: NO_MEMORY,
    agent: client,
    answer: client,
    bounds: { maxTurns: config.llm.maxTurns, tokenBudget: config.llm.agentTokens, deadlineMs: config.llm.agentTimeoutMs },
    toolResultTokens: TOOL_RESULT_TOKENS,
    maxAnswerTokens: MAX_TURN_TOKENS,
    onText: options.onText,
    onProgress: options.onProgress,
    warn,
    agentName: 'the Librarian',
  }).catch((error: unknown) => {
    // The model went away mid-task: what was already written stays, and the user must know what.
    if (error instanceof LlmUnavailableError && desk.writes.length > 0) throw new VltError(`${error.message}; already changed: ${desk.writes.map((w) => w.path).join(', ')}`)
    throw error
  })
  const changes = changeList(desk.writes)
  options.onText?.(changes)
  return {
    answer: result.text + changes,
    writes: desk.writes,
    toolCalls: result.toolCalls,
    usageByRole: { librarian: roleUsage(together(result.spent.agent, result.spent.answer), config.llm.prices) },
    stopped: result.stopped,
  }
}

/** The changes, as we made them (the model's account of them may be wrong). */
function changeList(writes: readonly LibrarianWrite[]): string {
  if (writes.length === 0) return '\n\nNo files were changed.'
  const lines = writes.map((w) => `- ${w.action} ${w.from ? `${w.from} → ` : ''}${w.path} (${w.bytes} bytes${w.redacted ? `, ${w.redacted} secret(s) redacted` : ''})`)
  return `\n\nChanged in the working tree (not staged, not committed; review with git status and git diff):\n${lines.join('\n')}`
}

/** One role's spend over both halves of the loop: the Librarian uses the same model for its turns and its answer. */
function together(a: AgentSpend, b: AgentSpend): AgentSpend {
  return {
    model: a.model,
    requests: a.requests + b.requests,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    costCents: a.costCents === null || b.costCents === null ? null : a.costCents + b.costCents,
  }
}
