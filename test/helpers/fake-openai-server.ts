/**
 * A real OpenAI-compatible server on 127.0.0.1 for tests, speaking enough of the API for our
 * clients: POST /chat/completions (JSON or SSE streaming, tool calls, usage with OpenRouter's
 * `cost`) and POST /embeddings (the same deterministic vectors as fake-embeddings-server).
 *
 * Scripting: `replyNext` queues chat answers; `failNext` queues faults served to the next requests
 * on any route, before any reply. With both queues empty, chat answers `defaultReply` and
 * embeddings answer with vectors. Every request is recorded in arrival order.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fakeEmbedding, fakeTokenCount, readBody, sendJson } from './fake-embeddings-server.js'

export { fakeEmbedding, fakeTokenCount }

/** One chat answer. */
export interface ChatReply {
  text?: string
  toolCalls?: Array<{ id?: string; name: string; arguments: string | object }>
  /** Default: 'tool_calls' when there are tool calls, else 'stop'. */
  finishReason?: string
  /** Token counts; default: fakeTokenCount of the prompt and of the answer. */
  usage?: { prompt_tokens: number; completion_tokens: number }
  /** OpenRouter's usage.cost in USD; default: server option costPerToken × total tokens, else absent. */
  cost?: number
  /** How a streamed text is split into deltas; default: word by word (whitespace kept). */
  chunks?: string[]
  /** Streamed: wait this long before each chunk after the first (a model writing at its own pace); default 0. */
  chunkDelayMs?: number
  /** Only for a request to this model (a role's): requests to others pass it by in the queue. */
  model?: string
}

/** `model`: only for a request to this model (a role's); requests to others pass it by in the queue. */
export type Fault = { model?: string } & (
  /** Answer with this status (and Retry-After header when given) and an OpenAI-style error body. */
  | { kind: 'status'; status: number; retryAfter?: string; message?: string }
  /** Answer 200 with a body that is not JSON. */
  | { kind: 'malformed' }
  /**
   * Stop answering: before the headers, or for a streamed chat, after `afterChunks` SSE chunks of
   * the next reply. The client must time out.
   */
  | { kind: 'hang'; afterChunks?: number }
  /**
   * Destroy the socket: for a streamed chat after the headers and `afterChunks` SSE chunks of the
   * next reply, for anything else before answering.
   */
  | { kind: 'drop'; afterChunks?: number }
  /** Streamed chat only: send `afterChunks` SSE chunks of the next reply, then an error event (as OpenRouter does), then [DONE]. */
  | { kind: 'stream-error'; afterChunks: number; message: string }
)

export interface ReceivedRequest {
  method: string
  /** e.g. /v1/chat/completions */
  path: string
  headers: IncomingHttpHeaders
  /** The parsed JSON body (raw text under `raw` when it is not JSON). */
  body: RequestBody
  /** A streamed chat answer: when its first text delta was written (ms since the epoch, sub-millisecond; the ui bench's reference). */
  firstTextAt?: number
}

export interface RequestBody {
  [key: string]: unknown
  model?: string
  messages?: Array<{ role: string; content: string }>
  stream?: boolean
  stream_options?: { include_usage?: boolean }
  input?: string | string[]
  dimensions?: number
  raw?: string
}

export interface FakeOpenAIServerOptions {
  /** Embedding length when the request does not ask for one (default 8). */
  dimensions?: number
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string
  /** When set, usage.cost = total tokens × costPerToken (USD). */
  costPerToken?: number
}

export interface FakeOpenAIServer {
  /** Base URL for clients, e.g. http://127.0.0.1:43123/v1 */
  readonly baseUrl: string
  /** Every request received, in arrival order, faulted ones included. */
  readonly requests: ReceivedRequest[]
  /** The chat requests among them. */
  readonly chatRequests: ReceivedRequest[]
  /** The embedding requests among them. */
  readonly embeddingRequests: ReceivedRequest[]
  /** Streamed answers whose client closed the connection before the answer's end (a cancelled request). */
  readonly streamsCancelled: number
  /** The chat answer when no reply is queued (default: text 'ok'). */
  defaultReply: ChatReply
  replyNext(...replies: ChatReply[]): void
  failNext(...faults: Fault[]): void
  close(): Promise<void>
}

