import { BlobStore } from '../index/blob-store.js'
import { ChunkTexts } from '../index/chunk-text.js'
import { Repairs } from '../index/repairs.js'
import { serveTasks } from '../index/task-server.js'
import { vltPaths, writeRecordSync } from '../store/index.js'
import { ASSOCIATIONS_RECORD_KIND, ASSOCIATIONS_RECORD_VERSION, chunksOf, type LearningTask } from './model-store.js'
import { learnAssociations } from './term-associations.js'

/** Worker-thread entry of learnInBackground: learns one tree's model and stores it. */
serveTasks<LearningTask, null>((task) => {
  const model = learnAssociations(chunksOf(new BlobStore(vltPaths(task.vltDir)), new ChunkTexts(task.repo, new Repairs()), task.records))
  writeRecordSync(task.outPath, ASSOCIATIONS_RECORD_KIND, ASSOCIATIONS_RECORD_VERSION, model)
  return { result: null }
})
