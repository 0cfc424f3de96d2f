/**
 * The plain HTTP cache protocol build tools share (Bazel's and Gradle's remote caches, nginx with
 * WebDAV PUT, any object store behind a URL): GET, PUT and HEAD of objects under a base URL. One
 * keep-alive agent per store, so thousands of small records reuse a few connections.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

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
    const { status, body } = await this.exchange('GET', path)
    if (status === 404) return undefined
    if (status !== 200) throw new CacheRefusedError(`GET answered HTTP ${status}`)
    return body
  }

  async has(path: string): Promise<boolean> {
    const { status } = await this.exchange('HEAD', path)
    if (status === 404) return false
    if (status !== 200) throw new CacheRefusedError(`HEAD answered HTTP ${status}`)
    return true
  }

  async put(path: string, bytes: Uint8Array): Promise<void> {
    const { status } = await this.exchange('PUT', path, bytes)
    // 200 (replaced), 201 (created), 204 (no content): all stored.
    if (status !== 200 && status !== 201 && status !== 204) throw new CacheRefusedError(`PUT answered HTTP ${status}`)
  }

  close(): void {
    this.agent.destroy()
  }

  private exchange(method: 'GET' | 'HEAD' | 'PUT', path: string, body?: Uint8Array): Promise<{ status: number; body: Buffer }> {
    const url = new URL(path, this.base)
    const headers: Record<string, string | number> = { ...this.options.headers }
    if (body) Object.assign(headers, { 'content-type': 'application/octet-stream', 'content-length': body.byteLength })
    return new Promise((resolve, reject) => {
      const request = this.send(url, { method, headers, agent: this.agent }, (response: IncomingMessage) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }))
        response.on('error', reject)
      })
      request.setTimeout(this.options.timeoutMs, () => request.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`)))
      request.on('error', reject)
      request.end(body)
    })
  }
}
