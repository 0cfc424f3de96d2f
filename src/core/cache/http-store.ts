/**
 * The plain HTTP cache protocol build tools share (Bazel's and Gradle's remote caches, nginx with
 * WebDAV PUT, any object store behind a URL): GET, PUT and HEAD of objects under a base URL. One
 * keep-alive agent per store, so thousands of small records reuse a few connections.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

/** Connections per cache: enough to hide a LAN's latency, few enough for one nginx worker. */
export const CACHE_CONNECTIONS = 16

export interface HttpStoreOptions {
  baseUrl: string
  headers: Record<string, string>
  timeoutMs: number
}

/** A status the cache answered that is neither success nor "not there": the cache is not usable as configured. */
export class CacheRefusedError extends Error {}

export class HttpStore {
  private readonly base: URL
  private readonly agent: HttpAgent
  private readonly send: typeof httpRequest

  constructor(private readonly options: HttpStoreOptions) {
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`)
    const secure = this.base.protocol === 'https:'
    this.agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: CACHE_CONNECTIONS }) : new HttpAgent({ keepAlive: true, maxSockets: CACHE_CONNECTIONS })
    this.send = secure ? httpsRequest : httpRequest
  }

  /** Where the cache is, as messages may show it: no credentials, no query. */
  get where(): string {
    return `${this.base.protocol}//${this.base.host}${this.base.pathname}`
  }

  /** The object's bytes, or undefined when the cache does not have it (404). */
  async get(path: string): Promise<Buffer | undefined> {
    const chunks: Buffer[] = []
    const found = await this.getInto(path, (chunk) => chunks.push(chunk))
    return found ? Buffer.concat(chunks) : undefined
  }

  /**
   * Hands the object's bytes to `sink` as they arrive, never holding them all (a tree's aggregates
   * run to hundreds of megabytes); false when the cache does not have it (404).
   */
  async getInto(path: string, sink: (chunk: Buffer) => void): Promise<boolean> {
    const status = await this.exchange('GET', path, undefined, sink)
    if (status === 404) return false
    if (status !== 200) throw new CacheRefusedError(`GET answered HTTP ${status}`)
    return true
  }

  async has(path: string): Promise<boolean> {
    const status = await this.exchange('HEAD', path)
    if (status === 404) return false
    if (status !== 200) throw new CacheRefusedError(`HEAD answered HTTP ${status}`)
    return true
  }

  /** Stores `body`: bytes, or `length` bytes read in parts as the connection takes them. */
  async put(path: string, body: Uint8Array | { length: number; parts: AsyncIterable<Uint8Array> }): Promise<void> {
    const status = await this.exchange('PUT', path, body)
    // 200 (replaced), 201 (created), 204 (no content): all stored.
    if (status !== 200 && status !== 201 && status !== 204) throw new CacheRefusedError(`PUT answered HTTP ${status}`)
  }

  close(): void {
    this.agent.destroy()
  }

  /** The answer's status; a 200's body goes to `sink`, any other body is dropped. */
  private exchange(method: 'GET' | 'HEAD' | 'PUT', path: string, body?: Uint8Array | { length: number; parts: AsyncIterable<Uint8Array> }, sink?: (chunk: Buffer) => void): Promise<number> {
    const url = new URL(path, this.base)
    const headers: Record<string, string | number> = { ...this.options.headers }
    if (body) Object.assign(headers, { 'content-type': 'application/octet-stream', 'content-length': body instanceof Uint8Array ? body.byteLength : body.length })
    return new Promise((resolve, reject) => {
      const request = this.send(url, { method, headers, agent: this.agent }, (response: IncomingMessage) => {
        const taken = response.statusCode === 200 && sink !== undefined
        response.on('data', (chunk: Buffer) => {
          if (!taken) return
          try {
            sink(chunk)
          } catch (error) {
            request.destroy(error as Error)
          }
        })
        response.on('end', () => resolve(response.statusCode ?? 0))
        response.on('error', reject)
      })
      request.setTimeout(this.options.timeoutMs, () => request.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`)))
      request.on('error', reject)
      if (body === undefined || body instanceof Uint8Array) request.end(body)
      // pipeline waits for the connection to take each part before reading the next, and ends the request.
      else pipeline(Readable.from(body.parts), request).catch((error: Error) => request.destroy(error))
    })
  }
}
