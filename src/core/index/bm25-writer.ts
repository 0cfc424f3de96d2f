import { parentPort, workerData } from 'node:worker_threads'
import { Bm25Index, type Bm25Parts } from '../search/index.js'
import { writeRecordSync } from '../store/index.js'
import { BM25_RECORD_KIND, BM25_RECORD_VERSION } from './aggregates.js'

/** Worker-thread entry of `writeBm25Aside`: seals, encodes and writes a handed-off BM25 index, then says so. */
const { path, parts } = workerData as { path: string; parts: Bm25Parts }
try {
  writeRecordSync(path, BM25_RECORD_KIND, BM25_RECORD_VERSION, Bm25Index.fromParts(parts).snapshot())
  parentPort!.postMessage({ ok: true })
} catch (error) {
  parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) })
}
