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
  /** Blob records taken, asked for and not there, written back. */
  hits: number
  misses: number
  pushed: number
  /** Trees' aggregates taken and written back (see index/remote-tree.ts). */
  treeHits: number
  treesPushed: number
  /** Commits of HEAD's history taken (their packs), and histories written back (see commits/remote.ts). */
  commitsTaken: number
  historiesPushed: number
  /** Entries or content refused by their checks, of either kind. */
  rejected: number
}

/** What an entry names: a blob's record, a tree's aggregates, or a history's commit packs (counted apart in the run's report). */
export type EntryKind = 'record' | 'tree' | 'history'

const NO_STATS: RemoteCacheStats = { hits: 0, misses: 0, pushed: 0, treeHits: 0, treesPushed: 0, commitsTaken: 0, historiesPushed: 0, rejected: 0 }

const DIGEST = /^[0-9a-f]{64}$/
const REJECTED = Symbol('rejected')

export class RemoteCache {
  readonly stats: RemoteCacheStats = { ...NO_STATS }
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
  async get(key: string, accept: (bytes: Buffer) => boolean, kind: EntryKind = 'record'): Promise<Buffer | undefined> {
    if (!this.usable) return undefined
    const miss = (): undefined => {
      if (kind === 'record') this.stats.misses++
      return undefined
    }
    try {
      const entry = await this.store.get(`ac/${digest(key)}`)
      if (entry === undefined) return miss()
      const named = entry.toString('latin1').trim()
      if (!DIGEST.test(named)) return this.reject()
      const bytes = await this.fetchContent(named, accept)
      if (bytes === undefined) return miss()
      if (bytes === REJECTED) return this.reject()
      // A tree is counted once all its parts passed (tookTree).
      if (kind === 'record') this.stats.hits++
      return bytes
    } catch (error) {
      this.fail(error)
      return undefined
    }
  }

  /** Notes a tree's aggregates taken whole, for the run's report. */
  tookTree(): void {
    this.stats.treeHits++
  }

  /** Notes commits of HEAD's history taken as packs, for the run's report. */
  tookCommits(count: number): void {
    this.stats.commitsTaken += count
  }

  /** Content by its digest (as a stored entry named it), checked like `get`'s; counted apart from records (not in hits or misses). */
  async getContent(named: string, accept: (bytes: Buffer) => boolean): Promise<Buffer | undefined> {
    const chunks: Buffer[] = []
    let bytes: Buffer | undefined
    const taken = await this.getContentInto(named, (chunk) => chunks.push(chunk), () => accept((bytes = Buffer.concat(chunks))))
    return taken ? bytes : undefined
  }

  /**
   * Content by its digest, streamed: its bytes go to `sink` as they arrive (a file, say), never all
   * in memory; then, if they hash to `named`, `accept` checks what the sink holds. True when taken;
   * otherwise the caller discards what its sink was given.
   */
  async getContentInto(named: string, sink: (chunk: Buffer) => void, accept: () => boolean): Promise<boolean> {
    if (!this.usable) return false
    if (!DIGEST.test(named)) {
      this.reject()
      return false
    }
    try {
      const hash = createHash('sha256')
      const found = await this.store.getInto(`cas/${named}`, (chunk) => {
        hash.update(chunk)
        sink(chunk)
      })
      if (!found) return false
      if (hash.digest('hex') === named && accept()) return true
      this.reject()
      return false
    } catch (error) {
      this.fail(error)
      return false
    }
  }

  /**
   * Stores content of `length` bytes that `read` gives in parts (read twice: to hash it, then to
   * send it, if the cache lacks it), when write-back is on; returns its digest, undefined when not stored.
   * `read` failing is this machine's fault, not the cache's: it is warned of, and the cache stays in use.
   */
  async putContentFrom(length: number, read: () => AsyncIterable<Uint8Array>): Promise<string | undefined> {
    if (!this.pushing) return undefined
    const readHere = async function* (): AsyncGenerator<Uint8Array> {
      try {
        yield* read()
      } catch (error) {
        throw new LocalReadError(error)
      }
    }
    try {
      const hash = createHash('sha256')
      for await (const part of readHere()) hash.update(part)
      const named = hash.digest('hex')
      if (!(await this.store.has(`cas/${named}`))) await this.store.put(`cas/${named}`, { length, parts: readHere() })
      return named
    } catch (error) {
      // Our own file failed to read: nothing is wrong with the cache, which stays in use.
      if (error instanceof LocalReadError) this.notices.push(`warning: cache: not written back: ${reasonOf(error.cause)}`)
      else this.fail(error)
      return undefined
    }
  }

