/** The delta queue hooks fill and the index drains, its commit policy, and the background indexer's state. */
export { readQueue, drainQueue, queueDir, type Queue } from './queue.js'
export { parseDeltaFile, type ChangeType, type DeltaBatch, type DeltaRecord } from './delta-file.js'
export { queueSummary, type DeltaPolicy, type DueReason, type QueueSummary } from './policy.js'
export {
  INDEXER_ARGS,
  defaultLauncher,
  indexerRunning,
  indexerStatePath,
  markIndexerFinished,
  markIndexerStarted,
  readIndexerState,
  writeIndexerState,
  type IndexerState,
  type Launcher,
} from './indexer.js'
