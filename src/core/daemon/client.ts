/**
 * The client side of the query daemon: find the repository's daemon, hand it a request, and tell
 * the caller either the daemon's answer or that it must run the query itself (no daemon, another
 * build, a daemon that died or hung). Nothing here ever fails a command: any trouble means "run it
 * in process", which then reports real errors exactly as it always did.
 */
import { closeSync, lstatSync, renameSync } from 'node:fs'
import { connect } from 'node:net'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { QueryName } from '../cli/queries.js'
import { ConfinementError, dirExistsSync, ensureDirSync, openForAppendSync, readFileConfinedSync } from '../store/confine.js'
import { daemonDisabledByEnv } from './env.js'
import { BUILD_ID, envFingerprint, repoSettings } from './identity.js'
import type { DaemonLocation } from './locate.js'
import { DAEMON_LOCK, daemonPaths } from './paths.js'
import { encodeLine, lineReader, PROTOCOL_VERSION, type DaemonReply, type DaemonRequest, type DaemonStatus, type RequestBase } from './protocol.js'

/** A daemon that does not even acknowledge a request within this time is treated as gone. */
const ACCEPT_TIMEOUT_MS = 5_000
/** The daemon log is rotated to daemon.log.1 past this size when a daemon is launched. */
const LOG_ROTATE_BYTES = 1 << 20

/** The daemon a command in `cwd` would talk to. */
export interface DaemonTarget {
  vltDir: string
  /** Where the daemon runs: the working tree (the git dir of a bare repository). */
  workDir: string
  socket: string
  log: string
  /** False when vlt.toml says `[query] daemon = false`. */
  enabled: boolean
  base: RequestBase
}

/**
 * `located`: the repository at `cwd` as locateRepo (or plainRepoLocation) found it, for a caller
 * that started it early. git's modules are loaded only without it: a served query never runs git.
 */
export async function resolveTarget(cwd: string, located?: Promise<DaemonLocation>): Promise<DaemonTarget> {
  const repo = await (located ?? import('../git/repo.js').then(({ locateRepo }) => locateRepo(cwd)))
  const workDir = repo.root ?? repo.gitDir
  const settings = await repoSettings(workDir)
  const paths = daemonPaths(repo.vltDir)
  return {
    vltDir: repo.vltDir,
    workDir,
    socket: paths.socket,
    log: paths.log,
    enabled: settings.daemon,
    base: { protocol: PROTOCOL_VERSION, build: BUILD_ID, env: envFingerprint(process.env, workDir, settings), vltDir: repo.vltDir },
  }
}

/** The daemon's answer to a query, or what to do instead. */
export type QueryOutcome =
  | { served: true; reply: Extract<DaemonReply, { type: 'result' | 'error' }> }
  /**
   * `launch` starts a daemon for the next query; absent when one is running or none is wanted.
   * `refused` hears why none could be started when the reason is the user's to fix (a link inside .vlt/).
   */
  | { served: false; launch?: (refused?: (message: string) => void) => Promise<number | undefined> }

/**
 * A CLI process answers one query. When the daemon did not serve it, bin/run.js's fast path hands
 * the query to oclif, whose command would ask again — and a failing daemon would run it twice.
 */
let declined: Extract<QueryOutcome, { served: false }> | undefined

/** `located`: see resolveTarget. */
export async function askDaemon(cwd: string, command: QueryName, params: unknown, located?: Promise<DaemonLocation>): Promise<QueryOutcome> {
  if (declined) return declined
  const outcome = await askOnce(cwd, command, params, located)
  if (!outcome.served) declined = outcome
  return outcome
}

