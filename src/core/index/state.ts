import type { VltPaths } from '../store/index.js'
import { readRecord, writeRecord } from '../store/index.js'
import { unlessCorrupt } from '../errors.js'

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
}

const KIND = 'index-state'
const VERSION = 1

export const emptyState = (): IndexState => ({ treeHash: null, commit: null, lastIndexed: null, lastIncremental: null, recentTrees: [] })

/** A corrupt state file is reported and treated as absent: the next build rewrites it. */
export async function readState(paths: VltPaths, warn: (message: string) => void): Promise<IndexState> {
  const state = await unlessCorrupt(
    () => readRecord<IndexState>(paths.state, KIND, VERSION),
    (error) => {
      warn(`warning: ${error.message}; rebuilding the index state`)
      return undefined
    },
  )
  return state ?? emptyState()
}

export async function writeState(paths: VltPaths, state: IndexState): Promise<void> {
  await writeRecord(paths.state, KIND, VERSION, state)
}
