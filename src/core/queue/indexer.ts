/**
 * The background indexer's footprint in `.vlt/`: how it is started (detached, output appended to
 * `.vlt/logs/indexer.log`) and the state it leaves in `.vlt/queue/indexer-state.json`, which
 * `coderag status` shows and hooks read to avoid starting a second one. The indexing itself is the
 * index layer's business.
 */
import { spawn } from 'node:child_process'
import { closeSync, mkdirSync, openSync, renameSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeFileAtomic } from '../store/index.js'
import { isProcessAlive } from '../store/liveness.js'
import { queueDir } from './queue.js'

/** What a hook starts: `coderag sync --queued` commits the queue when the policy says it is due. */
export const INDEXER_ARGS = ['coderag', 'sync', '--queued'] as const

/** The CLI a hook starts, recorded in the hook at install time. */
export interface Launcher {
  node: string
  cli: string
}

/** This very installation: the node running us and our bin/run.js (same depth from src/ and dist/). */
export function defaultLauncher(): Launcher {
  return { node: process.execPath, cli: join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'run.js') }
}

export interface IndexerState {
  /** Kept first: hooks read it with shell builtins from `{"pid":N`. */
  pid: number
  startedAt: string
  /** null while running (or when it died without saying so: then the pid is dead). */
  finishedAt: string | null
  lastResult: 'ok' | 'failed' | null
  lastError: string | null
}

export function indexerStatePath(vltDir: string): string {
  return join(queueDir(vltDir), 'indexer-state.json')
}

export function indexerLogPath(vltDir: string): string {
  return join(vltDir, 'logs', 'indexer.log')
}

/** The recorded state; null when there is none or it cannot be read (the next run rewrites it). */
export async function readIndexerState(vltDir: string): Promise<IndexerState | null> {
  let text: string
  try {
    text = await readFile(indexerStatePath(vltDir), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  try {
    const value = JSON.parse(text) as Partial<IndexerState>
    if (!Number.isInteger(value.pid) || typeof value.startedAt !== 'string') return null
    return {
      pid: value.pid!,
      startedAt: value.startedAt,
      finishedAt: typeof value.finishedAt === 'string' ? value.finishedAt : null,
      lastResult: value.lastResult === 'ok' || value.lastResult === 'failed' ? value.lastResult : null,
      lastError: typeof value.lastError === 'string' ? value.lastError : null,
    }
  } catch {
    return null
  }
}

export async function writeIndexerState(vltDir: string, state: IndexerState): Promise<void> {
  // Key order matters to the hooks (pid first); one line so `read` gets it whole.
  const ordered: IndexerState = {
    pid: state.pid,
    startedAt: state.startedAt,
    finishedAt: state.finishedAt,
    lastResult: state.lastResult,
    lastError: state.lastError,
  }
  await writeFileAtomic(indexerStatePath(vltDir), Buffer.from(`${JSON.stringify(ordered)}\n`), { durable: false })
}

/** Records this process as the running indexer, keeping the previous run's result visible meanwhile. */
export async function markIndexerStarted(vltDir: string, now: Date = new Date()): Promise<void> {
  const previous = await readIndexerState(vltDir)
  await writeIndexerState(vltDir, {
    pid: process.pid,
    startedAt: now.toISOString(),
    finishedAt: null,
    lastResult: previous?.lastResult ?? null,
    lastError: previous?.lastError ?? null,
  })
}

/** Records how this process's run ended; an error stays visible until a later run succeeds. */
export async function markIndexerFinished(vltDir: string, error: unknown, now: Date = new Date()): Promise<void> {
  const previous = await readIndexerState(vltDir)
  await writeIndexerState(vltDir, {
    pid: process.pid,
    startedAt: previous?.pid === process.pid ? previous.startedAt : now.toISOString(),
    finishedAt: now.toISOString(),
    lastResult: error === undefined ? 'ok' : 'failed',
    lastError: error === undefined ? null : error instanceof Error ? error.message : String(error),
  })
}

/** Whether the recorded indexer is still at work (a killed one left finishedAt null but its pid is dead). */
export function indexerRunning(state: IndexerState | null): boolean {
  return state !== null && state.finishedAt === null && isProcessAlive(state.pid)
}

/** The log is appended to forever by hooks; past this size it is rotated to `indexer.log.1` before a launch. */
const LOG_ROTATE_BYTES = 1 << 20

export interface LaunchOptions {
  vltDir: string
  /** Working directory of the indexer: the repository's working tree. */
  cwd: string
  launcher?: Launcher
  args?: readonly string[]
}

/**
 * Starts the indexer detached from this process (own session, stdin closed, output appended to
 * the log) and returns its pid without waiting for it.
 */
export function launchIndexer(options: LaunchOptions): number {
  const launcher = options.launcher ?? defaultLauncher()
  const log = indexerLogPath(options.vltDir)
  mkdirSync(dirname(log), { recursive: true })
  rotateLog(log)
  const fd = openSync(log, 'a')
  try {
    const child = spawn(launcher.node, [launcher.cli, ...(options.args ?? INDEXER_ARGS)], {
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', fd, fd],
    })
    // A missing executable is reported by the pid check below; the async 'error' event must not crash us.
    child.once('error', () => {})
    child.unref()
    if (child.pid === undefined) throw new Error(`could not start ${launcher.node} ${launcher.cli}`)
    return child.pid
  } finally {
    closeSync(fd)
  }
}

function rotateLog(log: string): void {
  try {
    if (statSync(log).size > LOG_ROTATE_BYTES) renameSync(log, `${log}.1`)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}
