import { createExtractor, type Extractor } from '../parse/index.js'
import type { BlobTask } from './blob-task.js'
import { processBlob } from './process-blob.js'
import { serveTasks } from './task-server.js'

/** Worker-thread entry: one long-lived extractor per thread; each blob is answered with its encoded record (the main thread stores it). */
let extractor: Promise<Extractor> | undefined

serveTasks<BlobTask, Uint8Array>(async (task) => {
  extractor ??= createExtractor()
  const { encoded } = await processBlob(task, await extractor)
  // Transferring the encoded record (a copy into a buffer of its own, as the encoder's may be
  // shared) costs a memcpy; a structured clone of the summary cost more than the extraction's analysis.
  const result = new Uint8Array(encoded)
  return { result, transfer: [result.buffer] }
})
