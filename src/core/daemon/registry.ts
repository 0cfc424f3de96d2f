/**
 * The query daemons of this user, across repositories and worktrees, so that their number stays
 * under a cap: each keeps one index loaded (about 100 MB on a mid-size repository) for 10 idle
 * minutes, and an agent hopping between many checkouts would otherwise leave one behind in each.
 * A daemon registers when it starts serving and, when that makes more than GIT_VLT_DAEMON_MAX
 * (default 4), asks the least recently used idle ones to exit; it unregisters when it exits. The
 * new daemon is the one a query has just asked for, while an idle one is the likeliest to be
 * needed no more; one evicted by mistake costs its next query an in-process run and a restart.
 *
 * The registry is a folder holding one small JSON file per daemon, in a per-user runtime location:
 * `$XDG_RUNTIME_DIR/git-vlt` (the user's own 0700 folder, by the XDG spec), else
 * `<tmpdir>/git-vlt-<uid>`. The temp dir is shared by every user: the folder is used only when it
 * is a real directory (not a link), owned by this user, with no permissions for anyone else;
 * otherwise there is no registry and no cap (one line in the daemon log), never a registry someone
 * else could write. Its entries are only ever used to ask a daemon over its socket: a pid is
 * looked at, never signalled.
 */
import { createHash, randomBytes } from 'node:crypto'
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join } from 'node:path'
import { isProcessAlive, processStartTicks } from '../store/liveness.js'
import { exchange } from './client.js'
import { BUILD_ID } from './identity.js'
import { PROTOCOL_VERSION, type DaemonStatus } from './protocol.js'

export const MAX_DAEMONS_ENV = 'GIT_VLT_DAEMON_MAX'
export const DEFAULT_MAX_DAEMONS = 4
/**
 * A registered daemon that does not acknowledge a status request this fast, or answer it this long
 * after acknowledging, is left alone (busy or hung). Generous because capping runs in the background of a daemon that is already serving: a
 * daemon warming its index on a loaded machine was seen to take over a second to acknowledge, and
 * counting it as busy left one daemon too many.
 */
const PROBE_MS = 5_000

/** What a daemon records about itself. */
export interface RegistryEntry {
  pid: number
  /** The process's start time where /proc has it: a pid reused by another process is not this daemon. */
  pidStart?: string
  vltDir: string
  socket: string
  startedAt: string
}

/** The registry folder, or why there is none. */
export type RegistryPlace = { dir: string } | { refused: string }

/** GIT_VLT_DAEMON_MAX: a whole number of at least 1; anything else means the default. */
export function maxDaemons(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env[MAX_DAEMONS_ENV])
  return env[MAX_DAEMONS_ENV] !== undefined && Number.isInteger(value) && value >= 1 ? value : DEFAULT_MAX_DAEMONS
}

