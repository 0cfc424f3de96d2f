import { classifyContent } from '../files/index.js'
import type { Extractor } from '../parse/index.js'
import { analyzeChunks } from '../search/index.js'
import { writeRecordSync } from '../store/index.js'
import { BLOB_RECORD_KIND, BLOB_RECORD_VERSION, summarize, type BlobRecord, type BlobSummary, type BlobTask } from './blob-task.js'

/** Classify, extract, analyse and store one blob; runs in a worker, or in-thread for a handful of files. */
export async function processBlob(task: BlobTask, extractor: Extractor): Promise<BlobSummary> {
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
  writeRecordSync(task.recordPath, BLOB_RECORD_KIND, BLOB_RECORD_VERSION, record, { durable: false })
  return summarize(record)
}