  /** Stores `bytes` under `key` when write-back is on; content the cache already has is not sent again. */
  async put(key: string, bytes: Uint8Array, kind: EntryKind = 'record'): Promise<void> {
    if (!this.pushing) return
    try {
      const named = await this.storeContent(bytes)
      await this.store.put(`ac/${digest(key)}`, Buffer.from(named, 'latin1'))
      if (kind === 'record') this.stats.pushed++
      else if (kind === 'tree') this.stats.treesPushed++
      else this.stats.historiesPushed++
    } catch (error) {
      this.fail(error)
    }
  }

  /** Whether the cache holds an entry under `key`; true when it cannot say (nothing is written to a cache that is not usable). */
  async hasEntry(key: string): Promise<boolean> {
    if (!this.usable) return true
    try {
      return await this.store.has(`ac/${digest(key)}`)
    } catch (error) {
      this.fail(error)
      return true
    }
  }

  /** Stores content alone (one an entry will name), when write-back is on; returns its digest, undefined when not stored. */
  async putContent(bytes: Uint8Array): Promise<string | undefined> {
    if (!this.pushing) return undefined
    try {
      return await this.storeContent(bytes)
    } catch (error) {
      this.fail(error)
      return undefined
    }
  }

  /**
   * Reports this run's warnings, and with `summary` (an init) one line on what it took from and gave
   * to the cache; rejected records are always told. Then closes the connections.
   */
  flush(warn: (message: string) => void, { summary = false } = {}): void {
    for (const notice of this.notices.splice(0)) warn(notice)
    const { hits, misses, rejected, pushed, treeHits, treesPushed, commitsTaken, historiesPushed } = this.stats
    if (rejected > 0) warn(`warning: cache: ${rejected} records from ${this.store.where} rejected (content not matching its digest, or not a valid record) and built here`)
    if (summary && hits + misses + pushed + treeHits + treesPushed + commitsTaken + historiesPushed > 0) {
      const aggregates = treeHits > 0 ? "the tree's aggregates" : ''
      const history = commitsTaken > 0 ? `the commit index (${commitsTaken} commit${commitsTaken === 1 ? '' : 's'})` : ''
      const back = this.settings.push ? `, ${listed([`${pushed} written back`, treesPushed > 0 ? "the tree's aggregates" : '', historiesPushed > 0 ? 'the commit index' : ''])}` : ''
      warn(`cache: ${listed([`${hits} records`, aggregates, history])} from ${this.store.where}, ${misses} not there${back}`)
    }
    Object.assign(this.stats, NO_STATS)
    this.store.close()
  }

  private async fetchContent(named: string, accept: (bytes: Buffer) => boolean): Promise<Buffer | typeof REJECTED | undefined> {
    const bytes = await this.store.get(`cas/${named}`)
    if (bytes === undefined) return undefined
    return digest(bytes) === named && accept(bytes) ? bytes : REJECTED
  }

  private async storeContent(bytes: Uint8Array): Promise<string> {
    const named = digest(bytes)
    if (!(await this.store.has(`cas/${named}`))) await this.store.put(`cas/${named}`, bytes)
    return named
  }

  private reject(): undefined {
    this.stats.rejected++
    return undefined
  }

  private fail(error: unknown): void {
    if (this.failure !== undefined) return
    const reason = error instanceof CacheRefusedError ? error.message : reasonOf(error)
    this.failure = reason
    this.notices.push(`warning: cache: ${this.store.where} not usable (${reason}); indexing without it`)
  }
}

/** A failure to read, on this machine, what was being written back. */
class LocalReadError extends Error {
  constructor(cause: unknown) {
    super('reading content to write back failed', { cause })
  }
}

/** An error as a warning names it: its code (ECONNREFUSED, EIO), else its message. */
function reasonOf(error: unknown): string {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code ?? error.message : String(error)
}

function digest(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/** "a", "a and b", "a, b and c", leaving out empty items. */
function listed(items: string[]): string {
  const present = items.filter((item) => item !== '')
  return present.length <= 1 ? (present[0] ?? '') : `${present.slice(0, -1).join(', ')} and ${present[present.length - 1]}`
}