export async function startFakeOpenAIServer(opts: FakeOpenAIServerOptions = {}): Promise<FakeOpenAIServer> {
  const requests: ReceivedRequest[] = []
  const replies: ChatReply[] = []
  const faults: Fault[] = []
  let streamsCancelled = 0

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req)
    let body: RequestBody
    try {
      body = JSON.parse(raw) as RequestBody
    } catch {
      body = { raw }
    }
    const path = req.url ?? ''
    const received: ReceivedRequest = { method: req.method ?? '', path, headers: req.headers, body }
    requests.push(received)
    const route =
      req.method === 'POST' && path.endsWith('/chat/completions') ? 'chat'
      : req.method === 'POST' && path.endsWith('/embeddings') ? 'embeddings'
      : req.method === 'GET' && path.endsWith('/models') ? 'models'
      : undefined
    if (!route) return sendJson(res, 404, { error: { message: `no route ${req.method} ${path}` } })
    if (body.raw !== undefined && route !== 'models') return sendJson(res, 400, { error: { message: 'request body is not JSON' } })

    const faulted = faults.findIndex((candidate) => candidate.model === undefined || candidate.model === body.model)
    const fault = faulted >= 0 ? faults.splice(faulted, 1)[0] : undefined
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }
      return sendJson(res, fault.status, { error: { message: fault.message ?? `scripted ${fault.status}`, type: 'fake' } }, headers)
    }
    if (fault?.kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"id": "chatcmpl-broken", "choices": [')
      return
    }
    const streamed = route === 'chat' && body.stream === true
    if (fault?.kind === 'hang' && !(streamed && fault.afterChunks !== undefined)) return untilClosed(res)
    if (fault?.kind === 'drop' && !streamed) {
      res.socket?.destroy()
      return
    }
    if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      return sendJson(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } })
    }
    if (route === 'embeddings') return sendJson(res, 200, embeddingsResponse(body, opts))
    if (route === 'models') return sendJson(res, 200, { object: 'list', data: [{ id: 'test/chat-small', object: 'model', owned_by: 'fake' }] })

    const queued = replies.findIndex((candidate) => candidate.model === undefined || candidate.model === body.model)
    const reply = queued >= 0 ? replies.splice(queued, 1)[0]! : server.defaultReply
    const answer = chatAnswer(reply, body, opts)
    if (!streamed) return sendJson(res, 200, completion(answer))
    const chunks = streamChunks(answer, reply, body.stream_options?.include_usage === true)
    const stopAfter = fault?.kind === 'hang' || fault?.kind === 'drop' || fault?.kind === 'stream-error' ? (fault.afterChunks ?? 0) : Infinity
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.flushHeaders()
    res.on('close', () => {
      if (!res.writableEnded) streamsCancelled++
    })
    for (let i = 0; i < chunks.length && i < stopAfter && !res.destroyed; i++) {
      if (i > 0 && reply.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, reply.chunkDelayMs))
      // Chunk 0 opens the message (role, empty content); chunk 1 carries the first text.
      if (i === 1) received.firstTextAt = performance.timeOrigin + performance.now()
      res.write(`data: ${JSON.stringify(chunks[i])}\n\n`)
    }
    if (res.destroyed) return
    if (fault?.kind === 'hang') return untilClosed(res)
    if (fault?.kind === 'drop') {
      // Let the written chunks reach the client before the connection dies.
      await new Promise((resolve) => setTimeout(resolve, 20))
      res.socket?.destroy()
      return
    }
    if (fault?.kind === 'stream-error') res.write(`data: ${JSON.stringify({ error: { code: 502, message: fault.message } })}\n\n`)
    res.end('data: [DONE]\n\n')
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: Error) => sendJson(res, 500, { error: { message: error.message } }))
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo

  const server: FakeOpenAIServer = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get chatRequests() {
      return requests.filter((r) => r.path.endsWith('/chat/completions'))
    },
    get embeddingRequests() {
      return requests.filter((r) => r.path.endsWith('/embeddings'))
    },
    get streamsCancelled() {
      return streamsCancelled
    },
    defaultReply: { text: 'ok' },
    replyNext(...more) {
      replies.push(...more)
    },
    failNext(...more) {
      faults.push(...more)
    },
    close() {
      // Hanging requests would keep close() waiting forever.
      http.closeAllConnections()
      return new Promise((resolve, reject) => http.close((error) => (error ? reject(error) : resolve())))
    },
  }
  return server
}

