import { classifyContent } from '../files/index.js'
import type { Extractor } from '../parse/index.js'
import { toReferenceColumns } from '../parse/reference-columns.js'
import { analyzeChunks } from '../search/index.js'
import { encodeRecord } from '../store/index.js'
import { BLOB_RECORD_KIND, BLOB_RECORD_VERSION, type BlobRecord, type BlobTask } from './blob-task.js'

export interface ProcessedBlob {
  record: BlobRecord
  /** The record as it is stored: a worker hands these bytes to the main thread instead of a structured clone. */
  encoded: Uint8Array
}

/** Classify, extract, analyse and encode one blob; runs in a worker, or in-thread for a handful of files. The caller stores it. */
export async function processBlob(task: BlobTask, extractor: Extractor): Promise<ProcessedBlob> {
  const content = classifyContent(Buffer.from(task.bytes), task.maxFileBytes)
  let record: BlobRecord
  if (!content.ok) {
    record = { skipped: content.reason }
  } else {
    await extractor.prepare(task.language)
    const artifact = extractor.extract(content.text, task.language)
    record = { artifact: { ...artifact, references: toReferenceColumns(artifact.references) }, analyzed: analyzeChunks(artifact.chunks) }
  }
  return { record, encoded: encodeRecord(BLOB_RECORD_KIND, BLOB_RECORD_VERSION, record) }
}
