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
 * - A SIGKILLed holder leaves its lock behind; the next acquirer finds the pid dead and recovers
 *   (`recovered`: it may clear what the dead holder left unfinished). A holder ended by a signal it
 *   handles (Ctrl-C, SIGTERM, SIGHUP) or exiting with the lock held releases it on the way out,
 *   which would hide its unfinished work from the next holder: it leaves `<name>.lock.interrupted`
 *   beside it, and whoever takes the lock next removes that and is `recovered` too. An acquirer
 *   killed before it linked the lock leaves only its temp file, which nobody would judge stale:
 *   whoever takes a lock removes the temp files of dead acquirers from `locks/` (a few names: cheap
 *   on every take).
 * - A stopped holder (SIGSTOP, Ctrl-Z) is alive and keeps its lock, but will do nothing until it is
 *   resumed: waiting for it is pointless, so an acquirer gives up at once with a LockBusyError
 *   saying so (a query then answers from what is indexed, a writer tells the user whom to resume).
 * - Any other holder is waited for at most `waitMs`, then a LockBusyError names it (pid, command,
 *   since when).
 * - A lock that cannot be written (a read-only `.vlt/`, a full disk) is an EnvironmentFault
 *   (fault.ts); the temp file is removed.
 * - `locks/` must be a real folder inside `.vlt/`, and a lock file is only read if it is a regular
 *   file (confine.ts): a repository that commits one as a link to a FIFO must not hang us.
 */
import { closeSync, constants, openSync, unlinkSync, writeSync } from 'node:fs'
import { link, lstat, open, unlink, writeFile } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { basename, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { VltError } from '../errors.js'
import { sweepTempFiles, tempPathFor } from './atomic-file.js'
import { ConfinementError, confineTo, ensureDirSync, forgetDir, openConfined, readFileConfinedSync } from './confine.js'
import { faultOr } from './fault.js'
import { isProcessAlive, isProcessStopped, processStartTicks } from './liveness.js'

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

/**
 * The lock is held by a live process and the acquirer gave up: its wait ran out, or the holder is
 * stopped. `description` says who holds it (pid, command, since when).
 */
export class LockBusyError extends VltError {
  constructor(
    readonly path: string,
    readonly holder: LockHolder | undefined,
    readonly description: string,
    readonly stopped: boolean,
    message: string,
  ) {
    super(message)
    this.name = 'LockBusyError'
  }
}

export interface LockOptions {
  /** Lock file name under `locks/` (default 'index'). */
  name?: string
  /** How long to wait for a live holder before a LockBusyError (default 30 s; 0 fails at once). A stopped holder is never waited for. */
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
  /**
   * True when this acquisition broke a lock left by a holder that died (killed, crashed): the
   * caller may find its unfinished work (temp files) and clear it.
   */
  readonly recovered: boolean
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
  let recovered = false
  for (;;) {
    if (await tryCreate(dir, path, JSON.stringify(holder))) {
      const lock = new HeldLock(path, holder)
      track(lock)
      try {
        lock.recovered = (await takeInterruptedMark(path)) || recovered
        await sweepTempFiles(dir)
      } catch (error) {
        lock.release()
        throw faultOr(error, dir)
      }
      return lock
    }
    const seen = await inspect(path)
    if (seen.state === 'gone') continue
    if (seen.state === 'stale') {
      if (await breakStale(path, seen.identity)) recovered = true
      else await sleep(10)
      continue
    }
    const left = deadline - Date.now()
    const stopped = seen.holder !== undefined && seen.holder.hostname === hostname() && isProcessStopped(seen.holder.pid)
    if (left <= 0 || stopped) throw busy(path, seen.holder, seen.ageMs, stopped ? undefined : waitMs)
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
  /** Set once taken, before the lock is handed out (see Lock.recovered). */
  recovered = false

  constructor(
    readonly path: string,
    readonly holder: LockHolder,
  ) {}

  release(): void {
    this.releaseAs(false)
  }

  /**
   * Synchronous so that it also works from an 'exit' handler. `interrupted`: the holder is ending
   * mid-work (a signal, an exit with the lock held), so the next holder is told to clear what it
   * left. A lock replaced by a link or a FIFO meanwhile is not ours: left alone.
   */
  releaseAs(interrupted: boolean): void {
    if (this.released) return
    this.released = true
    untrack(this)
    try {
      if (parseHolder(readFileConfinedSync(this.path)?.toString('utf8') ?? '')?.token !== this.holder.token) return
      // The mark first: a process killed between the two leaves a lock that is stale, recovered either way.
      if (interrupted) writeInterruptedMark(this.path)
      unlinkSync(this.path)
    } catch (error) {
      if (!(error instanceof ConfinementError) && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
}

function interruptedMarkOf(lockPath: string): string {
  return `${lockPath}.interrupted`
}

/** Never through a link, never blocking on a FIFO put in its place (either fails, and the mark is not left). */
const MARK_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK

/** Best effort: a process on its way out cannot report a failure (a full disk) to anyone. */
function writeInterruptedMark(lockPath: string): void {
  try {
    const fd = openSync(interruptedMarkOf(lockPath), MARK_FLAGS, 0o644)
    try {
      writeSync(fd, `${process.pid}\n`)
    } finally {
      closeSync(fd)
    }
  } catch {}
}

/** Whether the previous holder left an interrupted mark; removes it (the caller now holds the lock). */
async function takeInterruptedMark(lockPath: string): Promise<boolean> {
  try {
    await unlink(interruptedMarkOf(lockPath))
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw faultOr(error, interruptedMarkOf(lockPath))
  }
}

async function tryCreate(dir: string, path: string, content: string): Promise<boolean> {
  const temp = tempPathFor(path)
  try {
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
  } catch (error) {
    // Created but not written (a full disk): ours to remove.
    await unlink(temp).catch(() => {})
    throw faultOr(error, path)
  }
  try {
    await link(temp, path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw faultOr(error, path)
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
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw faultOr(error, claim)
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

/** Gave up on a live holder: after `waitedMs`, or at once (undefined) because it is stopped. */
function busy(path: string, holder: LockHolder | undefined, ageMs: number, waitedMs: number | undefined): LockBusyError {
  const description = describeHolder(holder, ageMs)
  let message: string
  if (waitedMs === undefined) {
    message = `${path} is held by ${description}, which is stopped (SIGSTOP or Ctrl-Z) and keeps it until resumed: resume it (kill -CONT ${holder!.pid}) or end it (kill ${holder!.pid}), then run again`
  } else {
    const advice = holder && holder.hostname !== hostname() ? '; its host cannot be checked from here: delete the file if that process is gone' : ''
    message = `${path} is held by ${description}; gave up after waiting ${formatSeconds(waitedMs)}${advice}`
  }
  return new LockBusyError(path, holder, description, waitedMs === undefined, message)
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

/** Locks still held as the process ends belong to work it did not finish. */
function releaseAll(): void {
  for (const lock of [...held]) lock.releaseAs(true)
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
