/**
 * Damage a query finds in a tree's stored aggregates after loading them: a symbol block or the
 * graph is read on first use, long after the load whose callers rebuild what is damaged. The query
 * notes the file and runs once more; the load then checks it whole, so the damage is found where
 * it is reported (one line) and rebuilt. Kept apart from aggregates.ts so that a query's entry
 * points can wrap an answer without loading the index modules first.
 */
import { CorruptFileError } from '../errors.js'

const damaged = new Set<string>()
const AGGREGATE_FILE = /[\\/]trees[\\/][^\\/]+[\\/](symbols|graph)\.mpk$/

/**
 * Whether `error` is damage a query found in a tree's stored aggregates: a caller that turns
 * errors into partial answers (the oracle's sources) lets it through to answerRebuildingDamage.
 */
export function isAggregateDamage(error: unknown): error is CorruptFileError {
  return error instanceof CorruptFileError && AGGREGATE_FILE.test(error.path)
}

/** Notes a damaged file of a tree's aggregates found by a query; false when `path` is none of them. */
export function markDamaged(path: string): boolean {
  if (!AGGREGATE_FILE.test(path)) return false
  damaged.add(path)
  return true
}

/** Whether a query noted `path` damaged since it was last found whole. */
export function isNotedDamaged(path: string): boolean {
  return damaged.has(path)
}

/** `path` was checked whole and passed: a load may open it again rather than read it. */
export function foundWhole(path: string): void {
  damaged.delete(path)
}

/**
 * Runs `answer`; when it finds stored aggregates damaged (see above), `reopen` drops the context
 * the caller keeps loaded (a daemon's, an MCP server's) and `answer` runs once more, its context
 * opened afresh. Other errors, and damage found again, are thrown.
 */
export async function answerRebuildingDamage<T>(answer: () => Promise<T>, reopen: () => void = () => {}): Promise<T> {
  try {
    return await answer()
  } catch (error) {
    if (!(error instanceof CorruptFileError) || !markDamaged(error.path)) throw error
    reopen()
    return answer()
  }
}