export function registryPlace(env: NodeJS.ProcessEnv = process.env): RegistryPlace {
  const uid = process.getuid?.()
  if (uid === undefined) return { refused: 'this platform has no per-user runtime folder' }
  const runtime = env.XDG_RUNTIME_DIR
  const dir = runtime && isAbsolute(runtime) ? join(runtime, 'git-vlt') : join(tmpdir(), `git-vlt-${uid}`)
  try {
    mkdirSync(dir, { mode: 0o700 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return { refused: `cannot create ${dir}: ${(error as Error).message}` }
  }
  const info = lstatSync(dir, { throwIfNoEntry: false })
  if (!info?.isDirectory()) return { refused: `${dir} is not a directory (a link or a file is never followed)` }
  if (info.uid !== uid) return { refused: `${dir} belongs to uid ${info.uid}, not to this user` }
  if ((info.mode & 0o077) !== 0) return { refused: `${dir} is open to other users (mode ${(info.mode & 0o777).toString(8)})` }
  return { dir }
}

/** This process's entry, as the daemon serving `vltDir` on `socket`. */
export function ownEntry(vltDir: string, socket: string, startedAt: Date): RegistryEntry {
  const pidStart = processStartTicks(process.pid)
  return { pid: process.pid, ...(pidStart === undefined ? {} : { pidStart }), vltDir, socket, startedAt: startedAt.toISOString() }
}

export class DaemonRegistry {
  constructor(readonly dir: string) {}

  /** Written aside and renamed: a reader sees an entry whole or not at all. */
  register(entry: RegistryEntry): void {
    const path = this.pathOf(entry.vltDir)
    const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`
    writeFileSync(temp, JSON.stringify(entry), { mode: 0o600 })
    renameSync(temp, path)
  }

  /** Removes the entry of `vltDir` if it is still the one `pid` wrote (a successor may have replaced it). */
  unregister(vltDir: string, pid: number): void {
    if (this.read(this.pathOf(vltDir))?.pid === pid) rmSync(this.pathOf(vltDir), { force: true })
  }

  entries(): RegistryEntry[] {
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch {
      return []
    }
    return names.filter((name) => name.endsWith('.json')).flatMap((name) => this.read(join(this.dir, name)) ?? [])
  }

  private read(path: string): RegistryEntry | undefined {
    try {
      const entry = JSON.parse(readFileSync(path, 'utf8')) as Partial<RegistryEntry>
      const valid =
        Number.isInteger(entry.pid) &&
        (entry.pidStart === undefined || typeof entry.pidStart === 'string') &&
        typeof entry.vltDir === 'string' &&
        typeof entry.socket === 'string' &&
        typeof entry.startedAt === 'string'
      return valid ? (entry as RegistryEntry) : undefined
    } catch {
      return undefined
    }
  }

  private pathOf(vltDir: string): string {
    return join(this.dir, `${createHash('sha256').update(vltDir).digest('hex').slice(0, 16)}.json`)
  }
}

/**
 * Asks the least recently used idle daemons other than `self` to exit until at most `cap` are left,
 * `self` included. A daemon that answers no status but is alive (busy, hung) counts and stays; one
 * whose process is gone is dropped from the registry.
 */
export async function capDaemons(registry: DaemonRegistry, self: RegistryEntry, cap: number, log: (line: string) => void): Promise<void> {
  const others = registry.entries().filter((entry) => entry.vltDir !== self.vltDir)
  const probed = await Promise.all(others.map(async (entry) => ({ entry, status: await statusOf(entry) })))
  const live = probed.filter(({ entry, status }) => {
    if (status || isProcessAlive(entry.pid, entry.pidStart)) return true
    // Killed without unregistering.
    registry.unregister(entry.vltDir, entry.pid)
    return false
  })
  const idle = live
    .filter((daemon): daemon is { entry: RegistryEntry; status: DaemonStatus } => daemon.status?.active === 0)
    .sort((a, b) => lastUse(a.status) - lastUse(b.status))
  let count = live.length + 1
  for (const { entry, status } of idle) {
    if (count <= cap) break
    const reason = `${count} daemons would run, at most ${cap} (${MAX_DAEMONS_ENV}); this one was the least recently used`
    const reply = await exchange(entry.socket, { ...base(entry), type: 'stop', reason }, PROBE_MS, PROBE_MS)
    if (reply?.type !== 'stopping') continue
    registry.unregister(entry.vltDir, entry.pid)
    log(`asked the daemon of ${entry.vltDir} (pid ${entry.pid}, last used ${status.lastRequestAt ?? `never, started ${status.startedAt}`}) to exit: ${reason}`)
    count--
  }
  if (count > cap) log(`${count} daemons are running, over the cap of ${cap} (${MAX_DAEMONS_ENV}): the others are busy`)
}

/** The registered daemon's status, if it is the process the entry names. */
async function statusOf(entry: RegistryEntry): Promise<DaemonStatus | undefined> {
  const reply = await exchange(entry.socket, { ...base(entry), type: 'status' }, PROBE_MS, PROBE_MS)
  return reply?.type === 'status' && reply.status.pid === entry.pid ? reply.status : undefined
}

function lastUse(status: DaemonStatus): number {
  return Date.parse(status.lastRequestAt ?? status.startedAt)
}

/** Status and stop are answered whatever the caller's build and environment. */
function base(entry: RegistryEntry) {
  return { protocol: PROTOCOL_VERSION, build: BUILD_ID, env: '', vltDir: entry.vltDir }
}
