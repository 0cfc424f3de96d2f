/**
 * Thread entry of RecordHealer (heal.ts): extracts the job's records, each from git or its working
 * file, answers on the job's port and wakes the thread waiting for it. It always answers (an error
 * per record at worst), so the waiting thread never waits out its time limit for nothing.
 */
import { workerData } from 'node:worker_threads'
import { BlobReader } from '../git/index.js'
import { createExtractor } from '../parse/index.js'
import type { Healed, HealJob } from './heal.js'
import { readItemBytes } from './heal.js'
import { processBlob } from './process-blob.js'

const job = workerData as HealJob
let answered = false

function answer(results: Healed[]): void {
  if (answered) return
  answered = true
  job.port.postMessage(results)
  Atomics.store(job.signal, 0, 1)
  Atomics.notify(job.signal, 0)
}

const failAll = (error: unknown): void => answer(job.items.map(() => ({ error: (error as Error).message ?? String(error) })))
process.on('uncaughtException', failAll)

async function extractAll(): Promise<Healed[]> {
  const extractor = await createExtractor()
  const reader = new BlobReader(job.repo)
  const results: Healed[] = []
  try {
    for (const item of job.items) {
      try {
        const bytes = await readItemBytes(job.repo, reader, item)
        const task = { blob: item.blob, language: item.language, bytes: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, maxFileBytes: job.maxFileBytes, keepText: item.dirty === true }
        // A copy of its own: the encoder's buffer may be a slice of a shared pool.
        results.push({ encoded: new Uint8Array((await processBlob(task, extractor)).encoded) })
      } catch (error) {
        results.push({ error: (error as Error).message })
      }
    }
  } finally {
    await reader.close()
  }
  return results
}

extractAll().then(answer, failAll)
