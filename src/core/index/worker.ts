import { parentPort } from 'node:worker_threads'
import { createExtractor, type Extractor } from '../parse/index.js'
import type { BlobTask } from './blob-task.js'
import { processBlob } from './process-blob.js'

/** Worker-thread entry: one long-lived extractor per thread, one message per blob. */
let extractor: Promise<Extractor> | undefined

parentPort?.on('message', async ({ id, task }: { id: number; task: BlobTask }) => {
  try {
    extractor ??= createExtractor()
    const result = await processBlob(task, await extractor)
    parentPort!.postMessage({ id, result })
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) })
  }
})
