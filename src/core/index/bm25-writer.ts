import { parentPort, workerData } from 'node:worker_threads'
import { Bm25Index, type Bm25Parts } from '../search/index.js'
import { confineTo, EnvironmentFault, readAtSync } from '../store/index.js'
import { writeBm25 } from './aggregates.js'

/** Worker-thread entry of `writeBm25Aside`: seals and writes a handed-off BM25 index in its stored layout, then says so. */
const job = workerData as { roots: string[]; path: string; parts?: Bm25Parts; runs: Array<{ fd: number; length: number }> }
try {
  for (const root of job.roots) confineTo(root)
  const index = Bm25Index.fromParts(job.parts!)
  // Only the index may hold the fresh postings: sealing replaces them, and tens of megabytes kept
  // alive by workerData through the encoding would add to the build's peak memory.
  job.parts = undefined
  // The runs' descriptors are the process's: read here, closed by the thread that made them.
  writeBm25(job.path, index, job.runs.map(({ fd, length }) => ({ length, readAt: (position: number, bytes: number) => readAtSync(fd, position, Math.max(0, Math.min(bytes, length - position))) })))
  parentPort!.postMessage({ ok: true })
} catch (error) {
  // A full disk or read-only folder travels as data (a thread's errors lose their class): see faultFromJSON.
  const fault = error instanceof EnvironmentFault ? error.toJSON() : undefined
  parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error), fault })
}
