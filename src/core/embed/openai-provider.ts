/**
 * Embeddings from any OpenAI-compatible `/embeddings` endpoint (OpenAI, OpenRouter, Ollama,
 * LM Studio, vLLM). This module retries only what waiting can fix (429, 5xx), honours Retry-After
 * within a bound, and turns every other failure into one EmbeddingUnavailableError at once, so a
 * search never hangs on a dead endpoint.
 */
import { displayPath, userConfigPath } from '../config/user.js'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  backoffMs,
  connectionCause,
  EndpointConnectionError,
  EndpointStatusError,
  EndpointTimeoutError,
  requestJson,
  retryAfterMs,
  statusFailure,
  type RetryPolicy,
} from '../endpoint/index.js'
import { EmbeddingUnavailableError } from './errors.js'
import type { EmbeddingConfig, EmbeddingProvider, EmbeddingUsage } from './provider.js'

/** Embedding a repository is many requests: one more attempt than chat, and longer waits allowed. */
const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 }

export class OpenAIEmbeddingProvider implements EmbeddingProvider {
  readonly id: string
  readonly usage: EmbeddingUsage = { requests: 0, inputTokens: 0 }
  private readonly retry: RetryPolicy
  private readonly host: string
  /** Length every vector must have: the configured one, else the first one seen. */
  private dimensions: number | undefined

  constructor(private readonly config: EmbeddingConfig, private readonly apiKey: string | undefined, retry: Partial<RetryPolicy> = {}) {
    this.host = new URL(config.baseUrl).host
    this.id = `openai:${this.host}:${config.model}:${config.dimensions ?? 'native'}`
    this.dimensions = config.dimensions
    this.retry = { ...DEFAULT_RETRY, ...retry }
  }

  async embed(texts: string[], signal?: AbortSignal, onBatch?: (offset: number, vectors: Float32Array[]) => void): Promise<Float32Array[]> {
    const result = new Array<Float32Array>(texts.length)
    const batchSize = Math.max(1, Math.floor(this.config.batchSize))
    const batchCount = Math.ceil(texts.length / batchSize)
    // One failed batch stops the others: their results could not be returned anyway.
    const stop = new AbortController()
    const forward = (): void => stop.abort(signal?.reason)
    if (signal?.aborted) forward()
    signal?.addEventListener('abort', forward, { once: true })
    let nextBatch = 0
    let failure: { error: unknown } | undefined
    const worker = async (): Promise<void> => {
      while (!failure && !stop.signal.aborted && nextBatch < batchCount) {
        const offset = nextBatch++ * batchSize
        try {
          const vectors = await this.embedBatch(texts.slice(offset, offset + batchSize), stop.signal)
          for (let i = 0; i < vectors.length; i++) result[offset + i] = vectors[i]!
          onBatch?.(offset, vectors)
        } catch (error) {
          if (!failure) {
            failure = { error }
            stop.abort()
          }
        }
      }
    }
    try {
      const workers = Math.max(1, Math.min(Math.floor(this.config.concurrency), batchCount))
      await Promise.all(Array.from({ length: workers }, worker))
    } finally {
      signal?.removeEventListener('abort', forward)
    }
    if (signal?.aborted) throw signal.reason
    if (failure) throw failure.error
    return result
  }

