/**
 * Agent history under `.vlt/history/` (private: `.vlt/.gitignore` keeps it out of git).
 *
 *   history/index.mpk                  catalog: per transcript its resume point, per exchange the
 *                                      summary a search returns, and the BM25 index over exchanges
 *   history/transcripts/<key>.mpk      per transcript, its exchanges in full (tool calls, results)
 *
 * The index record is written last, so a crash between the two leaves an index that points at the
 * older resume point; the next ingest drops whatever a transcript record holds past it.
 */
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { CorruptFileError } from '../errors.js'
import { readRecord, removeConfined, writeRecord } from '../store/index.js'
import { Bm25Index, type Bm25Snapshot } from '../search/index.js'
import type { Exchange, SessionMeta } from './types.js'

const INDEX_KIND = 'history-index'
/** 2: text redacted at ingest (records of version 1 may hold secrets, so they are rebuilt). */
const INDEX_VERSION = 2
const TRANSCRIPT_KIND = 'history-transcript'
const TRANSCRIPT_VERSION = 2

/** Where ingest stopped in one transcript file. */
export interface TranscriptState {
  /** Absolute path of the .jsonl file. */
  path: string
  /** Names its record file. */
  key: string
  sessionId: string
  agentId: string | null
  isSidechain: boolean
  size: number
  mtimeMs: number
  /** Modified so close to the read that a same-size rewrite in the same clock tick would go unseen: check again. */
  racy: boolean
  /** Hash of the first bytes read: a rewritten file (not an appended one) is re-read from the start. */
  headHash: string
  /** How many bytes headHash covers (up to 1 KiB). */
  headBytes: number
  /** Byte offset and line index where the provisional exchange starts: the next read resumes there. */
  resumeOffset: number
  resumeLine: number
  meta: SessionMeta
}

/** What a search shows of one exchange, without opening its transcript record. */
export interface ExchangeEntry {
  id: string
  /** Document name in the BM25 index. */
  doc: string
  transcript: string
  sessionId: string
  agentId: string | null
  isSidechain: boolean
  kind: Exchange['kind']
  timestamp: string
  /** timestamp in ms since the epoch (NaN-free: 0 when unknown), for date filters. */
  time: number
  branch: string
  title: string
  prompt: string
  reply: string
  /** Files edited, read or searched by tools. */
  touched: string[]
  /** Files named in commands or prose only. */
  discussed: string[]
  tools: string[]
  startLine: number
  provisional: boolean
}

export interface HistoryCatalog {
  transcripts: TranscriptState[]
  exchanges: ExchangeEntry[]
  /** Next BM25 document number (see docName). */
  nextDoc: number
}

interface IndexPayload extends HistoryCatalog {
  bm25: Bm25Snapshot
}

export interface HistoryIndex extends HistoryCatalog {
  bm25: Bm25Index
}

export function historyDir(vltDir: string): string {
  return join(vltDir, 'history')
}

function indexPath(vltDir: string): string {
  return join(historyDir(vltDir), 'index.mpk')
}

function transcriptPath(vltDir: string, key: string): string {
  return join(historyDir(vltDir), 'transcripts', `${key}.mpk`)
}

export function transcriptKey(path: string): string {
  return createHash('sha1').update(path).digest('hex').slice(0, 20)
}

/**
 * A BM25 document name for exchange number `n`: its decimal digits joined by dots. The index folds
 * a document's path into its terms, and one-character tokens are never terms, so such a name adds
 * nothing to what an exchange matches.
 */
export function docName(n: number): string {
  return String(n).split('').join('.')
}

/** The stored index; an empty one when there is none or it cannot be trusted (it is rebuilt from transcripts). */
export async function loadHistoryIndex(vltDir: string, warn: (message: string) => void = () => {}): Promise<HistoryIndex | undefined> {
  let payload: IndexPayload | undefined
  try {
    payload = await readRecord<IndexPayload>(indexPath(vltDir), INDEX_KIND, INDEX_VERSION)
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error
    warn(`history index unusable (${error.reason}): rebuilding it from the transcripts`)
    return undefined
  }
  if (!payload) return undefined
  return { transcripts: payload.transcripts, exchanges: payload.exchanges, nextDoc: payload.nextDoc, bm25: Bm25Index.fromSnapshot(payload.bm25, indexPath(vltDir)) }
}

export function emptyHistoryIndex(): HistoryIndex {
  return { transcripts: [], exchanges: [], nextDoc: 0, bm25: new Bm25Index() }
}

export async function saveHistoryIndex(vltDir: string, index: HistoryIndex): Promise<void> {
  const payload: IndexPayload = { transcripts: index.transcripts, exchanges: index.exchanges, nextDoc: index.nextDoc, bm25: index.bm25.snapshot() }
  await writeRecord(indexPath(vltDir), INDEX_KIND, INDEX_VERSION, payload)
}

/** A transcript's stored exchanges; undefined when the record is missing or damaged (the transcript is then read again in full). */
export async function readTranscriptExchanges(vltDir: string, key: string): Promise<Exchange[] | undefined> {
  try {
    return (await readRecord<{ exchanges: Exchange[] }>(transcriptPath(vltDir, key), TRANSCRIPT_KIND, TRANSCRIPT_VERSION))?.exchanges
  } catch (error) {
    if (error instanceof CorruptFileError) return undefined
    throw error
  }
}

export async function writeTranscriptExchanges(vltDir: string, key: string, exchanges: Exchange[]): Promise<void> {
  await writeRecord(transcriptPath(vltDir, key), TRANSCRIPT_KIND, TRANSCRIPT_VERSION, { exchanges })
}

export async function removeTranscriptRecord(vltDir: string, key: string): Promise<void> {
  await removeConfined(transcriptPath(vltDir, key))
}
