import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import type { VltPaths } from '../store/index.js'
import { listDirConfinedSync, readRecord, writeRecord } from '../store/index.js'
import { CorruptFileError, unlessCorrupt } from '../errors.js'
import type { Repairs } from './repairs.js'

/** What was indexed last, so that `sync` knows where to start and `status` what to report. */
export interface IndexState {
  treeHash: string | null
  commit: string | null
  lastIndexed: string | null
  lastIncremental: string | null
  /** Most recent first; `gc` (a later issue) keeps the first N. */
  recentTrees: string[]
  /**
   * The extractor version and vlt.toml fingerprint `treeHash` was indexed with: an upgrade or a
   * config edit must re-index even when HEAD has not moved. Absent in states written before it.
   */
  indexedWith?: string
  /**
   * The tree whose stored aggregates `treeHash`'s derive from (itself, or a delta's anchor), so that
   * a sync with nothing to do can see they are still there without reading the manifest. Absent in
   * states written before it.
   */
  aggregatesTree?: string
}

export const STATE_KIND = 'index-state'
export const STATE_VERSION = 1

export const emptyState = (): IndexState => ({ treeHash: null, commit: null, lastIndexed: null, lastIncremental: null, recentTrees: [] })

/**
 * A damaged state file (or one gone while trees are indexed) is noted in the repairs and read as
 * "nothing indexed yet" with the trees found under `trees/` as recent ones (newest first), so
 * that sync reuses them; sync rewrites it.
 */
export async function readState(paths: VltPaths, repairs: Repairs): Promise<IndexState> {
  return (await readStateRecord(paths, repairs)).state
}

/** readState, and whether the record was there but damaged. */
export async function readStateRecord(paths: VltPaths, repairs: Repairs): Promise<{ state: IndexState; damaged: boolean }> {
  const state = await unlessCorrupt(
    () => readRecord<IndexState>(paths.state, STATE_KIND, STATE_VERSION),
    (error) => {
      repairs.damaged(error)
      return null
    },
  )
  if (state) return { state, damaged: false }
  // Absent is "nothing indexed yet" only when no tree is: else the file was lost.
  const trees = indexedTrees(paths)
  if (state === undefined && trees.length === 0) return { state: emptyState(), damaged: false }
  if (state === undefined) repairs.damaged(new CorruptFileError(paths.state, 'missing'))
  return { state: { ...emptyState(), recentTrees: trees }, damaged: true }
}

/** Trees with a finished build (a manifest), most recently built first. */
function indexedTrees(paths: VltPaths): string[] {
  const names = listDirConfinedSync(paths.trees)
  const built = names.flatMap((name) => {
    const manifest = lstatSync(join(paths.trees, name, 'manifest.mpk'), { throwIfNoEntry: false })
    return manifest ? [{ name, at: manifest.mtimeMs }] : []
  })
  return built.sort((a, b) => b.at - a.at).map(({ name }) => name).slice(0, 20)
}

export async function writeState(paths: VltPaths, state: IndexState): Promise<void> {
  await writeRecord(paths.state, STATE_KIND, STATE_VERSION, state)
}
