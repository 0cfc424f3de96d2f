/**
 * The oracle's contracts (seed 000): what a question asks (OracleOptions), each piece of evidence
 * (OracleSource, the shared RetrievalResult with the exact-index and git methods added) and the
 * answer (OracleResponse, the `--json` shape).
 */
import type { Diagnostic, LspServers } from '../lsp/index.js'
import type { Progress } from '../cli/progress.js'
import type { Conversation } from '../conversation/index.js'
import type { QueryContext } from '../query/context.js'
import type { SearchExplain } from '../query/search/index.js'
import type { RetrievalMethod, RetrievalResult, SourceType } from '../sources/retrieval.js'

export const ORACLE_SOURCES = ['code', 'vault', 'threads', 'history', 'git'] as const satisfies readonly SourceType[]
export type OracleSourceName = (typeof ORACLE_SOURCES)[number]

export type QueryType = 'definition' | 'references' | 'history' | 'conceptual'

/**
 * How a piece of evidence was found: the sources' own methods, plus `symbol` (the definition
 * index), `references` (the resolved reference index), `blame` and `log` (git).
 */
export type OracleRetrievalMethod = RetrievalMethod | 'symbol' | 'references' | 'log'

export interface OracleSource extends Omit<RetrievalResult, 'retrievalMethod'> {
  retrievalMethod: OracleRetrievalMethod
}

export type OracleStage = 'searching' | 'history' | 'blame' | 'answering'

export interface OracleOptions {
  /** Sources to consult (default: all). */
  sources?: readonly OracleSourceName[]
  /** Token budget of the assembled context (default 16,000). */
  maxTokens?: number
  /** Replaces llm.model. */
  model?: string
  /** Keep retrieval traces in the response. */
  explain?: boolean
  /** Do not append the question and answer to the day's session thread. */
  noLog?: boolean
  /** Log agent-conversation excerpts in the session thread too (default: left out, transcripts are private). */
  logHistory?: boolean
  /** Author of the session entry (default: the git user). */
  author?: string
  /** Receives the LLM's answer as it streams (a terminal); the full answer is returned either way. */
  onText?: (delta: string) => void
  /** Index warnings and progress while the code index is built or synced. */
  warn?: (message: string) => void
  progress?: Progress
  /**
   * The query context of a caller that keeps one warm (the MCP server): used instead of opening and
   * syncing one per question, so that a question asked while that caller is building the index waits
   * for its build rather than for the index lock, which it may not get in time.
   */
  queryContext?: () => Promise<QueryContext>
  /** Where the LLM's API key is looked up (default process.env). */
  env?: NodeJS.ProcessEnv
  /** One line per step of the agent loop ("searching code… (search_code)"), for a terminal. */
  onProgress?: (line: string) => void
  /** Told as the run moves on (a browser shows it): retrieval, the history of the cited lines, their blame, the answer. */
  stage?: (stage: OracleStage) => void
  /** Stops the run (a browser that went away): the LLM request is cancelled and askOracle rejects with the signal's reason. */
  signal?: AbortSignal
  /**
   * The conversation the question continues (an open one, or which to open: a name, or `fresh` for
   * --new; the one opened becomes the current one). It resolves "it", gives the model its summary
   * and decisions, answers "what did we decide about X", and keeps the exchange. None: no context.
   */
  context?: Conversation | { name?: string; fresh?: boolean }
  /** Who asks, as the context records it: `cli` (default), `mcp:<client>`, `ui`. */
  via?: string
  /**
   * The repository's language servers as a long-lived caller keeps them (MCP server, UI server):
   * with `[lsp] enabled`, the diagnostics of the cited files and the hover types the agent's tools
   * give come from them. Absent: servers started for this answer, on first need, and killed after it.
   */
  lsp?: LspServers
}

/** The bound that ended the agent's tool calls early. */
export type AgentStop = 'max_turns' | 'token_budget' | 'deadline'

/** One tool call the model made in the agent loop, as it was run. */
export interface OracleToolCall {
  /** The model's id for the call. */
  id: string
  name: string
  /** As the model sent them: parsed JSON, or the raw text when it was not JSON. */
  arguments: unknown
  /** The text the model was given back (cut to the tool-result cap). */
  result: string
  /** `error`: the tool refused the call (malformed arguments, unknown tool, a path outside the repository…); `timeout`: still running at the deadline. */
  status: 'ok' | 'error' | 'timeout'
  durationMs: number
}

/** What the agent loop did (only when a language model answered). */
export interface OracleAgentTrace {
  /** Model requests, the final answer's included. */
  turns: number
  toolCalls: OracleToolCall[]
  /** The bound that stopped the tool calls early, or null when the model answered on its own. */
  stopped: AgentStop | null
}

/** What one role's model spent on the question. */
export interface RoleUsage {
  model: string
  requests: number
  inputTokens: number
  outputTokens: number
  /** US cents: as the server reported it, else from [llm.prices]; 'unknown' when neither says. */
  costCents: number | 'unknown'
}

/** One retrieval path's raw output, before fusion. */
export interface PathTrace {
  path: string
  results: Array<{ sourcePath: string; score: number; relevance?: number }>
  /** Why the path was skipped or failed. */
  note?: string
}

export interface OracleTraces {
  classification: { queryType: QueryType; symbol: string | null; searchText: string }
  paths: PathTrace[]
  /** Each candidate's fate: kept (with its final score), merged into another, or below the relevance floor. */
  decisions: Array<{ sourcePath: string; score: number; decision: 'kept' | 'duplicate' | 'irrelevant' | 'over-budget'; by?: string }>
  budget: { maxTokens: number; used: number; repoMap: number; sources: number; dropped: number }
  /** Code search's own per-path hits, fusion and rerank decisions. */
  codeSearch?: SearchExplain
}

export interface OracleResponse {
  answer: string
  queryType: QueryType
  sources: OracleSource[]
  repoMapSlice: string
  /** The model that wrote the answer; `extractive` when none did. */
  model: string
  tokensUsed: number
  costCents: number
  durationMs: number
  warnings: string[]
  /**
   * A shallow clone: git history stops at boundary commits, which blame and log credit with all
   * that came before; such blame and commits carry `boundary: true` and are not authorship.
   */
  shallow: boolean
  /** Only with `explain`. */
  traces?: OracleTraces
  /**
   * Only when the question names identifiers the code neither defines nor references: each with the
   * nearest defined names. The answer says so first; any evidence after it is only loosely related.
   */
  missingSymbols?: Array<{ name: string; nearest: string[] }>
  /** Only with `[lsp] enabled` and when the language servers reported some: the diagnostics of the cited code files. */
  diagnostics?: Diagnostic[]
  /** Only when a language model answered: the agent loop's requests and tool calls. */
  agent?: OracleAgentTrace
  /** Only when a language model answered: tokens and cost by role (agent, answer). */
  usageByRole?: Partial<Record<'agent' | 'answer', RoleUsage>>
  /** Only when the question continued a context: its name, its exchanges (this one included), and what a pronoun was taken to mean. */
  context?: { name: string; exchanges: number; resolved?: string }
}