interface ChatAnswer {
  id: string
  model: string
  text: string
  toolCalls: Array<{ id: string; name: string; arguments: string }>
  finishReason: string
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; cost?: number }
}

let answerCounter = 0

function chatAnswer(reply: ChatReply, body: RequestBody, opts: FakeOpenAIServerOptions): ChatAnswer {
  const text = reply.text ?? ''
  const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${i}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }))
  const prompt = (body.messages ?? []).reduce((sum, m) => sum + fakeTokenCount(String(m.content)), 0)
  const counts = reply.usage ?? { prompt_tokens: prompt, completion_tokens: fakeTokenCount(text) }
  const total = counts.prompt_tokens + counts.completion_tokens
  const cost = reply.cost ?? (opts.costPerToken === undefined ? undefined : total * opts.costPerToken)
  return {
    id: `chatcmpl-${++answerCounter}`,
    model: String(body.model),
    text,
    toolCalls,
    finishReason: reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
    usage: { ...counts, total_tokens: total, ...(cost === undefined ? {} : { cost }) },
  }
}

function completion(answer: ChatAnswer): unknown {
  return {
    id: answer.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: answer.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.toolCalls.length && !answer.text ? null : answer.text,
          ...(answer.toolCalls.length
            ? { tool_calls: answer.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) }
            : {}),
        },
        finish_reason: answer.finishReason,
      },
    ],
    usage: answer.usage,
  }
}

/** The SSE chunks of a streamed answer, as OpenAI sends them: text deltas, tool-call fragments, the finish, then usage when asked. */
function streamChunks(answer: ChatAnswer, reply: ChatReply, includeUsage: boolean): unknown[] {
  const base = { id: answer.id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: answer.model }
  const chunk = (delta: object, finishReason: string | null = null): unknown => ({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }] })
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })]
  const pieces = reply.chunks ?? (answer.text.match(/\S+\s*|\s+/g) ?? [])
  for (const piece of pieces) chunks.push(chunk({ content: piece }))
  answer.toolCalls.forEach((call, index) => {
    const half = Math.ceil(call.arguments.length / 2)
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments.slice(0, half) } }] }))
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] }))
  })
  chunks.push(chunk({}, answer.finishReason))
  if (includeUsage) chunks.push({ ...base, choices: [], usage: answer.usage })
  return chunks
}

function embeddingsResponse(body: RequestBody, opts: FakeOpenAIServerOptions): unknown {
  const input = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input.map(String) : []
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : (opts.dimensions ?? 8)
  const tokens = input.reduce((sum, text) => sum + fakeTokenCount(text), 0)
  return {
    object: 'list',
    model: String(body.model),
    data: input.map((text, index) => ({ object: 'embedding', index, embedding: Array.from(fakeEmbedding(text, dimensions)) })),
    usage: { prompt_tokens: tokens, total_tokens: tokens, ...(opts.costPerToken === undefined ? {} : { cost: tokens * opts.costPerToken }) },
  }
}

function untilClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => res.on('close', resolve))
}