  private async embedBatch(input: string[], signal: AbortSignal): Promise<Float32Array[]> {
    for (let attempt = 1; ; attempt++) {
      let response: unknown
      // A signal per request: fetch leaves a listener on the signal it is given, which would pile up on a shared one.
      const request = new AbortController()
      const cancel = (): void => request.abort(signal.reason)
      signal.addEventListener('abort', cancel, { once: true })
      try {
        this.usage.requests++
        response = await requestJson({
          baseUrl: this.config.baseUrl,
          path: '/embeddings',
          apiKey: this.apiKey,
          body: {
            model: this.config.model,
            input,
            // Asked for explicitly: base64, OpenAI's other format, is not implemented by every compatible server.
            encoding_format: 'float',
            ...(this.config.dimensions === undefined ? {} : { dimensions: this.config.dimensions }),
          },
          timeoutMs: this.config.timeoutMs,
          signal: request.signal,
        })
      } catch (error) {
        if (signal.aborted) throw signal.reason
        const failure = this.classify(error, attempt)
        if (!failure.retryable || attempt >= this.retry.attempts) throw failure.error
        const delay = retryAfterMs(error) ?? backoffMs(this.retry, attempt)
        if (delay > this.retry.maxDelayMs) {
          throw new EmbeddingUnavailableError(failure.error.kind, `${failure.error.message}; the server asks to wait ${Math.ceil(delay / 1000)} s`)
        }
        await sleep(delay, undefined, { signal }).catch(() => {
          throw signal.reason
        })
        continue
      } finally {
        signal.removeEventListener('abort', cancel)
      }
      return this.readResponse(response, input.length)
    }
  }

  /** Validates the shape and dimensions of a response and counts its usage. */
  private readResponse(response: unknown, expected: number): Float32Array[] {
    const body = response as { data?: unknown; usage?: { prompt_tokens?: unknown; total_tokens?: unknown; cost?: unknown } }
    const bad = (what: string): never => {
      throw new EmbeddingUnavailableError('bad-response', `embedding API at ${this.host} returned ${what}`)
    }
    if (typeof body !== 'object' || body === null || !Array.isArray(body.data)) bad('a response without a data array')
    const data = body.data as Array<{ embedding?: unknown; index?: unknown }>
    if (data.length !== expected) bad(`${data.length} embeddings for ${expected} inputs`)
    const usage = body.usage
    const tokens = usage?.prompt_tokens ?? usage?.total_tokens
    if (typeof tokens === 'number') this.usage.inputTokens += tokens
    if (typeof usage?.cost === 'number') this.usage.cost = (this.usage.cost ?? 0) + usage.cost

    const vectors = new Array<Float32Array>(expected)
    for (let i = 0; i < data.length; i++) {
      const item = data[i]!
      const slot = typeof item.index === 'number' ? item.index : i
      if (!Number.isInteger(slot) || slot < 0 || slot >= expected || vectors[slot]) bad(`an embedding with index ${String(item.index)}`)
      const embedding = item.embedding
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        bad('an embedding that is not a list of numbers')
      }
      const values = embedding as number[]
      if (this.dimensions === undefined) this.dimensions = values.length
      if (values.length !== this.dimensions) {
        const source = this.config.dimensions === undefined ? 'earlier vectors from the same model' : `embedding.dimensions in ${displayPath(userConfigPath())}`
        bad(`${values.length}-dimensional vectors where ${source} ${this.config.dimensions === undefined ? 'have' : 'says'} ${this.dimensions}`)
      }
      vectors[slot] = Float32Array.from(values)
    }
    return vectors
  }

  private classify(error: unknown, attempt: number): { retryable: boolean; error: EmbeddingUnavailableError } {
    const where = `embedding API at ${this.host}`
    const after = attempt > 1 ? ` after ${attempt} attempts` : ''
    if (error instanceof EndpointTimeoutError) {
      return fatal('timeout', `${where} did not answer within ${this.config.timeoutMs} ms (embedding.timeoutMs)`)
    }
    if (error instanceof EndpointConnectionError) {
      return fatal('unreachable', `${where} is unreachable (${connectionCause(error)})`)
    }
    if (error instanceof EndpointStatusError) {
      const failure = statusFailure(error.status, error, where, after, this.config.apiKeyEnv, 'the request')
      return { retryable: failure.retryable, error: new EmbeddingUnavailableError(failure.kind, failure.message) }
    }
    if (error instanceof EmbeddingUnavailableError) return { retryable: false, error }
    // A body that is not JSON, and any other problem with it.
    return fatal('bad-response', `${where} sent an unreadable response (${(error as Error)?.message ?? String(error)})`)
  }

}

function fatal(kind: EmbeddingUnavailableError['kind'], message: string): { retryable: false; error: EmbeddingUnavailableError } {
  return { retryable: false, error: new EmbeddingUnavailableError(kind, message) }
}



