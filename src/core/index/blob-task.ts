import { classifyContent } from '../files/index.js'
import type { Extractor } from '../parse/index.js'
import { analyzeChunks, type AnalyzedChunks } from '../search/index.js'
import { writeRecordSync } from '../store/index.js'
import type { ContentSkip } from '../files/index.js'
import type { FileArtifact, ImportRef, LanguageId, SymbolDef, SymbolRef } from '../parse/types.js'

export type { ContentSkip }

/** What a worker is asked to do for one blob: classify, extract, analyse, store. */
export interface BlobTask {
  blob: string
  language: LanguageId
  bytes: ArrayBuffer
  maxFileBytes: number
  /** Where the worker writes the blob's artifact record. */
  recordPath: string
}

/**
 * The per-blob record stored under `.vlt/objects/`. Path-independent: the same bytes under
 * another name (rename, copy, revert) reuse it as is.
 */
export type BlobRecord =
  | { skipped: ContentSkip }
  | { skipped?: undefined; artifact: FileArtifact; analyzed: AnalyzedChunks }

/** The part of a record that tree aggregates need: everything but chunk text. */
export type BlobSummary =
  | { skipped: ContentSkip }
  | {
      skipped?: undefined
      language: LanguageId
      chunkCount: number
      parseErrors: number
      lineCount: number
      analyzed: AnalyzedChunks
      symbols: SymbolDef[]
      references: SymbolRef[]
      imports: ImportRef[]
    }

export const BLOB_RECORD_KIND = 'blob-artifact'
export const BLOB_RECORD_VERSION = 1

export function summarize(record: BlobRecord): BlobSummary {
  if (record.skipped) return { skipped: record.skipped }
  const { artifact, analyzed } = record
  return {
    language: artifact.language,
    chunkCount: artifact.chunks.length,
    parseErrors: artifact.parseErrors,
    lineCount: artifact.lineCount,
    analyzed,
    symbols: artifact.symbols,
    references: artifact.references,
    imports: artifact.imports,
  }
}

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
