/**
 * A real OpenAI-compatible embeddings server on 127.0.0.1 for tests: deterministic vectors,
 * usage in each response, scriptable faults, and a log of what it was sent.
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type EmbeddingFault =
  /** Answer with this status (and Retry-After header when given) and an OpenAI-style error body. */
  | { kind: 'status'; status: number; retryAfter?: string; message?: string }
  /** Never answer: the client must time out. */
  | { kind: 'hang' }
  /** Answer 200 with vectors of the wrong length. */
  | { kind: 'dimensions'; dimensions: number }
  /** Answer 200 with a body that is not JSON. */
  | { kind: 'malformed' }

export interface ReceivedRequest {
  method: string
  path: string
  authorization: string | undefined
  model: string
  input: string[]
  dimensions: number | undefined
  encodingFormat: string | undefined
}

export interface FakeEmbeddingsServerOptions {
  /** Vector length when the request does not ask for one (default 8). */
  dimensions?: number
  /** Delay before each answer, so that concurrent requests overlap (default 0). */
  delayMs?: number
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string
  /** When set, usage.cost = tokens × costPerToken. */
  costPerToken?: number
}

export interface FakeEmbeddingsServer {
  /** Base URL for the client, e.g. http://127.0.0.1:43123/v1 */
  readonly baseUrl: string
  /** Every POST /embeddings received, in arrival order (faulted ones included). */
  readonly requests: ReceivedRequest[]
  /** Most requests ever in flight at once. */
  readonly maxInFlight: number
  /** Faults served to the next requests, one each, in order. */
  failNext(...faults: EmbeddingFault[]): void
  /** Fault chosen per request (0-based arrival number); consulted after the failNext queue is empty. */
  script: ((requestNumber: number, input: string[]) => EmbeddingFault | undefined) | undefined
  close(): Promise<void>
}

/** The unit vector the server returns for `text`: SHA-256 stream of the text mapped to [-1, 1], normalised. */
export function fakeEmbedding(text: string, dimensions: number): Float32Array {
  const values = new Float32Array(dimensions)
  let block = Buffer.alloc(0)
  for (let i = 0, counter = 0; i < dimensions; i++) {
    const at = (i * 2) % 32
    if (at === 0) block = createHash('sha256').update(`${counter++}:${text}`).digest()
    values[i] = block.readUInt16LE(at) / 32767.5 - 1
  }
  let norm = 0
  for (const v of values) norm += v * v
  norm = Math.sqrt(norm)
  for (let i = 0; i < dimensions; i++) values[i]! /= norm
  return values
}

/** Roughly what a tokenizer would count; the tests only need it to be deterministic. */
export function fakeTokenCount(text: string): number {
  return Math.ceil(text.length / 4)
}

export async function startFakeEmbeddingsServer(opts: FakeEmbeddingsServerOptions = {}): Promise<FakeEmbeddingsServer> {
  const defaultDimensions = opts.dimensions ?? 8
  const requests: ReceivedRequest[] = []
  const queue: EmbeddingFault[] = []
  let inFlight = 0
  let maxInFlight = 0

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req)
    if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) return sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}` } })
    let body: { model?: unknown; input?: unknown; dimensions?: unknown; encoding_format?: unknown }
    try {
      body = JSON.parse(raw) as typeof body
    } catch {
      return sendJson(res, 400, { error: { message: 'request body is not JSON' } })
    }
    const input = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input.map(String) : []
    const number = requests.length
    requests.push({
      method: req.method,
      path: req.url,
      authorization: req.headers.authorization,
      model: String(body.model),
      input,
      dimensions: typeof body.dimensions === 'number' ? body.dimensions : undefined,
      encodingFormat: typeof body.encoding_format === 'string' ? body.encoding_format : undefined,
    })
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    try {
      if (opts.delayMs) await new Promise((resolve) => setTimeout(resolve, opts.delayMs))
      const fault = queue.shift() ?? server.script?.(number, input)
      if (fault?.kind === 'hang') {
        await new Promise<void>((resolve) => res.on('close', resolve))
        return
      }
      if (fault?.kind === 'status') {
        const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }
        return sendJson(res, fault.status, { error: { message: fault.message ?? `scripted ${fault.status}`, type: 'fake' } }, headers)
      }
      if (fault?.kind === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{"object": "list", "data": [')
        return
      }
      if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
        return sendJson(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } })
      }
      const dimensions = fault?.kind === 'dimensions' ? fault.dimensions : typeof body.dimensions === 'number' ? body.dimensions : defaultDimensions
      const tokens = input.reduce((sum, text) => sum + fakeTokenCount(text), 0)
      sendJson(res, 200, {
        object: 'list',
        model: String(body.model),
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: Array.from(fakeEmbedding(text, dimensions)) })),
        usage: { prompt_tokens: tokens, total_tokens: tokens, ...(opts.costPerToken === undefined ? {} : { cost: tokens * opts.costPerToken }) },
      })
    } finally {
      inFlight--
    }
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: Error) => sendJson(res, 500, { error: { message: error.message } }))
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo

  const server: FakeEmbeddingsServer = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get maxInFlight() {
      return maxInFlight
    },
    failNext(...faults) {
      queue.push(...faults)
    },
    script: undefined,
    close() {
      // Hanging requests would keep close() waiting forever.
      http.closeAllConnections()
      return new Promise((resolve, reject) => http.close((error) => (error ? reject(error) : resolve())))
    },
  }
  return server
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
    req.on('error', reject)
  })
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}
