/**
 * The query daemon of one repository: keeps the index loaded (the MCP server's WarmIndex: synced
 * just in time when HEAD or the working tree moved) and answers the query commands over a unix
 * socket, so that a query costs Node's start-up and the query rather than decoding the tree's
 * aggregates each time.
 *
 * One per repository: the daemon holds `.vlt/locks/daemon.lock` while it runs, so a second one (two
 * CLIs starting it at once) waits briefly and leaves. Holding the lock, it removes whatever socket
 * a killed predecessor left. It exits after an idle period, on `stop` (which a newly started daemon
 * sends the least recently used idle one to keep the user's daemons under a cap: registry.ts), when
 * a client of another build or environment calls (see protocol.ts), and when `.vlt/` or its socket
 * disappears.
 */
import { chmodSync, existsSync, rmSync, statSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { dirname } from 'node:path'
import { QUERIES, QUERY_NAMES, type QueryName } from '../cli/queries.js'
import { VltError } from '../errors.js'
import { openRepo } from '../git/index.js'
import { answerRebuildingDamage } from '../index/index.js'
import { CHECK_INTERVAL_ENV, WarmIndex } from '../mcp/warm-index.js'
import { acquireLock, ensureDirSync, removeConfinedSync, type Lock } from '../store/index.js'
import { BUILD_ID, envFingerprint, repoSettings } from './identity.js'
import { DAEMON_LOCK, daemonPaths } from './paths.js'
import { encodeLine, lineReader, PROTOCOL_VERSION, type DaemonReply, type DaemonRequest, type DaemonStatus } from './protocol.js'
import { capDaemons, DaemonRegistry, maxDaemons, ownEntry, registryPlace, type RegistryEntry } from './registry.js'
import { warmUp } from '../query/warm-up.js'

const IDLE_ENV = 'GIT_VLT_DAEMON_IDLE_MS'
const DEFAULT_IDLE_MS = 10 * 60_000
/** A daemon that is exiting holds the lock a moment longer; its successor waits this long for it. */
const LOCK_WAIT_MS = 3_000
/** How often the daemon looks whether `.vlt/` and its socket are still there. */
const WATCHDOG_MS = 2_000
/** Requests still running when the daemon is told to exit get this long to finish. */
const DRAIN_MS = 30_000

/** Runs the daemon of the repository at `cwd` until it exits. */
export async function serveDaemon(cwd: string, log: (line: string) => void): Promise<void> {
  const repo = await openRepo(cwd)
  let lock: Lock
  try {
    lock = await acquireLock(repo.vltDir, { name: DAEMON_LOCK, waitMs: LOCK_WAIT_MS })
  } catch (error) {
    if (!(error instanceof VltError)) throw error
    log(`not starting: ${error.message}`)
    return
  }
  const settings = await repoSettings(repo.root ?? repo.gitDir)
  const env = envFingerprint(process.env, repo.root ?? repo.gitDir, settings)
  let daemon: Daemon | undefined
  // Without a file watcher, look at the working tree before every query, as the in-process command does.
  const warm = await WarmIndex.open(repo.root ?? repo.gitDir, {
    warn: (message) => (daemon ? daemon.warn(message) : log(message)),
    env: { ...process.env, [CHECK_INTERVAL_ENV]: process.env[CHECK_INTERVAL_ENV] ?? '0' },
  })
  daemon = new Daemon(repo.vltDir, warm, lock, env, idleMs(), log)
  return daemon.run()
}

function idleMs(): number {
  const configured = Number(process.env[IDLE_ENV])
  return process.env[IDLE_ENV] !== undefined && Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_IDLE_MS
}

/** Collects the warnings the context produced while a query was open (repairs included) and what the query itself noted, in order. */
interface Sink {
  notes: string[]
  indexWarnings: string[]
}

class Daemon {
  private readonly paths
  private readonly server: Server
  private readonly startedAt = new Date()
  private readonly open = new Set<Sink>()
  private socketIno: number | undefined
  private registered: { registry: DaemonRegistry; entry: RegistryEntry } | undefined
  private served = 0
  private active = 0
  private lastRequestAt: Date | null = null
  private idleTimer: NodeJS.Timeout | undefined
  private watchdog: NodeJS.Timeout | undefined
  private closing = false
  /** The index loaded and warmed up (warm-up.ts), or that failing: what a query waits for first. */
  private ready: Promise<void> = Promise.resolve()
  private finished!: () => void

  constructor(
    private readonly vltDir: string,
    private readonly warm: WarmIndex,
    private readonly lock: Lock,
    private readonly env: string,
    private readonly idleTimeoutMs: number,
    private readonly log: (line: string) => void,
  ) {
    this.paths = daemonPaths(vltDir)
    this.server = createServer((socket) => this.accept(socket))
  }

  async run(): Promise<void> {
    const done = new Promise<void>((resolve) => (this.finished = resolve))
    // Inside .vlt/, confined (store/confine.ts): a run folder that is a link is refused.
    ensureDirSync(this.paths.runDir)
    // We hold the lock: a socket file here was left by a daemon that died without removing it.
    if (process.platform !== 'win32') this.removeSocket()
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(this.paths.socket, () => {
        this.server.removeListener('error', reject)
        resolve()
      })
    })
    if (process.platform !== 'win32') {
      chmodSync(this.paths.socket, 0o600)
      this.socketIno = statSync(this.paths.socket).ino
    }
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => this.shutdown(signal))
    this.watchdog = setInterval(() => this.checkSurroundings(), WATCHDOG_MS)
    this.armIdle()
    this.log(`serving ${this.vltDir} on ${this.paths.socket} (pid ${process.pid}, build ${BUILD_ID})`)
    this.register()
    // Load the index now, so that the first client finds it warm (or waits for this very load).
    // A failure is met again by the first query, which reports it to its client.
    this.ready = this.warm
      .get()
      .then(warmUp)
      .catch((error: unknown) => this.log(`warming up failed: ${(error as Error).message}`))
    return done
  }

  /** Joins the user's registry of daemons and keeps their number under the cap (registry.ts). */
  private register(): void {
    const place = registryPlace()
    if ('refused' in place) {
      this.log(`no cap on the number of daemons: ${place.refused}`)
      return
    }
    const entry = ownEntry(this.vltDir, this.paths.socket, this.startedAt)
    const registry = new DaemonRegistry(place.dir)
    try {
      registry.register(entry)
    } catch (error) {
      this.log(`no cap on the number of daemons: ${(error as Error).message}`)
      return
    }
    this.registered = { registry, entry }
    capDaemons(registry, entry, maxDaemons(), this.log).catch((error: unknown) => this.log(`capping the daemons failed: ${(error as Error).message}`))
  }

  /**
   * WarmIndex's warnings belong to every query waiting for the context it is opening or answering
   * from (a record healed while a query reads it is reported to that query).
   */
  warn(message: string): void {
    this.log(message)
    for (const sink of this.open) {
      sink.notes.push(message)
      sink.indexWarnings.push(message)
    }
  }

  private accept(socket: Socket): void {
    // A client that goes away mid-request must not take the daemon with it.
    socket.on('error', () => {})
    let received = false
    const read = lineReader(
      (message) => {
        if (received) return
        received = true
        void this.answer(socket, message as DaemonRequest)
      },
      () => socket.destroy(),
    )
    socket.on('data', read)
  }

  private async answer(socket: Socket, request: DaemonRequest): Promise<void> {
    const reply = (message: DaemonReply): void => {
      if (!socket.destroyed) socket.write(encodeLine(message))
    }
    const end = (message: DaemonReply): void => {
      if (!socket.destroyed) socket.end(encodeLine(message))
    }
    reply({ type: 'accepted' })
    // Any build may ask an old daemon to stop; only our own build gets answers.
    if (request?.type === 'stop') {
      end({ type: 'stopping', pid: process.pid })
      return this.shutdown(typeof request.reason === 'string' ? `asked to stop: ${request.reason.slice(0, 300)}` : 'asked to stop')
    }
    const mismatch = request?.protocol !== PROTOCOL_VERSION || request.build !== BUILD_ID ? 'the client is another build of git-vlt' : request.env !== this.env ? 'the client has another environment' : null
    if (request?.type === 'status') return end({ type: 'status', status: this.status(mismatch === null) })
    if (mismatch !== null) {
      end({ type: 'mismatch', reason: mismatch })
      return this.shutdown(mismatch)
    }
    if (request.vltDir !== this.vltDir) return end({ type: 'failed', message: `this daemon serves ${this.vltDir}, not ${request.vltDir}` })
    if (request.type !== 'query' || !QUERY_NAMES.includes(request.command)) return end({ type: 'failed', message: `unknown request ${JSON.stringify(request.type)}` })
    if (this.closing) return end({ type: 'failed', message: 'the daemon is exiting' })
    end(await this.query(request.command, request.params))
  }

  private async query(command: QueryName, params: unknown): Promise<DaemonReply> {
    this.active++
    this.lastRequestAt = new Date()
    clearTimeout(this.idleTimer)
    const sink: Sink = { notes: [], indexWarnings: [] }
    this.open.add(sink)
    try {
      const run = QUERIES[command] as (qctx: unknown, params: unknown, io: unknown) => Promise<unknown>
      const io = { note: (message: string) => sink.notes.push(message), indexWarnings: sink.indexWarnings, lsp: this.warm.lsp }
      await this.ready
      const result = await answerRebuildingDamage(async () => run(await this.warm.get(), params, io), () => this.warm.forget())
      this.served++
      return { type: 'result', result, notes: sink.notes }
    } catch (error) {
      if (error instanceof VltError) {
        this.served++
        return { type: 'error', message: error.message, exitCode: error.exitCode, notes: sink.notes }
      }
      this.log(`${command} failed: ${(error as Error).stack ?? String(error)}`)
      return { type: 'failed', message: (error as Error).message }
    } finally {
      this.open.delete(sink)
      this.active--
      this.armIdle()
    }
  }

  private status(current: boolean): DaemonStatus {
    return {
      pid: process.pid,
      current,
      startedAt: this.startedAt.toISOString(),
      build: BUILD_ID,
      socket: this.paths.socket,
      served: this.served,
      active: this.active,
      idleTimeoutMs: this.idleTimeoutMs,
      lastRequestAt: this.lastRequestAt?.toISOString() ?? null,
    }
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer)
    if (this.active === 0 && !this.closing) this.idleTimer = setTimeout(() => this.shutdown(`idle for ${this.idleTimeoutMs} ms`), this.idleTimeoutMs)
  }

  /** The repository or its `.vlt/` was removed, or another daemon now owns the socket path. */
  private checkSurroundings(): void {
    if (!existsSync(this.vltDir)) return this.shutdown(`${this.vltDir} is gone`)
    if (this.socketIno !== undefined && this.currentSocketIno() !== this.socketIno) this.shutdown(`${this.paths.socket} was removed or replaced`)
  }

  /** In `.vlt/run/` it is removed confined; a socket too deep for sun_path lives in the temp dir, outside any `.vlt`. */
  private removeSocket(): void {
    if (dirname(this.paths.socket) === this.paths.runDir) removeConfinedSync(this.paths.socket)
    else rmSync(this.paths.socket, { force: true })
  }

  private currentSocketIno(): number | undefined {
    try {
      return statSync(this.paths.socket).ino
    } catch {
      return undefined
    }
  }

  private shutdown(reason: string): void {
    if (this.closing) return
    this.closing = true
    this.log(`stopping: ${reason}`)
    clearTimeout(this.idleTimer)
    clearInterval(this.watchdog)
    this.server.close()
    try {
      this.registered?.registry.unregister(this.vltDir, process.pid)
    } catch {
      // A registry folder gone or unwritable: a stale entry is dropped by the next daemon that starts.
    }
    // Only our own socket: a successor may already have replaced it.
    if (this.socketIno !== undefined && this.currentSocketIno() === this.socketIno) this.removeSocket()
    this.warm.close()
    const deadline = Date.now() + DRAIN_MS
    const finish = (): void => {
      if (this.active > 0 && Date.now() < deadline) {
        setTimeout(finish, 50)
        return
      }
      this.lock.release()
      this.finished()
    }
    finish()
  }
}
