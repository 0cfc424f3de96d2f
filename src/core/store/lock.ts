/**
 * One writer at a time per `.vlt/`: `<vlt>/locks/<name>.lock` exists while someone holds the lock.
 *
 * - Taking it: the holder's JSON is written to a temp file and hard-linked to the lock path; link(2)
 *   fails if the path exists, so the lock appears atomically and always complete.
 * - A lock is stale when its pid is dead on this host (or is a zombie, or is a recycled pid with a
 *   different start time), or when its content is unreadable and older than a few seconds.
 * - Breaking a stale lock: two waiters may judge it stale at once, and the slower one must not
 *   delete the fresh lock the faster one has just taken. So a breaker first takes a short-lived claim
 *   (`<name>.lock.breaking`, O_EXCL), then unlinks the lock only if it is still the very file judged
 *   stale (same inode and mtime). Nobody else can remove or replace that file meanwhile: its owner
 *   is dead and other breakers are kept out by the claim. A claim left by a breaker killed in those
 *   few microseconds is itself ignored after ten seconds.
 * - A SIGKILLed holder leaves its lock behind; the next acquirer finds the pid dead and recovers.
 * - `locks/` must be a real folder inside `.vlt/`, and a lock file is only read if it is a regular
 *   file (confine.ts): a repository that commits one as a link to a FIFO must not hang us.
 */
import { unlinkSync } from 'node:fs'
import { link, lstat, open, unlink, writeFile } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { basename, join } from 'node:path'
import { threadId } from 'node:worker_threads'
import { setTimeout as sleep } from 'node:timers/promises'
import { VltError } from '../errors.js'
import { ConfinementError, confineTo, ensureDirSync, forgetDir, openConfined, readFileConfinedSync } from './confine.js'
import { isProcessAlive, processStartTicks } from './liveness.js'

/** What a lock file says about its holder. */
export interface LockHolder {
  pid: number
  hostname: string
  /** ISO time the lock was taken. */
  startedAt: string
  /** The holder's command line, for the "who holds it" message. */
  command: string
  /** Distinguishes this acquisition from any other, so release never removes someone else's lock. */
  token: string
  /** See processStartTicks; absent where /proc is unavailable. */
  pidStart?: string
}

export interface LockOptions {
  /** Lock file name under `locks/` (default 'index'). */
  name?: string
  /** How long to wait for a live holder before failing (default 30 s; 0 fails at once). */
  waitMs?: number
  /**
   * Called once, when the lock is found held and waiting starts, with a one-line description of the
   * holder (pid, command, since when) and the holder itself (undefined if its file is unreadable).
   */
  onWait?: (description: string, holder: LockHolder | undefined) => void
  /** Call onWait only once the wait has lasted this long (default 0: at once). */
  notifyAfterMs?: number
}

export interface Lock {
  readonly path: string
  readonly holder: LockHolder
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void
}

const DEFAULT_WAIT_MS = 30_000
/** An unreadable lock younger than this may be a foreign tool's write in progress. */
const UNREADABLE_GRACE_MS = 5_000
/** Breaking takes microseconds; a claim this old belongs to a breaker that died. */
const BREAK_CLAIM_STALE_MS = 10_000
const MAX_POLL_MS = 500

export async function acquireLock(vltDir: string, opts: LockOptions = {}): Promise<Lock> {
  const name = opts.name ?? 'index'
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new Error(`invalid lock name: ${JSON.stringify(name)}`)
  const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS
  confineTo(vltDir)
  const dir = join(vltDir, 'locks')
  const path = join(dir, `${name}.lock`)
  const pidStart = processStartTicks(process.pid)
  const holder: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    command: commandLine(),
    token: randomBytes(12).toString('hex'),
    ...(pidStart === undefined ? {} : { pidStart }),
  }
  const deadline = Date.now() + waitMs
  const notifyAt = Date.now() + (opts.notifyAfterMs ?? 0)
  let delay = 20
  let notified = false
  for (;;) {
    if (await tryCreate(dir, path, JSON.stringify(holder))) {
      const lock = new HeldLock(path, holder)
      track(lock)
      return lock
    }
    const seen = await inspect(path)
    if (seen.state === 'gone') continue
    if (seen.state === 'stale') {
      if (!(await breakStale(path, seen.identity))) await sleep(10)
      continue
    }
    const left = deadline - Date.now()
    if (left <= 0) throw new VltError(heldMessage(path, seen.holder, seen.ageMs, waitMs))
    if (!notified && Date.now() >= notifyAt) {
      notified = true
      opts.onWait?.(describeHolder(seen.holder, seen.ageMs), seen.holder)
    }
    // Wake up in time to announce a wait that reaches notifyAt while the lock is still held.
    const untilNotice = notified ? Infinity : Math.max(1, notifyAt - Date.now())
    await sleep(Math.min(delay, left, untilNotice))
    delay = Math.min(delay * 1.5, MAX_POLL_MS)
  }
}

/** Runs `fn` holding the lock; releases it however `fn` ends. */
export async function withLock<T>(vltDir: string, fn: (lock: Lock) => Promise<T> | T, opts?: LockOptions): Promise<T> {
  const lock = await acquireLock(vltDir, opts)
  try {
    return await fn(lock)
  } finally {
    lock.release()
  }
}

class HeldLock implements Lock {
  private released = false

