import { parentPort } from 'node:worker_threads'
import { createExtractor, type Extractor } from '../parse/index.js'
import type { BlobTask } from './blob-task.js'
import { processBlob } from './process-blob.js'

/** Worker-thread entry: one long-lived extractor per thread, one message per blob, answered with the encoded record (the main thread stores it). */
let extractor: Promise<Extractor> | undefined

parentPort?.on('message', async ({ id, task }: { id: number; task: BlobTask }) => {
  try {
    extractor ??= createExtractor()
    const { encoded } = await processBlob(task, await extractor)
    // Transferring the encoded record (a copy into a buffer of its own, as the encoder's may be
    // shared) costs a memcpy; a structured clone of the summary cost more than the extraction's analysis.
    const result = new Uint8Array(encoded)
    parentPort!.postMessage({ id, result }, [result.buffer])
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) })
  }
})
