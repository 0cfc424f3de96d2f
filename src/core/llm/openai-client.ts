/**
 * Chat completions from any OpenAI-compatible endpoint (OpenRouter, OpenAI, Ollama, LM Studio,
 * vLLM). This module retries only what waiting can fix (429, 5xx, a dropped connection before any
 * text was shown), honours Retry-After within a bound, and turns every other failure into one
 * LlmUnavailableError at once, so callers can fall back quickly.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { VltConfig } from '../config/types.js'
import { redactSecrets } from '../files/index.js'
import { Deadline } from './deadline.js'
import { LlmUnavailableError, type LlmFailureKind } from './errors.js'
import {
  backoffMs,
  causeCode,
  connectionCause,
  DEFAULT_RETRY,
  EndpointConnectionError,
  EndpointStatusError,
  EndpointStreamError,
  EndpointTimeoutError,
  postEvents,
  requestJson,
  retryAfterMs,
  serverMessage,
  statusFailure,
  type RetryPolicy,
} from '../endpoint/index.js'
import type { LlmClient, LlmMessage, LlmRequest, LlmResult, LlmTool, LlmToolCall, LlmUsage } from './types.js'

/** The body of a chat completions request, as far as this client sends it. */
interface ChatParams {
  model: string
  messages: WireMessage[]
  max_tokens?: number
  temperature?: number
  tools?: LlmTool[]
}

/** A message as the chat completions API takes it. */
type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> }
  | { role: 'tool'; content: string; tool_call_id: string }

/** Token counts as the API reports them; OpenRouter adds the request's price. */
interface UsageWithCost {
  prompt_tokens?: number
  completion_tokens?: number
  cost?: unknown
}

interface ToolCallDelta {
  index: number
  id?: string
  type?: string
  function?: { name?: string; arguments?: string }
}

interface ChatResponse {
  choices?: Array<{ message?: { content?: string | null; tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }> }; finish_reason?: string | null }>
  usage?: UsageWithCost | null
}

interface ChatChunk {
  choices?: Array<{ delta?: { content?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }>
  usage?: UsageWithCost | null
}
/** What one attempt produced, before redaction counts are added. */
type Answer = Omit<LlmResult, 'redactions'>

export class OpenAILlmClient implements LlmClient {
  readonly usage: LlmUsage = { requests: 0, inputTokens: 0, outputTokens: 0, costCents: null, redactions: 0 }
  private readonly retry: RetryPolicy
  /** The endpoint as shown in messages: no credentials, no query. */
  private readonly endpoint: string

  constructor(
    private readonly config: VltConfig['llm'],
    readonly model: string,
    private readonly apiKey: string | undefined,
    retry: Partial<RetryPolicy> = {},
  ) {
    const url = new URL(config.baseUrl)
    this.endpoint = `${url.origin}${url.pathname.replace(/\/+$/, '')}`
    this.retry = { ...DEFAULT_RETRY, ...retry }
  }

  private request(body: unknown, deadline: Deadline) {
    return { baseUrl: this.config.baseUrl, path: '/chat/completions', apiKey: this.apiKey, body, timeoutMs: this.config.timeoutMs, signal: deadline.signal }
  }

  complete(request: LlmRequest): Promise<LlmResult> {
    return this.run(request, undefined)
  }

  stream(request: LlmRequest, onText: (delta: string) => void): Promise<LlmResult> {
    return this.run(request, onText)
  }

  private async run(request: LlmRequest, onText: ((delta: string) => void) | undefined): Promise<LlmResult> {
    const { messages, redactions } = redactMessages(request.messages)
    this.usage.redactions += redactions
    const params: ChatParams = {
      model: this.model,
      messages,
      ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.tools?.length ? { tools: request.tools } : {}),
    }
    const caller = request.signal
    for (let attempt = 1; ; attempt++) {
      const deadline = new Deadline(this.config.timeoutMs, caller)
      let shown = false
      // A throwing onText is the caller's bug, not the endpoint's: it must surface unchanged.
      let callbackFailure: { error: unknown } | undefined
      try {
        this.usage.requests++
        const answer = onText
          ? await this.streamOnce(params, deadline, (delta) => {
              shown = true
              try {
                onText(delta)
              } catch (error) {
                callbackFailure = { error }
                throw error
              }
            })
          : await this.completeOnce(params, deadline)
        this.count(answer)
        return { ...answer, redactions }
      } catch (error) {
        if (caller?.aborted) throw caller.reason
        if (callbackFailure) throw callbackFailure.error
        const failure = this.classify(error, deadline.expired, attempt, shown)
        if (!failure.retryable || shown || attempt >= this.retry.attempts) throw failure.error
        const delay = retryAfterMs(error) ?? backoffMs(this.retry, attempt)
        if (delay > this.retry.maxDelayMs) {
          throw new LlmUnavailableError(failure.error.kind, `${failure.error.message}; the server asks to wait ${Math.ceil(delay / 1000)} s`)
        }
        await sleep(delay, undefined, caller ? { signal: caller } : {}).catch(() => {
          throw caller?.reason
        })
      } finally {
        deadline.dispose()
      }
    }
  }

  private async completeOnce(params: ChatParams, deadline: Deadline): Promise<Answer> {
    const response = (await requestJson(this.request({ ...params, stream: false }, deadline))) as ChatResponse | null
    const choice = response?.choices?.[0]
    if (!choice?.message) throw this.badResponse('a response without choices')
    const toolCalls: LlmToolCall[] = []
    for (const call of choice.message.tool_calls ?? []) {
      if (call.type === 'function') toolCalls.push({ id: call.id, name: call.function.name, arguments: parseArguments(call.function.arguments) })
    }
    return {
      text: choice.message.content ?? '',
      toolCalls,
      finishReason: choice.finish_reason ?? 'unknown',
      ...readUsage(response!.usage),
    }
  }