  constructor(readonly path: string, readonly holder: LockHolder) {}

  release(): void {
    if (this.released) return
    this.released = true
    untrack(this)
    // Synchronous so that it also works from an 'exit' handler. A lock replaced by a link or a
    // FIFO meanwhile is not ours: left alone.
    try {
      if (parseHolder(readFileConfinedSync(this.path)?.toString('utf8') ?? '')?.token === this.holder.token) unlinkSync(this.path)
    } catch (error) {
      if (!(error instanceof ConfinementError) && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
}

async function tryCreate(dir: string, path: string, content: string): Promise<boolean> {
  const temp = `${path}.${process.pid}-${threadId}-${randomBytes(4).toString('hex')}.vlt-tmp`
  // O_EXCL creates the temp file or fails: never writes through a link; link(2) never follows one.
  ensureDirSync(dir)
  try {
    await writeFile(temp, content, { flag: 'wx' })
  } catch (error) {
    // Proven a moment ago and removed since: prove it again.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    forgetDir(dir)
    ensureDirSync(dir)
    await writeFile(temp, content, { flag: 'wx' })
  }
  try {
    await link(temp, path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    await unlink(temp)
  }
}

type Seen =
  | { state: 'gone' }
  | { state: 'stale'; identity: string }
  | { state: 'held'; holder: LockHolder | undefined; ageMs: number }

/** Reads the lock through one descriptor so that its identity and its content describe the same file. */
async function inspect(path: string): Promise<Seen> {
  const handle = await openConfined(path)
  if (!handle) return { state: 'gone' }
  try {
    const st = await handle.stat({ bigint: true })
    const identity = identityOf(st)
    const ageMs = Date.now() - Number(st.mtimeMs)
    const holder = parseHolder(await handle.readFile('utf8'))
    if (!holder) return ageMs > UNREADABLE_GRACE_MS ? { state: 'stale', identity } : { state: 'held', holder, ageMs }
    // Another host's pid cannot be checked from here; only a person can declare it dead.
    if (holder.hostname !== hostname() || isProcessAlive(holder.pid, holder.pidStart)) return { state: 'held', holder, ageMs }
    return { state: 'stale', identity }
  } finally {
    await handle.close()
  }
}

/** Returns false when another process is breaking it right now. */
async function breakStale(path: string, identity: string): Promise<boolean> {
  const claim = `${path}.breaking`
  try {
    await (await open(claim, 'wx')).close()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    await removeAbandonedClaim(claim)
    return false
  }
  try {
    const st = await lstat(path, { bigint: true })
    if (identityOf(st) === identity) await unlink(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  } finally {
    await unlink(claim)
  }
  return true
}

async function removeAbandonedClaim(claim: string): Promise<void> {
  try {
    if (Date.now() - (await lstat(claim)).mtimeMs > BREAK_CLAIM_STALE_MS) await unlink(claim)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

function identityOf(st: { ino: bigint; mtimeNs: bigint }): string {
  return `${st.ino}:${st.mtimeNs}`
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>
    if (typeof value !== 'object' || value === null) return undefined
    if (!Number.isInteger(value.pid) || typeof value.hostname !== 'string' || typeof value.token !== 'string') return undefined
    return {
      pid: value.pid!,
      hostname: value.hostname,
      startedAt: typeof value.startedAt === 'string' ? value.startedAt : 'an unknown time',
      command: typeof value.command === 'string' ? value.command : '?',
      token: value.token,
      ...(typeof value.pidStart === 'string' ? { pidStart: value.pidStart } : {}),
    }
  } catch {
    return undefined
  }
}

function describeHolder(holder: LockHolder | undefined, ageMs: number): string {
  if (!holder) return `an unreadable lock file, ${formatSeconds(ageMs)} old`
  const host = holder.hostname === hostname() ? '' : ` on host ${holder.hostname}`
  return `pid ${holder.pid}${host} (${holder.command}) since ${holder.startedAt}, ${formatSeconds(ageMs)} ago`
}

function heldMessage(path: string, holder: LockHolder | undefined, ageMs: number, waitMs: number): string {
  const advice = holder && holder.hostname !== hostname() ? '; its host cannot be checked from here: delete the file if that process is gone' : ''
  return `${path} is held by ${describeHolder(holder, ageMs)}; gave up after waiting ${formatSeconds(waitMs)}${advice}`
}

function formatSeconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`
}

function commandLine(): string {
  const [, script, ...args] = process.argv
  const line = [script ? basename(script) : basename(process.execPath), ...args].join(' ')
  return line.length > 200 ? `${line.slice(0, 199)}…` : line
}

// Locks still held when the process ends (exit, Ctrl-C, kill) are released on the way out.
const held = new Set<HeldLock>()
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

function releaseAll(): void {
  for (const lock of [...held]) lock.release()
}

function onSignal(signal: NodeJS.Signals): void {
  releaseAll()
  // Keep the default meaning of the signal (terminate) unless someone else handles it.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
}

function track(lock: HeldLock): void {
  held.add(lock)
  if (held.size !== 1) return
  process.on('exit', releaseAll)
  for (const signal of SIGNALS) process.on(signal, onSignal)
}

function untrack(lock: HeldLock): void {
  if (!held.delete(lock) || held.size !== 0) return
  process.removeListener('exit', releaseAll)
  for (const signal of SIGNALS) process.removeListener(signal, onSignal)
}
