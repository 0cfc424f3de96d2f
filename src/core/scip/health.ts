/**
 * The imported SCIP index as `coderag status` and `coderag verify` report it: which commit and
 * indexer it is from, and for how many of its documents it still answers (fresh: the file's
 * current content, HEAD's blob or the working tree's edit, is the one the index was built from).
 */
import { statSync } from 'node:fs'
import { CorruptFileError } from '../errors.js'
import { openIndexContext, type IndexContext } from '../index/context.js'
import { listTree, workingTreeChanges } from '../git/index.js'
import { HOW_BACK, removeDamaged } from './load.js'
import { readScipRecord, type ScipRecord } from './record.js'

export interface ScipStatus {
  /** The commit the index was built for. */
  commit: string
  /** The indexer that wrote it (`scip-typescript 0.3.x`), as the index says; '' when it does not. */
  indexer: string
  documents: number
  /** Documents whose file has the content the index was built from: def/refs answer from SCIP there. */
  fresh: number
  /** The others (edited, or no longer there): answered from our own indexes. */
  stale: number
  importedAt: string
}

/** The SCIP record of the repository at `cwd`, or null when there is none. A damaged one is null and one warning (status repairs nothing: verify and queries remove it). */
export async function scipStatus(cwd: string, warn: (message: string) => void): Promise<ScipStatus | null> {
  const ctx = await openIndexContext(cwd)
  let record: ScipRecord | undefined
  try {
    record = readScipRecord(ctx.paths.scipIndex)
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error
    warn('warning: the imported SCIP index (.vlt/scip/index.mpk) is damaged; the next query or `git vlt coderag verify` removes it')
    return null
  }
  if (!record) return null
  const current = await currentBlobs(ctx)
  const fresh = record.documents.filter((document) => current.get(document.path) === document.blob).length
  return {
    commit: record.commit,
    indexer: record.tool,
    documents: record.documents.length,
    fresh,
    stale: record.documents.length - fresh,
    importedAt: statSync(ctx.paths.scipIndex).mtime.toISOString(),
  }
}

/** `coderag verify`'s reading of the SCIP record: decoded whole; a damaged one is removed, as a query would. */
export async function verifyScip(cwd: string): Promise<{ records: number; problems: Array<{ path: string; problem: string; repaired: boolean }> }> {
  const ctx = await openIndexContext(cwd)
  try {
    return { records: readScipRecord(ctx.paths.scipIndex) ? 1 : 0, problems: [] }
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error
    removeDamaged(ctx)
    return { records: 1, problems: [{ path: '.vlt/scip/index.mpk', problem: `damaged, removed: answers are syntactic until a SCIP index is imported again ${HOW_BACK}`, repaired: true }] }
  }
}

/** Each file's current content, as the next query sees it: its blob at HEAD, or the working tree's content hash over it. */
async function currentBlobs(ctx: IndexContext): Promise<Map<string, string>> {
  const [head, changes] = await Promise.all([listTree(ctx.repo, ctx.repo.head.tree), workingTreeChanges(ctx.repo)])
  const blobs = new Map(head.map((file) => [file.path, file.blob]))
  for (const change of changes) {
    if (change.contentHash === null) blobs.delete(change.path)
    else blobs.set(change.path, change.contentHash)
  }
  return blobs
}
