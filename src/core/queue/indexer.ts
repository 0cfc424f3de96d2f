/**
 * The background indexer's footprint in `.vlt/`: the CLI the hooks start (templates/hooks/vlt-hook.sh
 * launches it detached, output appended to `.vlt/logs/indexer.log`) and the state it leaves in
 * `.vlt/queue/indexer-state.json`, which `coderag status` shows and hooks read to avoid starting a
 * second one. The indexing itself is the index layer's business.
 */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readFileConfined, writeFileAtomic } from '../store/index.js'
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

/** The recorded state; null when there is none or it cannot be read (the next run rewrites it). */
export async function readIndexerState(vltDir: string): Promise<IndexerState | null> {
  const text = (await readFileConfined(indexerStatePath(vltDir)))?.toString('utf8')
  if (text === undefined) return null
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
