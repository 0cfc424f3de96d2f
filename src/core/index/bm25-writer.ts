import { parentPort, workerData } from 'node:worker_threads'
import { Bm25Index, type Bm25Parts } from '../search/index.js'
import { confineTo, writeRecordSync } from '../store/index.js'
import { BM25_RECORD_KIND, BM25_RECORD_VERSION } from './aggregates.js'

/** Worker-thread entry of `writeBm25Aside`: seals, encodes and writes a handed-off BM25 index, then says so. */
const job = workerData as { roots: string[]; path: string; parts?: Bm25Parts }
try {
  for (const root of job.roots) confineTo(root)
  const index = Bm25Index.fromParts(job.parts!)
  // Only the index may hold the fresh postings: sealing replaces them, and tens of megabytes kept
  // alive by workerData through the encoding would add to the build's peak memory.
  job.parts = undefined
  writeRecordSync(job.path, BM25_RECORD_KIND, BM25_RECORD_VERSION, index.snapshot())
  parentPort!.postMessage({ ok: true })
} catch (error) {
  parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) })
}
