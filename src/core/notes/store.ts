/**
 * The notes index under `.vlt/notes/`, next to the code index and built the same way:
 *
 *   notes/objects/<hh>/<rest>.mpk   per-note artifact by content hash (parse + BM25 analysis + text)
 *   notes/trees/<key>.mpk           the index of one set of notes: key = hash of every (path, content
 *                                   hash), i.e. HEAD's tree, the working-tree changes and the folders'
 *                                   fingerprint together
 *   notes/latest.mpk                the key built last, the base the next build patches
 *
 * All are checksummed records; a damaged one is rebuilt, never trusted.
 */
import { lstat } from 'node:fs/promises'
import { join } from 'node:path'
import { CorruptFileError } from '../errors.js'
import { listDirConfined, readRecord, removeConfined, writeRecord } from '../store/index.js'
import type { ContentSkip } from '../files/index.js'
import type { AnalyzedChunks, Bm25Snapshot } from '../search/index.js'
import type { RawLink } from './links.js'
import type { ParsedNote } from './markdown.js'
import type { NoteFile } from './sources.js'

/** Bump when parsing or analysis changes what an artifact holds (2: credentials found with the gitleaks rules). */
export const NOTE_ARTIFACT_VERSION = 2
export const NOTES_INDEX_VERSION = 1
const LATEST_VERSION = 1
/** Indexes kept besides the newest, for switching back and forth between branches. */
const KEPT_INDEXES = 4

export interface NoteArtifact extends ParsedNote {
  /** The note's text, credentials redacted ('' when skipped). */
  text: string
  analyzed: AnalyzedChunks
  /** Why the content was not indexed (binary, too large, a credentials file …). */
  skipped?: ContentSkip
}

/** One note as the index knows it, without its text: enough to filter, resolve links and rank. */
export interface IndexedNote extends NoteFile {
  title: string
  tags: string[]
  aliases: string[]
  links: RawLink[]
  /** Per link, the note it resolves to (null: outside the notes, or not found). */
  resolved: Array<string | null>
}

export interface NotesIndexRecord {
  key: string
  treeHash: string
  builtAt: string
  notes: IndexedNote[]
  bm25: Bm25Snapshot
}

const HASH = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

export function notesDir(vltDir: string): string {
  return join(vltDir, 'notes')
}

function artifactPath(vltDir: string, hash: string): string {
  if (!HASH.test(hash)) throw new Error(`invalid note content hash: ${JSON.stringify(hash)}`)
  return join(notesDir(vltDir), 'objects', hash.slice(0, 2), `${hash.slice(2)}.mpk`)
}

function indexPath(vltDir: string, key: string): string {
  if (!HASH.test(key)) throw new Error(`invalid notes index key: ${JSON.stringify(key)}`)
  return join(notesDir(vltDir), 'trees', `${key}.mpk`)
}

const latestPath = (vltDir: string): string => join(notesDir(vltDir), 'latest.mpk')

/** A stored artifact, or undefined when absent or damaged (the caller re-parses). */
export async function readArtifact(vltDir: string, hash: string): Promise<NoteArtifact | undefined> {
  return readTrusted(() => readRecord<NoteArtifact>(artifactPath(vltDir, hash), 'note-artifact', NOTE_ARTIFACT_VERSION))
}

/** Content-addressed and rebuilt when lost, so not fsynced. */
export async function writeArtifact(vltDir: string, hash: string, artifact: NoteArtifact): Promise<void> {
  await writeRecord(artifactPath(vltDir, hash), 'note-artifact', NOTE_ARTIFACT_VERSION, artifact, { durable: false })
}

export async function readIndex(vltDir: string, key: string): Promise<NotesIndexRecord | undefined> {
  return readTrusted(() => readRecord<NotesIndexRecord>(indexPath(vltDir, key), 'notes-index', NOTES_INDEX_VERSION))
}

export async function readLatestIndex(vltDir: string): Promise<NotesIndexRecord | undefined> {
  const latest = await readTrusted(() => readRecord<{ key: string }>(latestPath(vltDir), 'notes-latest', LATEST_VERSION))
  return latest && HASH.test(latest.key) ? readIndex(vltDir, latest.key) : undefined
}

/** Writes the index, points `latest` at it, and drops all but the newest few others. */
export async function writeIndex(vltDir: string, record: NotesIndexRecord): Promise<void> {
  await writeRecord(indexPath(vltDir, record.key), 'notes-index', NOTES_INDEX_VERSION, record, { durable: false })
  await writeRecord(latestPath(vltDir), 'notes-latest', LATEST_VERSION, { key: record.key }, { durable: false })
  await pruneIndexes(vltDir, record.key)
}

async function pruneIndexes(vltDir: string, keep: string): Promise<void> {
  const dir = join(notesDir(vltDir), 'trees')
  const names = (await listDirConfined(dir)).filter((name) => name.endsWith('.mpk') && name !== `${keep}.mpk`)
  if (names.length <= KEPT_INDEXES) return
  const dated = await Promise.all(names.map(async (name) => ({ name, mtime: (await lstat(join(dir, name)).catch(() => undefined))?.mtimeMs ?? 0 })))
  dated.sort((a, b) => b.mtime - a.mtime)
  // Another process may be pruning too: a file already gone is fine.
  await Promise.all(dated.slice(KEPT_INDEXES).map(({ name }) => removeConfined(join(dir, name)).catch(() => {})))
}

async function readTrusted<T>(read: () => Promise<T | undefined>): Promise<T | undefined> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof CorruptFileError) return undefined
    throw error
  }
}
