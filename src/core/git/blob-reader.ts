import { spawnSync, type ChildProcess } from 'node:child_process'
import type { Socket } from 'node:net'
import { VltError } from '../errors.js'
import { gitEnv, GitError, spawnFailure, spawnGit } from './command.js'
import { repoOptions, type Repo } from './repo.js'

interface Request {
  oid: string
  resolve(content: Buffer): void
  reject(error: Error): void
}

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/
const LF = 10

/**
 * Reads blob contents through one long-lived `git cat-file --batch`. Requests are pipelined: each read
 * writes its oid at once and answers come back in request order, so many reads can be in flight.
 * The process starts on the first read. It keeps Node alive only while reads are pending, so a reader
 * that is never closed cannot hang the CLI (git sees EOF and exits with us).
 */
export class BlobReader {
  readonly #repo: Repo
  #child: ChildProcess | undefined
  #exited: Promise<void> | undefined
  #closing: Promise<void> | undefined
  #failure: Error | undefined
  #stderr = ''
  /** Requests written and not yet answered, oldest first. */
  readonly #pending: Request[] = []
  #corked = false

  // Parser state for the answer of #pending[0].
  #header: Buffer[] = []
  #content: Buffer | undefined
  #filled = 0
  #refusal: Error | undefined

  constructor(repo: Repo) {
    this.#repo = repo
  }

