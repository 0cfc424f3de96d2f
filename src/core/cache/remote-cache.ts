/**
 * Index records shared through an HTTP cache, laid out as Bazel's: content under its own SHA-256
 * (`cas/<sha256 of the bytes>`), and an entry per key naming that content (`ac/<sha256 of the
 * key>`, 64 hex digits). A reader trusts nothing it fetched: an entry that is not a digest, content
 * whose digest is not its name, or a record the caller's own check refuses (checksum, kind, format
 * version, identity) is rejected, counted and rebuilt locally. Trust in the entries themselves rests
 * on who may write the cache: write-back is off unless the user's config turns it on.
 *
 * A cache that cannot be used (unreachable, timing out, refusing with 401/403/5xx) is dropped for
 * the rest of the run after one warning: indexing never fails because of it.
 */
import { createHash } from 'node:crypto'
import { CacheRefusedError, HttpStore } from './http-store.js'

export interface RemoteCacheSettings {
  remote: string
  push: boolean
  header: string
  headerEnv?: string
  timeoutMs: number
}

/** What a run did with the cache, for its report. */
export interface RemoteCacheStats {
  hits: number
  misses: number
  rejected: number
  pushed: number
}

const DIGEST = /^[0-9a-f]{64}$/

export class RemoteCache {
  readonly stats: RemoteCacheStats = { hits: 0, misses: 0, rejected: 0, pushed: 0 }
  private readonly store: HttpStore
  private failure: string | undefined

  /** Warnings of this run, until its entry point reports them (`flush`). */
  private readonly notices: string[] = []

  constructor(private readonly settings: RemoteCacheSettings) {
    const headers: Record<string, string> = {}
    if (settings.headerEnv) {
      const value = process.env[settings.headerEnv]
      if (value) headers[settings.header] = value
      else this.notices.push(`warning: cache: $${settings.headerEnv} is not set; requests go without the ${settings.header} header`)
    }
    this.store = new HttpStore({ baseUrl: settings.remote, headers, timeoutMs: settings.timeoutMs })
  }

  get usable(): boolean {
    return this.failure === undefined
  }

  get pushing(): boolean {
    return this.settings.push && this.usable
  }

  /**
   * The bytes stored under `key` that `accept` takes (it returns false for a record that fails its
   * own check); undefined when the cache lacks them, refuses them, or is not usable.
   */
  async get(key: string, accept: (bytes: Buffer) => boolean): Promise<Buffer | undefined> {
    if (!this.usable) return undefined
    try {
      const entry = await this.store.get(`ac/${digest(key)}`)
      if (entry === undefined) return this.miss()
      const named = entry.toString('latin1').trim()
      if (!DIGEST.test(named)) return this.reject()
      const bytes = await this.store.get(`cas/${named}`)
      if (bytes === undefined) return this.miss()
      if (digest(bytes) !== named || !accept(bytes)) return this.reject()
      this.stats.hits++
      return bytes
    } catch (error) {
      this.fail(error)
      return undefined
    }
  }

  /** Stores `bytes` under `key` when write-back is on; content the cache already has is not sent again. */
  async put(key: string, bytes: Uint8Array): Promise<void> {
    if (!this.pushing) return
    try {
      const named = digest(bytes)
      if (!(await this.store.has(`cas/${named}`))) await this.store.put(`cas/${named}`, bytes)
      await this.store.put(`ac/${digest(key)}`, Buffer.from(named, 'latin1'))
      this.stats.pushed++
    } catch (error) {
      this.fail(error)
    }
  }

  /**
   * Reports this run's warnings, and with `summary` (an init) one line on what it took from and gave
   * to the cache; rejected records are always told. Then closes the connections.
   */
  flush(warn: (message: string) => void, { summary = false } = {}): void {
    for (const notice of this.notices.splice(0)) warn(notice)
    const { hits, misses, rejected, pushed } = this.stats
    if (rejected > 0) warn(`warning: cache: ${rejected} records from ${this.store.where} rejected (content not matching its digest, or not a valid record) and built here`)
    if (summary && hits + misses + pushed > 0) {
      warn(`cache: ${hits} records from ${this.store.where}, ${misses} not there${this.settings.push ? `, ${pushed} written back` : ''}`)
    }
    this.stats.hits = this.stats.misses = this.stats.rejected = this.stats.pushed = 0
    this.store.close()
  }

  private miss(): undefined {
    this.stats.misses++
    return undefined
  }

  private reject(): undefined {
    this.stats.rejected++
    return undefined
  }

  private fail(error: unknown): void {
    if (this.failure !== undefined) return
    const reason = error instanceof CacheRefusedError ? error.message : error instanceof Error ? (error as NodeJS.ErrnoException).code ?? error.message : String(error)
    this.failure = reason
    this.notices.push(`warning: cache: ${this.store.where} not usable (${reason}); indexing without it`)
  }
}

function digest(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}
