import type { AnalyzedChunks } from '../search/index.js'
import { CorruptFileError } from '../errors.js'
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib'
import { decodeRecord, encodeRecord } from '../store/index.js'
import { Packr } from '../store/msgpack.js'
import type { ContentSkip } from '../files/index.js'
import type { ReferenceColumns } from '../parse/reference-columns.js'
import type { Chunk, FileArtifact, ImportRef, LanguageId, SymbolDef } from '../parse/types.js'

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
  /** Working-tree content, which git cannot serve: its record keeps its chunks' text (see StoredChunk). */
  keepText?: boolean
}

/**
 * Why a file of a parsed language is indexed as text windows instead: its parse went past the time
 * or memory bound, or the parser's worker died on it. Stored in its record, so the file is not
 * parsed again until its content or the extractor version changes.
 */
export type Degraded = 'parseTimeout' | 'parseMemory' | 'parseCrash'

/**
 * A chunk as a record stores it: without its text when the record's key is a git blob, whose
 * content git serves (the text is lines startLine..endLine of it, see chunk-text.ts); with it for
 * working-tree content, which git has no copy of. Chunk text was most of `.vlt/objects`.
 */
export type StoredChunk = Omit<Chunk, 'body'> & { body?: string }

/** An artifact as a record stores it: chunks maybe without their text, references as columns. */
export type StoredArtifact = Omit<FileArtifact, 'references' | 'chunks'> & { chunks: StoredChunk[]; references: ReferenceColumns }

/**
 * The per-blob record stored under `.vlt/objects/`. Path-independent: the same bytes under
 * another name (rename, copy, revert) reuse it as is.
 */
export type BlobRecord =
  | { skipped: ContentSkip }
  | {
      skipped?: undefined
      artifact: StoredArtifact
      /** Decoded on first use (see encodeBlobRecord): a query reading the artifact never pays for it. */
      analyzed: AnalyzedChunks
      degraded?: Degraded
      /** Credentials were replaced in the file's text (classifyContent): reading it from git again must redact it again. */
      redacted?: true
    }

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
/**
 * 4: the artifact and the analysed docs compressed apart, each a section of the record's (plain)
 * payload, so that a query decompresses the artifact alone (a cold `refs schedule_work` on Linux
 * read ~1,500 records whole); `redacted` says whether git's copy of the text needs its credentials
 * redacted again (most files have none: scanning them was most of a page of references' time).
 * 3: chunks of git blobs without their text (see StoredChunk); analysed docs and references in
 * the compact forms below. Linux 10k's records: 104.6 → 58 MB.
 */
export const BLOB_RECORD_VERSION = 4

/**
 * Analysed docs as a record stores them: one column each for every doc's term count, its term
 * positions (ascending, as gaps from the previous one: small numbers, which msgpack writes in a
 * byte) and their frequencies; a doc's length is the sum of its frequencies. Compressed, 40 % of
 * the bytes of an object per doc.
 */
interface StoredAnalysis {
  terms: string
  counts: number[]
  gaps: number[]
  tfs: number[]
}

/**
 * Reference columns as a record stores them: lines as gaps from the previous row's (modulo 2³²:
 * references come mostly in line order), and each column of numbers as 16-bit ones when they fit.
 */
type StoredReferences = Omit<ReferenceColumns, 'name' | 'line' | 'column' | 'enclosing'> & Record<'name' | 'lineGaps' | 'column' | 'enclosing', Uint32Array | Uint16Array>

type StoredArtifactForm = Omit<StoredArtifact, 'references'> & { references: StoredReferences }

/** What a record's first section holds: everything but the analysed docs. */
interface StoredHead {
  artifact: StoredArtifactForm
  degraded?: Degraded
  redacted?: true
}

/** The record's payload: a skipped file's reason, or its two sections, each brotli-compressed msgpack. */
type StoredRecord = { skipped: ContentSkip } | { skipped?: undefined; head: Uint8Array; analyzed: Uint8Array }

const sectionPackr = new Packr({ useRecords: true, moreTypes: true })
/** As record.ts compresses whole records: quality 3 (see its BROTLI). */
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 3 } }

function packSection(value: unknown): Buffer {
  return brotliCompressSync(sectionPackr.pack(value), BROTLI)
}

function unpackSection<T>(bytes: unknown, label: string, what: string): T {
  if (!(bytes instanceof Uint8Array)) throw new CorruptFileError(label, `its ${what} section is missing`)
  try {
    return sectionPackr.unpack(brotliDecompressSync(bytes)) as T
  } catch (error) {
    throw new CorruptFileError(label, `its ${what} section does not decode: ${(error as Error).message}`)
  }
}

