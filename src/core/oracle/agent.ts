/**
 * The oracle as an agent: the model starts from the retrieved evidence and may call the vlt tools
 * (src/core/tools) to look further — several at once, run in parallel — before it answers. The loop
 * is bounded by a number of model requests, a token budget and a wall-clock deadline; whichever
 * comes first, the model is asked once more, without tools, to answer from what it has, and the
 * answer says which bound stopped it. Tool results reach the model as data blocks, like the
 * evidence: text found in the repository is never an instruction.
 *
 * Two roles: `agent` makes the tool-calling turns, `answer` writes the final answer. When both are
 * the same model, a turn without tool calls is the answer (streamed as it comes); otherwise the
 * agent's turns are not shown and the answer model writes the answer from everything gathered.
 */
import { performance } from 'node:perf_hooks'
import { dataBlock, type LlmClient, type LlmMessage, type LlmResult, type LlmToolCall } from '../llm/index.js'
import { callTool, llmTool, type AnyToolSpec, type ToolMemory, type ToolOutcome } from '../tools/index.js'
import type { AgentStop, OracleToolCall } from './types.js'

export interface AgentBounds {
  /** Model requests at most, the final answer's included. */
  maxTurns: number
  /** Tokens (input + output) the tool-calling turns may use before the answer is asked for. */
  tokenBudget: number
  /** Milliseconds the tool-calling turns may take before the answer is asked for. */
  deadlineMs: number
}

export interface AgentRun {
  /** The request's messages: system prompt, then the question with its evidence. */
  messages: LlmMessage[]
  tools: readonly AnyToolSpec[]
  memory: ToolMemory
  agent: LlmClient
  answer: LlmClient
  bounds: AgentBounds
  /** Cap of one tool result given to the model, in tokens. */
  toolResultTokens: number
  maxAnswerTokens: number
  onText?: (delta: string) => void
  /** One line per step ("searching code…"), for a terminal. */
  onProgress?: (line: string) => void
  /** The caller's stop (a browser that went away): the model request in flight is cancelled and runAgent rejects with its reason. */
  signal?: AbortSignal
  warn: (message: string) => void
  /** Who is told to have stopped calling tools in the warning (default "the oracle"). */
  agentName?: string
}

/** What the requests of one role took, as the server reported it. */
export interface AgentSpend {
  model: string
  requests: number
  inputTokens: number
  outputTokens: number
  /** The server's reported cost (US cents), when it reported one for every request. */
  costCents: number | null
}

export interface AgentResult {
  text: string
  /** The turns that called tools are the agent's; the one that answered is the answer's. */
  spent: { agent: AgentSpend; answer: AgentSpend }
  toolCalls: OracleToolCall[]
  /** Model requests made. */
  turns: number
  /** The bound that ended the tool calls early; null when the model answered on its own. */
  stopped: AgentStop | null
}

/** Said to the model when a bound ends its search. */
const STOP_NOTE: Record<AgentStop, string> = {
  max_turns: 'the number of tool-calling turns (llm.max_turns)',
  token_budget: 'the token budget (llm.agent_tokens)',
  deadline: 'the time limit (llm.agent_timeout_ms)',
}

/** What a terminal shows while a tool runs. */
const PROGRESS: Record<string, string> = {
  search_code: 'searching code',
  find_definition: 'finding a definition',
  find_references: 'finding references',
  get_repo_map: 'reading the repository map',
  read_file_range: 'reading a file',
  git_log: 'reading git history',
  git_blame: 'reading git blame',
  git_show: 'reading a commit',
  search_notes: 'searching notes',
  search_history: 'searching agent conversations',
  thread_read: 'reading a thread',
  // The Librarian's own tools (src/core/librarian).
  list_notes: 'listing notes',
  read_note: 'reading a note',
  list_threads: 'listing threads',
  read_thread: 'reading a thread',
  search_threads: 'searching threads',
  write_note: 'writing a note',
  move_note: 'moving a note',
  write_index_note: 'writing an index note',
  append_thread: 'appending to a thread',
}

