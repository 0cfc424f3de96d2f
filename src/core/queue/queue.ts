/**
 * The delta queue: `.vlt/queue/<to-commit>-<hook>-<pid>.delta`, one file per hook run (see
 * delta-file.ts). Hooks write a batch aside and rename it in, so a batch is seen whole or not at
 * all and parallel git commands (worktrees, scripts) never write to the same file. Draining
 * deletes exactly the batches that were processed; whatever arrived meanwhile stays queued.
 */
import { lstatSync } from 'node:fs'
import { lstat, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfinementError, dirExistsSync, listDirConfined, openConfined, removeConfined } from '../store/index.js'
import { parseDeltaFile, type DeltaBatch, type DeltaRecord } from './delta-file.js'

const BATCH_SUFFIX = '.delta'
/** A hook's in-progress file (`.<id>.tmp`) older than this belongs to a hook that was killed. */
const ABANDONED_TEMP_MS = 60 * 60 * 1000

export function queueDir(vltDir: string): string {
  return join(vltDir, 'queue')
}

export interface Queue {
  /** Oldest first. */
  batches: DeltaBatch[]
  /** Every batch's records, oldest batch first. */
  records: DeltaRecord[]
  /** Batch ids whose file is not a batch a hook writes (foreign or from a newer format); drainable. */
  unreadable: string[]
}

export async function readQueue(vltDir: string): Promise<Queue> {
  const dir = queueDir(vltDir)
  // Confined (store/confine.ts): a queue folder that is a link is refused, a batch that is a link
  // or a FIFO too; a file in the folder's place is no queue (hooks skip it as unwritable).
  let names: string[]
  try {
    names = await listDirConfined(dir)
  } catch (error) {
    if (error instanceof ConfinementError && lstatSync(dir, { throwIfNoEntry: false })?.isFile()) return { batches: [], records: [], unreadable: [] }
    throw error
  }
  const ids = names.filter((name) => name.endsWith(BATCH_SUFFIX)).map((name) => name.slice(0, -BATCH_SUFFIX.length))
  const read = await Promise.all(ids.map((id) => readBatch(dir, id)))
  const batches: DeltaBatch[] = []
  const unreadable: string[] = []
  read.forEach((batch, i) => {
    if (batch === null) return
    if (batch === undefined) unreadable.push(ids[i]!)
    else batches.push(batch)
  })
  batches.sort((a, b) => a.enqueuedAt - b.enqueuedAt || (a.id < b.id ? -1 : 1))
  return { batches, records: batches.flatMap((batch) => batch.records), unreadable: unreadable.sort() }
}

/** null: drained by someone else between readdir and read. */
async function readBatch(dir: string, id: string): Promise<DeltaBatch | undefined | null> {
  const handle = await openConfined(join(dir, id + BATCH_SUFFIX))
  if (!handle) return null
  try {
    const [bytes, info] = await Promise.all([handle.readFile(), handle.stat()])
    return parseDeltaFile(id, bytes, Math.floor(info.mtimeMs))
  } finally {
    await handle.close()
  }
}

/**
 * Removes the given batches (ids from readQueue, unreadable ones included) and returns how many
 * were still there. Batches not named are left alone, so a hook that ran during processing loses
 * nothing. Also clears in-progress files of hooks killed long ago.
 */
export async function drainQueue(vltDir: string, batchIds: Iterable<string>, now: number = Date.now()): Promise<number> {
  const dir = queueDir(vltDir)
  // unlink(2) removes a link itself; the folder it acts in must be real (store/confine.ts).
  if (!dirExistsSync(dir)) return 0
  let removed = 0
  for (const id of new Set(batchIds)) {
    // Ids come from names readQueue listed; refuse anything that could name a file elsewhere.
    if (id === '' || id.includes('/') || id.includes('\0')) throw new Error(`invalid queue batch id: ${JSON.stringify(id)}`)
    try {
      await unlink(join(dir, id + BATCH_SUFFIX))
      removed++
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  await sweepAbandonedTemps(dir, now)
  return removed
}

async function sweepAbandonedTemps(dir: string, now: number): Promise<void> {
  for (const name of await listDirConfined(dir)) {
    if (!name.startsWith('.') || !name.endsWith('.tmp')) continue
    const path = join(dir, name)
    try {
      if (now - (await lstat(path)).mtimeMs > ABANDONED_TEMP_MS) await removeConfined(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
}
