import { parentPort } from 'node:worker_threads'
import { BlobStore } from '../index/blob-store.js'
import { vltPaths, writeRecordSync } from '../store/index.js'
import { ASSOCIATIONS_RECORD_KIND, ASSOCIATIONS_RECORD_VERSION, chunksOf, type LearningTask } from './model-store.js'
import { learnAssociations } from './term-associations.js'

/** Worker-thread entry of learnInBackground: learns one tree's model and stores it. */
parentPort?.on('message', ({ id, task }: { id: number; task: LearningTask }) => {
  try {
    const model = learnAssociations(chunksOf(new BlobStore(vltPaths(task.vltDir)), task.records))
    writeRecordSync(task.outPath, ASSOCIATIONS_RECORD_KIND, ASSOCIATIONS_RECORD_VERSION, model)
    parentPort!.postMessage({ id, result: null })
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) })
  }
})
