import { classifyContent } from '../files/index.js'
import { textArtifact, type Extractor, type FileArtifact, type ParseLimits } from '../parse/index.js'
import { toReferenceColumns } from '../parse/reference-columns.js'
import { analyzeChunks } from '../search/index.js'
import { encodeBlobRecord, summarize, type BlobRecord, type BlobSummary, type BlobTask, type Degraded } from './blob-task.js'

export interface ProcessedBlob {
  /** What the tree's aggregates take of the record. */
  summary: BlobSummary
  /** The record as it is stored (compressed). */
  encoded: Uint8Array
}

/**
 * Classify, extract, analyse and encode one blob; runs in a worker, or in-thread for a handful of
 * files. The caller stores it. Throws ParseLimitExceeded when the parse goes past the task's
 * bounds: the caller then stores `processAsText` instead.
 */
export async function processBlob(task: BlobTask, extractor: Extractor): Promise<ProcessedBlob> {
  // The thread's one-time setup for a language is no part of any file's time.
  await extractor.prepare(task.language)
  const started = performance.now()
  const content = classifyContent(Buffer.from(task.bytes), task.maxFileBytes)
  if (!content.ok) return encoded({ skipped: content.reason })
  const limits: ParseLimits = { maxWasmBytes: task.maxWasmBytes }
  if (task.parseTimeoutMs !== undefined) limits.deadline = started + task.parseTimeoutMs
  return encoded(recordOf(extractor.extract(content.text, task.language, limits), content.redacted, task.keepText))
}

/** The blob as text windows, recording why it was not parsed; the bytes are classified (and credentials redacted) as for any file. */
export function processAsText(task: BlobTask, degraded: Degraded | undefined): ProcessedBlob {
  const content = classifyContent(Buffer.from(task.bytes), task.maxFileBytes)
  if (!content.ok) return encoded({ skipped: content.reason })
  return encoded({ ...recordOf(textArtifact(content.text, task.language), content.redacted, task.keepText), ...(degraded ? { degraded } : {}) })
}

function recordOf(artifact: FileArtifact, redacted: boolean, keepText = false): BlobRecord {
  const analyzed = analyzeChunks(artifact.chunks)
  const chunks = keepText ? artifact.chunks : artifact.chunks.map(({ body: _text, ...chunk }) => chunk)
  return { artifact: { ...artifact, chunks, references: toReferenceColumns(artifact.references) }, analyzed, ...(redacted ? { redacted: true as const } : {}) }
}

function encoded(record: BlobRecord): ProcessedBlob {
  return { summary: summarize(record), encoded: encodeBlobRecord(record) }
}

