/**
 * One message of a chat. An assistant message may carry the tool calls the model made; each call's
 * result goes back as a `tool` message naming the call it answers.
 */
export type LlmMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: LlmToolCall[] }
  | { role: 'tool'; content: string; toolCallId: string }

/** An OpenAI function tool, sent as is. */
export interface LlmTool {
  type: 'function'
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null }
}

export interface LlmRequest {
  messages: LlmMessage[]
  maxTokens?: number
  temperature?: number
  tools?: LlmTool[]
  /** Cancels the request; the promise then rejects with the signal's reason. */
  signal?: AbortSignal
}

export interface LlmToolCall {
  id: string
  name: string
  /**
   * The parsed JSON arguments. Models sometimes emit invalid JSON; the raw string is kept then,
   * since callers validate arguments against their own schema anyway.
   */
  arguments: unknown
}

/** The API's finish_reason: 'stop', 'length', 'tool_calls', 'content_filter', or whatever a server invents. */
export type LlmFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | (string & {})

export interface LlmResult {
  text: string
  toolCalls: LlmToolCall[]
  finishReason: LlmFinishReason
  usage: { inputTokens: number; outputTokens: number }
  /** What the server says the request cost (OpenRouter's usage.cost, USD × 100); null when it does not say. */
  costCents: number | null
  /** Secrets replaced in the outgoing messages. */
  redactions: number
}

/** Everything one client has spent so far, for `--json` outputs. */
export interface LlmUsage {
  /** HTTP requests sent, retries included: each one may be billed. */
  requests: number
  inputTokens: number
  outputTokens: number
  /** Sum of the costs the server reported; null until it reports one. */
  costCents: number | null
  /** Secrets replaced in outgoing messages. */
  redactions: number
}

export interface LlmClient {
  readonly model: string
  readonly usage: Readonly<LlmUsage>
  /** Rejects with LlmUnavailableError, or with the request's abort reason. */
  complete(request: LlmRequest): Promise<LlmResult>
  /**
   * Like complete, calling `onText` with each piece of the answer as it arrives; the pieces
   * concatenate to `text`. A failure before the first piece is retried like complete; once text
   * has been shown, a failure ends the request.
   */
  stream(request: LlmRequest, onText: (delta: string) => void): Promise<LlmResult>
}