  /** The blob's bytes. Rejects for a missing object or one that is not a blob. */
  read(blob: string): Promise<Buffer> {
    if (this.#failure) return Promise.reject(this.#failure)
    if (this.#closing) return Promise.reject(new Error('BlobReader is closed'))
    if (!OID.test(blob)) return Promise.reject(new Error(`not an object id: ${JSON.stringify(blob)}`))
    const child = this.#child ?? this.#start()
    return new Promise((resolve, reject) => {
      if (this.#pending.length === 0) keepAlive(child, true)
      this.#pending.push({ oid: blob, resolve, reject })
      const stdin = child.stdin!
      // Coalesce the requests of one tick into a single write.
      if (!this.#corked) {
        this.#corked = true
        stdin.cork()
        process.nextTick(() => {
          this.#corked = false
          stdin.uncork()
        })
      }
      stdin.write(`${blob}\n`)
    })
  }

  /** Answers reads already made, then waits for git to exit. Safe to call more than once. */
  close(): Promise<void> {
    if (!this.#closing) {
      this.#closing = this.#exited ?? Promise.resolve()
      if (this.#child) {
        keepAlive(this.#child, true)
        this.#child.stdin!.end()
      }
    }
    return this.#closing
  }

  #start(): ChildProcess {
    const cwd = this.#repo.root ?? this.#repo.gitDir
    const child = spawnGit([...repoOptions(this.#repo), 'cat-file', '--batch'], cwd, 'pipe')
    this.#child = child
    keepAlive(child, false)
    child.stdout!.on('data', (chunk: Buffer) => this.#receive(chunk))
    child.stderr!.on('data', (chunk: Buffer) => {
      if (this.#stderr.length < 4096) this.#stderr += chunk.toString('utf8')
    })
    // EPIPE after git died: the 'close' handler reports it with git's stderr.
    child.stdin!.on('error', () => {})
    child.on('error', (error) => this.#fail(spawnFailure(error, cwd)))
    this.#exited = new Promise((resolve) => {
      child.on('close', (status, signal) => {
        if (this.#pending.length > 0 || !this.#closing) {
          this.#fail(new GitError(['cat-file', '--batch'], status, this.#stderr || `exited unexpectedly (${signal ?? status})`))
        }
        resolve()
      })
    })
    return child
  }

  #receive(chunk: Buffer): void {
    let at = 0
    while (at < chunk.length) {
      if (this.#content) {
        // Content, then the LF git puts after it.
        const want = this.#content.length + 1 - this.#filled
        const take = Math.min(want, chunk.length - at)
        const copy = Math.min(take, this.#content.length - this.#filled)
        if (copy > 0) chunk.copy(this.#content, this.#filled, at, at + copy)
        this.#filled += take
        at += take
        if (take === want) {
          if (chunk[at - 1] !== LF) {
            this.#protocolError('missing LF after content')
            return
          }
          const content = this.#content
          this.#content = undefined
          if (this.#refusal) this.#answer().reject(this.#refusal)
          else this.#answer().resolve(content)
        }
        continue
      }
      const lf = chunk.indexOf(LF, at)
      if (lf < 0) {
        this.#header.push(chunk.subarray(at))
        return
      }
      this.#header.push(chunk.subarray(at, lf))
      at = lf + 1
      const header = Buffer.concat(this.#header).toString('latin1')
      this.#header = []
      if (!this.#onHeader(header)) return
    }
  }

  /** "<oid> <type> <size>" starts content; "<oid> missing" is a whole answer. False on a broken stream. */
  #onHeader(header: string): boolean {
    const request = this.#pending[0]
    const [oid, type, size] = header.split(' ')
    if (!request || oid !== request.oid) return this.#protocolError(`unexpected answer "${header}"`)
    if (type === 'missing' || type === 'ambiguous') {
      this.#answer().reject(new VltError(`blob ${oid} is ${type} in ${this.#repo.gitDir}`))
      return true
    }
    const bytes = Number(size)
    if (!Number.isSafeInteger(bytes) || bytes < 0) return this.#protocolError(`bad size in "${header}"`)
    // Other objects are still consumed to stay in step with the stream, then refused.
    this.#refusal = type === 'blob' ? undefined : new VltError(`object ${oid} is a ${type}, not a blob`)
    this.#content = Buffer.allocUnsafe(bytes)
    this.#filled = 0
    return true
  }

  #answer(): Request {
    const request = this.#pending.shift()!
    if (this.#pending.length === 0 && this.#child) keepAlive(this.#child, false)
    return request
  }

  #protocolError(detail: string): false {
    this.#fail(new Error(`git cat-file --batch: ${detail}`))
    this.#child?.kill()
    return false
  }

  #fail(error: Error): void {
    this.#failure ??= error
    for (const request of this.#pending.splice(0)) request.reject(this.#failure)
    if (this.#child) keepAlive(this.#child, false)
  }
}

function keepAlive(child: ChildProcess, on: boolean): void {
  for (const handle of [child, child.stdout as Socket | null, child.stderr as Socket | null, child.stdin as Socket | null]) {
    if (on) handle?.ref()
    else handle?.unref()
  }
}

/**
 * The contents of `blobs` read in one `git cat-file --batch` run that this thread waits for: for
 * synchronous readers of many blobs at once (a query's snippets). A blob git lacks, or an object
 * that is no blob, is absent from the answer; a failure to run git throws.
 */
export function readBlobsSync(repo: Repo, blobs: readonly string[]): Map<string, Buffer> {
  const found = new Map<string, Buffer>()
  const wanted = [...new Set(blobs)].filter((blob) => OID.test(blob))
  if (wanted.length === 0) return found
  const cwd = repo.root ?? repo.gitDir
  const args = [...repoOptions(repo), 'cat-file', '--batch']
  const run = spawnSync('git', args, { cwd, env: gitEnv(), input: `${wanted.join('\n')}\n`, maxBuffer: Number.MAX_SAFE_INTEGER })
  if (run.error) throw spawnFailure(run.error as NodeJS.ErrnoException, cwd)
  if (run.status !== 0) throw new GitError(args, run.status, run.stderr.toString('utf8'))
  const out = run.stdout
  let at = 0
  for (const blob of wanted) {
    const lf = out.indexOf(LF, at)
    if (lf < 0) break
    const [oid, type, size] = out.toString('latin1', at, lf).split(' ')
    at = lf + 1
    if (oid !== blob) throw new Error(`git cat-file --batch: unexpected answer for ${blob}`)
    if (type === 'missing' || type === 'ambiguous') continue
    const end = at + Number(size)
    if (!Number.isSafeInteger(end) || end >= out.length || out[end] !== LF) throw new Error(`git cat-file --batch: bad content for ${blob}`)
    if (type === 'blob') found.set(blob, out.subarray(at, end))
    at = end + 1
  }
  return found
}