export async function runAgent(run: AgentRun): Promise<AgentResult> {
  const started = performance.now()
  const byName = new Map(run.tools.map((spec) => [spec.name, spec]))
  const tools = run.tools.map(llmTool)
  const messages = [...run.messages]
  const toolCalls: OracleToolCall[] = []
  const sameModel = run.agent.model === run.answer.model
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(new DeadlineReached()), run.bounds.deadlineMs)
  // Forwarded rather than combined (AbortSignal.any needs Node 20.3): its reason is not a DeadlineReached, so it ends the run.
  const stop = (): void => deadline.abort(run.signal!.reason)
  run.signal?.addEventListener('abort', stop, { once: true })
  const spent = { agent: emptySpend(run.agent.model), answer: emptySpend(run.answer.model) }
  let tokens = 0
  let turns = 0
  let stopped: AgentStop | null = null
  /** The last turn called tools: the model wanted to look further. */
  let looking = false
  try {
    while (tools.length > 0 && turns < run.bounds.maxTurns - 1) {
      if (tokens >= run.bounds.tokenBudget) {
        stopped = 'token_budget'
        break
      }
      let turn: LlmResult
      try {
        const request = { messages, tools, maxTokens: run.maxAnswerTokens, temperature: 0, signal: deadline.signal }
        turns++
        turn = sameModel && run.onText ? await run.agent.stream(request, run.onText) : await run.agent.complete(request)
      } catch (error) {
        if (!(error instanceof DeadlineReached)) throw error
        stopped = 'deadline'
        break
      }
      tokens += turn.usage.inputTokens + turn.usage.outputTokens
      looking = turn.toolCalls.length > 0
      if (!looking) {
        // The model answered. With one model for both roles that is the answer, already shown.
        if (sameModel) {
          addSpend(spent.answer, turn)
          return { text: turn.text, spent, toolCalls, turns, stopped: null }
        }
        addSpend(spent.agent, turn)
        break
      }
      addSpend(spent.agent, turn)
      if (turn.text && sameModel) run.onText?.('\n\n')
      messages.push({ role: 'assistant', content: turn.text, toolCalls: turn.toolCalls })
      const outcomes = await Promise.all(turn.toolCalls.map((call) => execute(call, byName, run, deadline.signal)))
      outcomes.forEach((record, i) => {
        toolCalls.push(record)
        messages.push({ role: 'tool', toolCallId: turn.toolCalls[i]!.id, content: dataBlock('tool-result', { tool: record.name, status: record.status }, record.result) })
      })
      if (deadline.signal.aborted) {
        stopped = 'deadline'
        break
      }
    }
    if (stopped === null && looking) stopped = 'max_turns'
  } finally {
    clearTimeout(timer)
    run.signal?.removeEventListener('abort', stop)
  }
  run.signal?.throwIfAborted()
  if (stopped) {
    const ms = Math.round(performance.now() - started)
    run.warn(`note: ${run.agentName ?? 'the oracle'} stopped calling tools at ${STOP_NOTE[stopped]} after ${turns} request(s), ${toolCalls.length} tool call(s), ${tokens} tokens, ${ms} ms; it answers from what it gathered`)
    messages.push({
      role: 'user',
      content: `You have reached ${STOP_NOTE[stopped]}: no more tools. Answer now from the evidence and tool results above, and say what you could not check.`,
    })
  }
  turns++
  const final = await run.answer.stream({ messages, maxTokens: run.maxAnswerTokens, temperature: 0, signal: run.signal }, run.onText ?? (() => {}))
  addSpend(spent.answer, final)
  let text = final.text
  if (stopped) {
    const note = `\n\n_(Stopped looking further at ${STOP_NOTE[stopped]}; this answer is from what was gathered by then.)_`
    run.onText?.(note)
    text += note
  }
  return { text, spent, toolCalls, turns, stopped }
}

function emptySpend(model: string): AgentSpend {
  return { model, requests: 0, inputTokens: 0, outputTokens: 0, costCents: 0 }
}

function addSpend(spend: AgentSpend, result: LlmResult): void {
  spend.requests++
  spend.inputTokens += result.usage.inputTokens
  spend.outputTokens += result.usage.outputTokens
  spend.costCents = spend.costCents === null || result.costCents === null ? null : spend.costCents + result.costCents
}

/** The deadline's abort reason: told apart from the caller's own cancellation and from endpoint failures. */
class DeadlineReached extends Error {
  constructor() {
    super('the agent deadline was reached')
  }
}

/** One tool call, recorded; a call still running at the deadline is abandoned and recorded as such. */
async function execute(call: LlmToolCall, byName: ReadonlyMap<string, AnyToolSpec>, run: AgentRun, deadline: AbortSignal): Promise<OracleToolCall> {
  const started = performance.now()
  const spec = byName.get(call.name)
  run.onProgress?.(`${PROGRESS[call.name] ?? call.name}… (${call.name})`)
  let outcome: ToolOutcome | 'timeout'
  if (!spec) outcome = { status: 'error', text: `no tool named ${JSON.stringify(call.name)}; the tools are ${[...byName.keys()].join(', ')}` }
  else outcome = await untilAborted(callTool(spec, call.arguments, run.memory, run.toolResultTokens, run.warn), deadline)
  const durationMs = Math.round(performance.now() - started)
  if (outcome === 'timeout') {
    return { id: call.id, name: call.name, arguments: call.arguments, result: 'The tool did not finish before the time limit (llm.agent_timeout_ms); its result is unknown.', status: 'timeout', durationMs }
  }
  return { id: call.id, name: call.name, arguments: call.arguments, result: outcome.text, status: outcome.status, durationMs }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | 'timeout'> {
  if (signal.aborted) return Promise.resolve('timeout')
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve('timeout')
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
