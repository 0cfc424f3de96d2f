/**
 * When the queue is worth an index update: `[coderag.delta]` in vlt.toml. Below every threshold
 * changes wait (many small commits become one update); reaching one makes a commit due at once;
 * the timeout commits whatever has waited long enough.
 */
import type { VltConfig } from '../config/types.js'
import type { Queue } from './queue.js'

export type DeltaPolicy = VltConfig['coderag']['delta']
export type DueReason = 'files' | 'lines' | 'timeout'

export interface QueueSummary {
  batches: number
  /** Distinct paths changed (a rename counts once, under its new path). */
  files: number
  /** Lines added plus removed in each file's latest queued change, summed over files (binary files count none). */
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
  // A file's latest record describes it best: an amend or a rebase reports again what earlier batches did.
  const latest = new Map<string, number>()
  for (const record of queue.records) latest.set(record.path, (record.added ?? 0) + (record.removed ?? 0))
  let lines = 0
  for (const n of latest.values()) lines += n
  const oldest = queue.batches.length === 0 ? null : Math.min(...queue.batches.map((batch) => batch.enqueuedAt))
  const ageMs = oldest === null ? null : Math.max(0, now - oldest)
  const reason = dueReason(latest.size, lines, ageMs, policy)
  return {
    batches: queue.batches.length,
    files: latest.size,
    lines,
    oldestChange: oldest === null ? null : new Date(oldest).toISOString(),
    ageSeconds: ageMs === null ? null : Math.floor(ageMs / 1000),
    due: reason !== null,
    reason,
    dueAt: reason !== null || oldest === null ? null : new Date(oldest + policy.timeoutSeconds * 1000).toISOString(),
    unreadable: queue.unreadable.length,
  }
}

function dueReason(files: number, lines: number, ageMs: number | null, policy: DeltaPolicy): DueReason | null {
  // Nothing queued is never due, whatever the thresholds say (a threshold of 0 means "every change").
  if (ageMs === null) return null
  if (files >= policy.fileThreshold && files > 0) return 'files'
  if (lines >= policy.lineThreshold && lines > 0) return 'lines'
  if (ageMs >= policy.timeoutSeconds * 1000) return 'timeout'
  return null
}