  private async streamOnce(params: ChatParams, deadline: Deadline, onText: (delta: string) => void): Promise<Answer> {
    // Usage arrives in a last chunk only when asked for (OpenRouter always sends it).
    const stream = postEvents(this.request({ ...params, stream: true, stream_options: { include_usage: true } }, deadline)) as AsyncGenerator<ChatChunk>
    let text = ''
    let finishReason: string | undefined
    let usage: UsageWithCost | undefined
    const calls: Array<{ id: string; name: string; arguments: string }> = []
    for await (const chunk of stream) {
      deadline.touch()
      if (chunk.usage) usage = chunk.usage
      const choice = chunk.choices?.[0]
      if (!choice) continue
      const delta = choice.delta
      if (delta?.content) {
        text += delta.content
        onText(delta.content)
      }
      for (const part of delta?.tool_calls ?? []) {
        const call = (calls[part.index] ??= { id: '', name: '', arguments: '' })
        if (part.id) call.id = part.id
        if (part.function?.name) call.name += part.function.name
        if (part.function?.arguments) call.arguments += part.function.arguments
      }
      if (choice.finish_reason) finishReason = choice.finish_reason
    }
    if (finishReason === undefined) throw this.badResponse('a stream that ended before the answer was complete')
    return {
      text,
      toolCalls: calls.filter(Boolean).map((call) => ({ id: call.id, name: call.name, arguments: parseArguments(call.arguments) })),
      finishReason,
      ...readUsage(usage),
    }
  }

  private count(answer: Answer): void {
    this.usage.inputTokens += answer.usage.inputTokens
    this.usage.outputTokens += answer.usage.outputTokens
    if (answer.costCents !== null) this.usage.costCents = (this.usage.costCents ?? 0) + answer.costCents
  }

  private badResponse(what: string): LlmUnavailableError {
    return new LlmUnavailableError('bad-response', `LLM endpoint ${this.endpoint} returned ${what}`)
  }

  private classify(error: unknown, expired: boolean, attempt: number, shown: boolean): { retryable: boolean; error: LlmUnavailableError } {
    const where = `LLM endpoint ${this.endpoint}`
    const after = attempt > 1 ? ` after ${attempt} attempts` : ''
    if (expired || error instanceof EndpointTimeoutError) {
      const what = shown ? 'stopped sending its answer for' : 'did not answer within'
      return fatal('timeout', `${where} ${what} ${this.config.timeoutMs} ms (llm.timeout_ms)`)
    }
    if (error instanceof LlmUnavailableError) return { retryable: false, error }
    if (error instanceof EndpointConnectionError) {
      const cause = connectionCause(error)
      // Connected, then closed without an answer: a server restarting or a proxy giving up, which may pass.
      if (DROPPED.has(cause)) return retryable('server', `${where} closed the connection without answering${after} (${cause})`)
      return fatal('unreachable', `${where} unreachable (${cause})`)
    }
    // An error event inside a stream: the server gave up mid-answer.
    if (error instanceof EndpointStreamError) return retryable('server', `${where} failed mid-answer${after} (${serverMessage(error)})`)
    if (error instanceof EndpointStatusError) {
      const failure = statusFailure(error.status, error, where, after, this.config.apiKeyEnv, `the request for model ${this.model}`)
      return { retryable: failure.retryable, error: new LlmUnavailableError(failure.kind, failure.message) }
    }
    if (error instanceof SyntaxError) return fatal('bad-response', `${where} sent an unreadable response (${error.message})`)
    // The body reader fails with the socket's error when the server drops the connection mid-answer.
    const code = causeCode(error)
    if (code) return retryable('server', `${where} dropped the connection mid-answer${after} (${code})`)
    return fatal('bad-response', `${where} sent an unreadable response (${(error as Error)?.message ?? String(error)})`)
  }
}

/** Socket errors of a connection that was accepted and then lost. */
const DROPPED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'])

function fatal(kind: LlmFailureKind, message: string): { retryable: false; error: LlmUnavailableError } {
  return { retryable: false, error: new LlmUnavailableError(kind, message) }
}

function retryable(kind: LlmFailureKind, message: string): { retryable: true; error: LlmUnavailableError } {
  return { retryable: true, error: new LlmUnavailableError(kind, message) }
}

/** Every message as it may leave the machine, in the API's shape: secrets replaced (tool arguments too), and how many were. */
function redactMessages(messages: LlmMessage[]): { messages: WireMessage[]; redactions: number } {
  let redactions = 0
  const redact = (text: string): string => {
    const result = redactSecrets(text)
    redactions += result.redactions
    return result.text
  }
  const wire = messages.map((message): WireMessage => {
    const content = redact(message.content)
    if (message.role === 'tool') return { role: 'tool', content, tool_call_id: message.toolCallId }
    if (message.role !== 'assistant' || !message.toolCalls?.length) return { role: message.role, content }
    const calls = message.toolCalls.map((call) => ({
      id: call.id,
      type: 'function' as const,
      function: { name: call.name, arguments: redact(typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {})) },
    }))
    return { role: 'assistant', content: content === '' ? null : content, tool_calls: calls }
  })
  return { messages: wire, redactions }
}

function readUsage(usage: UsageWithCost | null | undefined): Pick<LlmResult, 'usage' | 'costCents'> {
  const cost = usage?.cost
  return {
    usage: { inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0 },
    // OpenRouter reports credits, which are US dollars.
    costCents: typeof cost === 'number' && Number.isFinite(cost) ? cost * 100 : null,
  }
}

function parseArguments(raw: string): unknown {
  if (raw.trim() === '') return {}
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}



