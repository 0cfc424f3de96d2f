import { classifyContent } from '../files/index.js'
import type { Extractor } from '../parse/index.js'
import { analyzeChunks } from '../search/index.js'
import { encodeRecord, writeFileAtomicSync } from '../store/index.js'
import { BLOB_RECORD_KIND, BLOB_RECORD_VERSION, type BlobRecord, type BlobTask } from './blob-task.js'

export interface ProcessedBlob {
  record: BlobRecord
  /** The record as stored: a worker hands these bytes to the main thread instead of a structured clone. */
  encoded: Uint8Array
}

/** Classify, extract, analyse and store one blob; runs in a worker, or in-thread for a handful of files. */
export async function processBlob(task: BlobTask, extractor: Extractor): Promise<ProcessedBlob> {
  const content = classifyContent(Buffer.from(task.bytes), task.maxFileBytes)
  let record: BlobRecord
  if (!content.ok) {
    record = { skipped: content.reason }
  } else {
    await extractor.prepare(task.language)
    const artifact = extractor.extract(content.text, task.language)
    record = { artifact, analyzed: analyzeChunks(artifact.chunks) }
  }
  // No fsync: a blob record is a cache entry whose checksum catches a torn write after a power
  // loss (it is then re-extracted), and 10,000 fsyncs would cost more than the extraction.
  const encoded = encodeRecord(BLOB_RECORD_KIND, BLOB_RECORD_VERSION, record)
  writeFileAtomicSync(task.recordPath, encoded, { durable: false })
  return { record, encoded }
}