async function askOnce(cwd: string, command: QueryName, params: unknown, located?: Promise<DaemonLocation>): Promise<QueryOutcome> {
  if (daemonDisabledByEnv()) return { served: false }
  let target: DaemonTarget
  try {
    target = await resolveTarget(cwd, located)
  } catch {
    // Not a repository, an unreadable vlt.toml…: the command in process says what is wrong.
    return { served: false }
  }
  if (!target.enabled) return { served: false }
  const notice = slowNotice()
  const reply = await ask(target, { ...target.base, type: 'query', command, params }).finally(notice)
  if (reply?.type === 'result' || reply?.type === 'error') return { served: true, reply }
  // A daemon that answered `failed` is alive (another daemon would only wait for its lock and leave).
  return reply?.type === 'failed' ? { served: false } : { served: false, launch: (refused) => launchDaemon(target, refused) }
}

/** A query is this slow when the daemon is syncing a large change first (a branch switch). */
const SLOW_QUERY_MS = 1_500

/**
 * The in-process command draws a progress bar while it syncs; through the daemon a person at a
 * terminal at least learns why the answer takes a while. Returns the function that clears it.
 */
export function slowNotice(stream: Pick<NodeJS.WriteStream, 'isTTY' | 'write'> = process.stderr, env: NodeJS.ProcessEnv = process.env): () => void {
  if (!stream.isTTY || env.CI) return () => {}
  let shown = false
  const timer = setTimeout(() => {
    shown = true
    stream.write('git vlt: the query daemon is bringing the index up to date…')
  }, SLOW_QUERY_MS)
  return () => {
    clearTimeout(timer)
    if (shown) stream.write('\r\x1b[K')
  }
}

/**
 * exchange() with the target's daemon, if its socket is one: a socket in `.vlt/run/` is only
 * connected to when that folder is real and the socket is not a link (a cloned repository could
 * aim either at a socket of someone else's choosing, who would then answer as our daemon).
 */
function ask(target: Pick<DaemonTarget, 'socket' | 'log'>, request: DaemonRequest): Promise<DaemonReply | undefined> {
  const runDir = dirname(target.log)
  if (dirname(target.socket) === runDir) {
    try {
      if (!dirExistsSync(runDir) || !lstatSync(target.socket, { throwIfNoEntry: false })?.isSocket()) return Promise.resolve(undefined)
    } catch (error) {
      if (error instanceof ConfinementError) return Promise.resolve(undefined)
      throw error
    }
  }
  return exchange(target.socket, request)
}

/**
 * Sends one request and returns the daemon's final reply; undefined when there is no daemon, it
 * does not acknowledge in time, or the connection ends without a well-formed reply. A query may
 * take long once accepted, so by default the reply is awaited without a bound; `replyTimeoutMs`
 * bounds it for requests a daemon answers at once (status, stop), so that one hung after
 * acknowledging cannot hold the caller forever.
 */
export function exchange(socketPath: string, request: DaemonRequest, acceptTimeoutMs = ACCEPT_TIMEOUT_MS, replyTimeoutMs?: number): Promise<DaemonReply | undefined> {
  return new Promise((resolve) => {
    const socket = connect(socketPath)
    let settled = false
    const settle = (reply: DaemonReply | undefined): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(reply)
    }
    let timer = setTimeout(() => settle(undefined), acceptTimeoutMs)
    socket.on('error', () => settle(undefined))
    socket.on('close', () => settle(undefined))
    socket.on('connect', () => socket.write(encodeLine(request)))
    socket.on(
      'data',
      lineReader(
        (message) => {
          const reply = message as DaemonReply
          if (reply?.type === 'accepted') {
            clearTimeout(timer)
            if (replyTimeoutMs !== undefined) timer = setTimeout(() => settle(undefined), replyTimeoutMs)
            return
          }
          settle(isReply(reply) ? reply : undefined)
        },
        () => settle(undefined),
      ),
    )
  })
}

function isReply(reply: DaemonReply): boolean {
  switch (reply?.type) {
    case 'result':
      return Array.isArray(reply.notes) && reply.notes.every((note) => typeof note === 'string')
    case 'error':
      return typeof reply.message === 'string' && (reply.exitCode === 1 || reply.exitCode === 2) && Array.isArray(reply.notes)
    case 'failed':
    case 'mismatch':
    case 'stopping':
      return true
    case 'status':
      return typeof reply.status === 'object' && reply.status !== null
    default:
      return false
  }
}

