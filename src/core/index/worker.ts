import { createExtractor, ParseLimitExceeded, wasmMemoryBytes, type Extractor } from '../parse/index.js'
import type { BlobTask } from './blob-task.js'
import { processBlob } from './process-blob.js'
import { BoundExceeded, restartClock, retire, serveTasks } from './task-server.js'

/** Worker-thread entry: one long-lived extractor per thread; each blob is answered with its encoded record (the main thread stores it). */
let extractor: Promise<Extractor> | undefined

serveTasks<BlobTask, Uint8Array>(async (task) => {
  extractor ??= createExtractor()
  try {
    const ready = await extractor
    await ready.prepare(task.language)
    restartClock()
    const { encoded } = await processBlob(task, ready)
    // Transferring the encoded record (a copy into a buffer of its own, as the encoder's may be
    // shared) costs a memcpy; a structured clone of the summary cost more than the extraction's analysis.
    const result = new Uint8Array(encoded)
    return { result, transfer: [result.buffer] }
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
