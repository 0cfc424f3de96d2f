import { createExtractor, ParseLimitExceeded, wasmMemoryBytes, type Extractor } from '../parse/index.js'
import { encodeSummary, type BlobTask, type EncodedBlob } from './blob-task.js'
import { processBlob } from './process-blob.js'
import { BoundExceeded, restartClock, retire, serveTasks } from './task-server.js'

/**
 * Worker-thread entry: one long-lived extractor per thread; each blob is answered with its summary
 * (for the tree's aggregates) and its encoded record (which the main thread stores as is).
 */
let extractor: Promise<Extractor> | undefined

serveTasks<BlobTask, EncodedBlob>(async (task) => {
  extractor ??= createExtractor()
  try {
    const ready = await extractor
    await ready.prepare(task.language)
    restartClock()
    const { summary, encoded } = await processBlob(task, ready)
    // Transferring bytes (a copy into a buffer of their own, as the encoder's may be shared) costs a memcpy.
    const result: EncodedBlob = { summary: new Uint8Array(encodeSummary(summary)), record: new Uint8Array(encoded) }
    return { result, transfer: [result.summary.buffer, result.record.buffer] }
  } catch (error) {
    if (error instanceof ParseLimitExceeded) throw new BoundExceeded(error.bound, error.message)
    // An aborted wasm runtime (a WebAssembly.RuntimeError: tree-sitter failing an allocation or an
    // assertion) cannot parse again.
    if (error instanceof Error && error.name === 'RuntimeError') {
      retire()
      throw new BoundExceeded('crash', `the parser crashed: ${error.message}`)
    }
    throw error
  } finally {
    // The runtime's memory never shrinks: past the bound, this worker would stop every next parse too.
    if (task.maxWasmBytes !== undefined && wasmMemoryBytes() > task.maxWasmBytes) retire()
  }
})