/**
 * Starts the repository's daemon in the background: its own session (a closing terminal does not
 * end it), stdin closed, output appended to `.vlt/run/daemon.log`, not waited for. If another one
 * is running or starting, the new one sees its lock and leaves. `refused` hears it when `.vlt/run/`
 * or the log is refused (a link: store/confine.ts); any other trouble is silent.
 */
export async function launchDaemon(target: Pick<DaemonTarget, 'workDir' | 'log'>, refused?: (message: string) => void): Promise<number | undefined> {
  try {
    // Loaded here: only a command that has just run in process (and so loaded the store) launches.
    const [{ spawn }, { defaultLauncher }] = await Promise.all([import('node:child_process'), import('../queue/indexer.js')])
    ensureDirSync(dirname(target.log))
    rotateLog(target.log)
    const fd = openForAppendSync(target.log)
    try {
      const launcher = defaultLauncher()
      const child = spawn(launcher.node, [launcher.cli, 'daemon', 'serve'], { cwd: target.workDir, detached: true, stdio: ['ignore', fd, fd] })
      child.once('error', () => {})
      child.unref()
      return child.pid
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    // The query has been answered; a daemon that cannot start only means the next one is cold too.
    if (error instanceof ConfinementError) refused?.(`the query daemon was not started: ${error.message}`)
    return undefined
  }
}

/** Renaming moves a link itself, never what it points to; the append that follows refuses one. */
function rotateLog(log: string): void {
  if ((lstatSync(log, { throwIfNoEntry: false })?.size ?? 0) > LOG_ROTATE_BYTES) renameSync(log, `${log}.1`)
}

/** What `daemon status` reports; `daemon` is null when none answers. */
export interface DaemonReport {
  enabled: boolean
  socket: string
  log: string
  daemon: DaemonStatus | null
}

export async function daemonReport(target: DaemonTarget): Promise<DaemonReport> {
  const reply = await ask(target, { ...target.base, type: 'status' })
  return {
    enabled: target.enabled && !daemonDisabledByEnv(),
    socket: target.socket,
    log: target.log,
    daemon: reply?.type === 'status' ? reply.status : null,
  }
}

/** Waits this long for a stopped daemon's process to end. */
const STOP_WAIT_MS = 10_000

/**
 * Asks the daemon to stop and waits until its process has ended; a daemon that does not answer
 * but still holds the daemon lock (hung) gets SIGTERM. Returns the pid stopped, or null.
 */
export async function stopDaemon(target: DaemonTarget): Promise<number | null> {
  // Loaded here: a served query never stops a daemon.
  const { isProcessAlive } = await import('../store/liveness.js')
  const reply = await ask(target, { ...target.base, type: 'stop' })
  let pid: number | null = reply?.type === 'stopping' ? reply.pid : null
  if (pid === null) {
    const holder = lockHolder(target.vltDir)
    if (!holder || !isProcessAlive(holder.pid, holder.pidStart)) return null
    pid = holder.pid
    process.kill(pid, 'SIGTERM')
  }
  const deadline = Date.now() + STOP_WAIT_MS
  while (isProcessAlive(pid) && Date.now() < deadline) await sleep(25)
  return pid
}

function lockHolder(vltDir: string): { pid: number; pidStart?: string } | null {
  try {
    const text = readFileConfinedSync(join(vltDir, 'locks', `${DAEMON_LOCK}.lock`))?.toString('utf8')
    if (text === undefined) return null
    const holder = JSON.parse(text) as { pid?: unknown; pidStart?: unknown }
    if (!Number.isInteger(holder.pid)) return null
    return { pid: holder.pid as number, ...(typeof holder.pidStart === 'string' ? { pidStart: holder.pidStart } : {}) }
  } catch {
    return null
  }
}
