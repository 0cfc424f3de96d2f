import type { AnalyzedChunks } from '../search/index.js'
import { decodeRecord, encodeRecord } from '../store/index.js'
import type { ContentSkip } from '../files/index.js'
import type { ReferenceColumns } from '../parse/reference-columns.js'
import type { FileArtifact, ImportRef, LanguageId, SymbolDef } from '../parse/types.js'

export type { ContentSkip }

/** What a worker is asked to do for one blob: classify, extract, analyse, encode. */
export interface BlobTask {
  blob: string
  language: LanguageId
  bytes: ArrayBuffer
  maxFileBytes: number
  /** Time the parse may take, from the task's start ([index] parse_timeout_ms). */
  parseTimeoutMs?: number
  /** Size the parser's wasm memory may reach ([index] parse_memory_mb); only set in workers, which are replaced once past it. */
  maxWasmBytes?: number
}

/**
 * Why a file of a parsed language is indexed as text windows instead: its parse went past the time
 * or memory bound, or the parser's worker died on it. Stored in its record, so the file is not
 * parsed again until its content or the extractor version changes.
 */
export type Degraded = 'parseTimeout' | 'parseMemory' | 'parseCrash'

/** An artifact as a record stores it: references as columns. */
export type StoredArtifact = Omit<FileArtifact, 'references'> & { references: ReferenceColumns }

/**
 * The per-blob record stored under `.vlt/objects/`. Path-independent: the same bytes under
 * another name (rename, copy, revert) reuse it as is.
 */
export type BlobRecord =
  | { skipped: ContentSkip }
  | { skipped?: undefined; artifact: StoredArtifact; analyzed: AnalyzedChunks; degraded?: Degraded }

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
      references: ReferenceColumns
      imports: ImportRef[]
      degraded?: Degraded
    }

/** A processed blob as a worker sends it back: its summary (see `encodeSummary`) and its stored record. */
export interface EncodedBlob {
  summary: Uint8Array<ArrayBuffer>
  record: Uint8Array<ArrayBuffer>
}

export const BLOB_RECORD_KIND = 'blob-artifact'
export const BLOB_RECORD_VERSION = 2

export function summarize(record: BlobRecord): BlobSummary {
  if (record.skipped) return { skipped: record.skipped }
  const { artifact, analyzed, degraded } = record
  return {
    ...(degraded ? { degraded } : {}),
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

/**
 * A summary as a worker hands it to the main thread: msgpack, uncompressed (a structured clone of
 * it cost more than the extraction's analysis), so the main thread unpacks it instead of
 * decompressing the whole stored record to take the summary out of it.
 */
const SUMMARY_KIND = 'blob-summary'

export function encodeSummary(summary: BlobSummary): Uint8Array {
  return encodeRecord(SUMMARY_KIND, BLOB_RECORD_VERSION, summary)
}

/** `label` names the blob in an error. */
export function decodeSummary(bytes: Uint8Array, label: string): BlobSummary {
  return decodeRecord<BlobSummary>(bytes, SUMMARY_KIND, BLOB_RECORD_VERSION, label)
}