/** A blob record as `.vlt/objects` stores it (compressed: records are most of `.vlt/`, each written once, in a worker). */
export function encodeBlobRecord(record: BlobRecord): Buffer {
  if (record.skipped) return encodeRecord(BLOB_RECORD_KIND, BLOB_RECORD_VERSION, record)
  const { analyzed, ...head } = storedForm(record)
  return encodeRecord(BLOB_RECORD_KIND, BLOB_RECORD_VERSION, { head: packSection(head), analyzed: packSection(analyzed) } satisfies StoredRecord)
}

/**
 * Checks and decodes a stored blob record; `label` names it in a CorruptFileError. The whole
 * record's checksum is checked here; its analysed docs are decompressed on first use.
 */
export function decodeBlobRecord(bytes: Uint8Array, label: string): BlobRecord {
  const stored = decodeRecord<StoredRecord>(bytes, BLOB_RECORD_KIND, BLOB_RECORD_VERSION, label)
  if (stored.skipped) return { skipped: stored.skipped }
  try {
    const head = unpackSection<StoredHead>(stored.head, label, 'artifact')
    const record = { ...head, artifact: artifactOfStored(head.artifact) } as BlobRecord & { skipped?: undefined }
    const sectionBytes = stored.analyzed
    Object.defineProperty(record, 'analyzed', {
      configurable: true,
      enumerable: true,
      get: () => {
        const analyzed = analysisOfStored(unpackSection<StoredAnalysis>(sectionBytes, label, 'analysed docs'), label)
        Object.defineProperty(record, 'analyzed', { value: analyzed, configurable: true, enumerable: true, writable: true })
        return analyzed
      },
    })
    return record
  } catch (error) {
    if (error instanceof CorruptFileError) throw error
    throw new CorruptFileError(label, `payload does not decode: ${(error as Error).message}`)
  }
}

function storedForm(record: BlobRecord & { skipped?: undefined }): StoredHead & { analyzed: StoredAnalysis } {
  const { artifact, analyzed, degraded, redacted } = record
  const counts: number[] = []
  const gaps: number[] = []
  const tfs: number[] = []
  for (const doc of analyzed.docs) {
    counts.push(doc.terms.length)
    for (let i = 0; i < doc.terms.length; i++) {
      gaps.push(i === 0 ? doc.terms[i]! : doc.terms[i]! - doc.terms[i - 1]!)
      tfs.push(doc.tfs[i]!)
    }
  }
  const { name, line, column, enclosing, ...rest } = artifact.references
  const lineGaps = new Uint32Array(line.length)
  for (let i = 0; i < line.length; i++) lineGaps[i] = line[i]! - (i === 0 ? 0 : line[i - 1]!)
  const references: StoredReferences = { ...rest, name: narrow(name), lineGaps: narrow(lineGaps), column: narrow(column), enclosing: narrow(enclosing) }
  return { artifact: { ...artifact, references }, ...(degraded ? { degraded } : {}), ...(redacted ? { redacted } : {}), analyzed: { terms: analyzed.terms, counts, gaps, tfs } }
}

function analysisOfStored(analyzed: StoredAnalysis, label: string): AnalyzedChunks {
  const { counts, gaps, tfs } = analyzed
  const docs: AnalyzedChunks['docs'] = new Array(counts.length)
  let at = 0
  for (let d = 0; d < counts.length; d++) {
    const n = counts[d]!
    const doc = { terms: new Array<number>(n), tfs: new Array<number>(n), length: 0 }
    for (let i = 0; i < n; i++, at++) {
      doc.terms[i] = i === 0 ? gaps[at]! : doc.terms[i - 1]! + gaps[at]!
      doc.tfs[i] = tfs[at]!
      doc.length += tfs[at]!
    }
    docs[d] = doc
  }
  if (at !== gaps.length || at !== tfs.length) throw new CorruptFileError(label, `its analysed docs list ${at} terms in ${gaps.length} gaps and ${tfs.length} frequencies`)
  return { terms: analyzed.terms, docs }
}

function artifactOfStored(artifact: StoredArtifactForm): StoredArtifact {
  const { name, lineGaps, column, enclosing, ...rest } = artifact.references
  const line = new Uint32Array(lineGaps.length)
  for (let i = 0; i < line.length; i++) line[i] = (i === 0 ? 0 : line[i - 1]!) + lineGaps[i]!
  const references: ReferenceColumns = { ...rest, name: widen(name), line, column: widen(column), enclosing: widen(enclosing) }
  return { ...artifact, references }
}

function widen(column: Uint32Array | Uint16Array): Uint32Array {
  return column instanceof Uint32Array ? column : Uint32Array.from(column)
}

/** The column as 16-bit numbers when they all fit. */
function narrow(column: Uint32Array): Uint32Array | Uint16Array {
  return column.every((value) => value <= 0xffff) ? Uint16Array.from(column) : column
}

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
