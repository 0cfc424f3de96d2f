/**
 * When the queue is worth an index update: `[coderag.delta]` in vlt.toml. Below every threshold
 * changes wait (many small commits become one update); reaching one makes a commit due at once;
 * the timeout commits whatever has waited long enough.
 */
import type { VltConfig } from '../config/types.js'
import type { DeltaBatch } from './delta-file.js'
import type { Queue } from './queue.js'

export type DeltaPolicy = VltConfig['coderag']['delta']
export type DueReason = 'files' | 'lines' | 'timeout'

export interface QueueSummary {
  batches: number
  /** Distinct paths changed (a rename counts once, under its new path). */
  files: number
  /**
   * Lines added plus removed, summed over the commits HEAD moved to (binary files count none): three
   * commits of 600 lines to one file make 1,800. A commit reached by several batches counts once.
   */
  lines: number
  /** ISO time of the oldest queued batch; null when the queue is empty. */
  oldestChange: string | null
  /** Whole seconds the oldest batch has waited; null when the queue is empty. */
  ageSeconds: number | null
  due: boolean
  /** The first threshold reached, in the order files, lines, timeout; null when not due. */
  reason: DueReason | null
  /** ISO time the timeout will make the queue due; null when empty or already due. */
  dueAt: string | null
  /** Batch files that could not be read as batches (they are drained with the rest). */
  unreadable: number
}

export function queueSummary(queue: Queue, policy: DeltaPolicy, now: number = Date.now()): QueueSummary {
  const files = new Set(queue.records.map((record) => record.path)).size
  const lines = queuedLines(queue.batches)
  const oldest = queue.batches.length === 0 ? null : Math.min(...queue.batches.map((batch) => batch.enqueuedAt))
  const ageMs = oldest === null ? null : Math.max(0, now - oldest)
  const reason = dueReason(files, lines, ageMs, policy)
  return {
    batches: queue.batches.length,
    files,
    lines,
    oldestChange: oldest === null ? null : new Date(oldest).toISOString(),
    ageSeconds: ageMs === null ? null : Math.floor(ageMs / 1000),
    due: reason !== null,
    reason,
    dueAt: reason !== null || oldest === null ? null : new Date(oldest + policy.timeoutSeconds * 1000).toISOString(),
    unreadable: queue.unreadable.length,
  }
}

/**
 * Each commit HEAD arrived at counts with the lines of one batch that reached it. Several batches
 * reach one commit when an operation reports it twice: an amend's post-commit diffs the new commit
 * against the old one's parent (re-reporting the replaced commit, counted already) and its
 * post-rewrite against the replaced commit; a rebase's post-rewrite diffs against the old branch
 * tip after the replayed commits were reported one by one. The smallest batch is the one from the
 * nearest starting point: the others repeat changes counted, or indexed, before. Order-independent,
 * so batches written within one millisecond cannot change the sum.
 */
function queuedLines(batches: readonly DeltaBatch[]): number {
  const byCommit = new Map<string, number>()
  for (const batch of batches) {
    let lines = 0
    for (const record of batch.records) lines += (record.added ?? 0) + (record.removed ?? 0)
    byCommit.set(batch.to, Math.min(lines, byCommit.get(batch.to) ?? Number.POSITIVE_INFINITY))
  }
  let total = 0
  for (const lines of byCommit.values()) total += lines
  return total
}

function dueReason(files: number, lines: number, ageMs: number | null, policy: DeltaPolicy): DueReason | null {
  // Nothing queued is never due, whatever the thresholds say (a threshold of 0 means "every change").
  if (ageMs === null) return null
  if (files >= policy.fileThreshold && files > 0) return 'files'
  if (lines >= policy.lineThreshold && lines > 0) return 'lines'
  if (ageMs >= policy.timeoutSeconds * 1000) return 'timeout'
  return null
}
