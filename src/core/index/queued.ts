import { setTimeout as sleep } from 'node:timers/promises'
import { loadConfig } from '../config/index.js'
import { openRepo } from '../git/index.js'
import { markIndexerFinished, markIndexerStarted, queueSummary, readQueue, type DeltaPolicy, type Queue } from '../queue/index.js'
import type { BuildOptions } from './build.js'
import { syncIndex, type SyncResult } from './index.js'

/** How often a waiting indexer looks for new batches that could make the queue due sooner. */
const POLL_MS = 2_000

export interface QueuedSyncOptions extends BuildOptions {
  now?: () => number
  wait?: (ms: number) => Promise<void>
}

export interface QueuedSyncResult {
  /** Index updates made: one per time the queue became due. */
  syncs: number
  /** Queue batches processed and removed. */
  drained: number
  last: SyncResult | null
}

/**
 * The background indexer that hooks start (`coderag sync --queued`). Changes wait in the queue
 * until the commit policy of vlt.toml makes them due (enough files or lines, or the oldest one
 * old enough); then one sync brings the index up to HEAD (see syncIndex for what it drains). Returns when the queue is empty. Its state (pid, last result, last error) is recorded
 * for `coderag status`, so a failure is never silent.
 */
export async function runQueuedSync(cwd: string, opts: QueuedSyncOptions): Promise<QueuedSyncResult> {
  const now = opts.now ?? Date.now
  const wait = opts.wait ?? ((ms: number) => sleep(ms))
  const repo = await openRepo(cwd)
  const policy = (await loadConfig(repo.root ?? repo.gitDir)).coderag.delta
  const result: QueuedSyncResult = { syncs: 0, drained: 0, last: null }
  // A hook that ran while this indexer was finishing saw it unfinished and started none: after
  // recording the end, look at the queue once more and go on if a batch arrived meanwhile.
  do {
    await markIndexerStarted(repo.vltDir)
    await drain(cwd, repo.vltDir, policy, result, now, wait, opts)
    await markIndexerFinished(repo.vltDir, undefined)
  } while (!isEmpty(await readQueue(repo.vltDir)))
  return result
}

function isEmpty(queue: Queue): boolean {
  return queue.batches.length === 0 && queue.unreadable.length === 0
}

async function drain(cwd: string, vltDir: string, policy: DeltaPolicy, result: QueuedSyncResult, now: () => number, wait: (ms: number) => Promise<void>, opts: BuildOptions): Promise<void> {
  try {
    for (;;) {
      const queue = await readQueue(vltDir)
      if (isEmpty(queue)) break
      const summary = queueSummary(queue, policy, now())
      if (!summary.due && summary.dueAt !== null) {
        await wait(Math.max(0, Math.min(POLL_MS, Date.parse(summary.dueAt) - now())))
        continue
      }
      result.last = await syncIndex(cwd, opts)
      result.syncs++
      result.drained += result.last.queueDrained
    }
  } catch (error) {
    await markIndexerFinished(vltDir, error)
    throw error
  }
}
