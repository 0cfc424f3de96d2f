/**
 * The notes' vector path, built like the code's: every section's text is embedded once per
 * provider (the shared vector cache, keyed by text hash, so a section unchanged across edits,
 * branches or notes costs nothing), and the query is compared with all of them by exact cosine
 * similarity — notes are thousands of sections at most, a flat scan takes well under a millisecond.
 *
 * The matrix of one notes index is kept as one record per provider (`notes/vectors-<provider>.mpk`),
 * replaced when the notes change; rebuilding it reads the artifacts and embeds only new sections.
 */
import { join } from 'node:path'
import { chunkHash, embedAll, EmbeddingUnavailableError, MAX_EMBEDDING_CHARS, providerKey, unitVector, VectorCache, type EmbeddingProvider, type EmbedItem } from '../embed/index.js'
import { CorruptFileError } from '../errors.js'
import { readRecord, unlessUnwritable, vltPaths, writeRecord } from '../store/index.js'
import type { NotesIndex } from './build.js'
import type { Section } from './markdown.js'
import { notesDir } from './store.js'

const RECORD_KIND = 'notes-vectors'
const RECORD_VERSION = 1

/** Unit vectors of every section of one notes index; row r is section `sections[r]` of `paths[files[r]]`. */
interface NoteVectors {
  /** The notes index key the rows were built for. */
  key: string
  providerId: string
  dimensions: number
  paths: string[]
  files: Uint32Array
  sections: Uint32Array
  vectors: Float32Array
}

export interface SectionHit {
  path: string
  /** Index of the section in the note's artifact (the BM25 chunk index). */
  chunkIndex: number
  /** Cosine similarity with the query. */
  score: number
}

export interface NoteVectorResult {
  hits: SectionHit[]
  /** Set when the path could not run: one line for the user. */
  warning?: string
}

/**
 * The text embedded for a section: its heading path when nested (so that "Layout" under "Storage
 * design" carries both), then its lines. Depends only on content, so it shares cached vectors.
 */
export function sectionEmbeddingText(section: Section, body: string): string {
  const context = section.heading === section.name || section.heading === '' ? '' : `${section.heading}\n\n`
  const text = context + body
  return text.length <= MAX_EMBEDDING_CHARS ? text : text.slice(0, MAX_EMBEDDING_CHARS)
}

/** The `limit` sections most similar to `query` among notes passing `filter`; never throws for an unavailable provider. */
export async function noteVectorPath(
  notes: NotesIndex,
  provider: EmbeddingProvider,
  query: string,
  limit: number,
  filter?: (path: string) => boolean,
): Promise<NoteVectorResult> {
  try {
    const [[queryVector], matrix] = await Promise.all([provider.embed([query]), noteVectors(notes, provider)])
    const q = unitVector(queryVector!)
    if (matrix.files.length > 0 && q.length !== matrix.dimensions) {
      return { hits: [], warning: `embeddings unavailable: the query vector has ${q.length} dimensions, the note vectors ${matrix.dimensions}; using keyword search only` }
    }
    return { hits: nearest(matrix, q, limit, filter) }
  } catch (error) {
    if (error instanceof EmbeddingUnavailableError) return { hits: [], warning: `embeddings unavailable (${error.kind}): ${error.message}; using keyword search only` }
    throw error
  }
}

function recordPath(notes: NotesIndex, providerId: string): string {
  return join(notesDir(notes.repo.vltDir), `vectors-${providerKey(providerId)}.mpk`)
}

async function noteVectors(notes: NotesIndex, provider: EmbeddingProvider): Promise<NoteVectors> {
  const path = recordPath(notes, provider.id)
  try {
    const stored = await readRecord<NoteVectors>(path, RECORD_KIND, RECORD_VERSION)
    if (stored && stored.key === notes.freshness.key && stored.providerId === provider.id) return stored
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error
  }
  const built = await embedSections(notes, provider)
  await unlessUnwritable(() => writeRecord(path, RECORD_KIND, RECORD_VERSION, built, { durable: false }))
  return built
}

async function embedSections(notes: NotesIndex, provider: EmbeddingProvider): Promise<NoteVectors> {
  const items = new Map<string, string>()
  const rows: Array<{ file: number; section: number; hash: string }> = []
  const paths: string[] = []
  for (const note of notes.notes) {
    const artifact = await notes.artifact(note.path)
    if (artifact.sections.length === 0) continue
    const file = paths.push(note.path) - 1
    const lines = artifact.text.split('\n')
    artifact.sections.forEach((section, index) => {
      const body = lines.slice(section.startLine - 1, section.endLine).join('\n')
      if (body.trim() === '') return
      const text = sectionEmbeddingText(section, body)
      const hash = chunkHash(text)
      items.set(hash, text)
      rows.push({ file, section: index, hash })
    })
  }
  const wanted: EmbedItem[] = [...items].map(([hash, text]) => ({ hash, text }))
  const vectors = await embedAll(wanted, provider, new VectorCache(vltPaths(notes.repo.vltDir), provider.id))
  const dimensions = rows.length === 0 ? 0 : vectors.get(rows[0]!.hash)!.length
  const matrix = new Float32Array(rows.length * dimensions)
  rows.forEach((row, r) => matrix.set(unitVector(vectors.get(row.hash)!), r * dimensions))
  return {
    key: notes.freshness.key,
    providerId: provider.id,
    dimensions,
    paths,
    files: Uint32Array.from(rows, (row) => row.file),
    sections: Uint32Array.from(rows, (row) => row.section),
    vectors: matrix,
  }
}

function nearest(matrix: NoteVectors, query: Float32Array, limit: number, filter?: (path: string) => boolean): SectionHit[] {
  const d = matrix.dimensions
  const admitted = matrix.paths.map((path) => filter?.(path) ?? true)
  const scored: SectionHit[] = []
  for (let row = 0; row < matrix.files.length; row++) {
    if (!admitted[matrix.files[row]!]) continue
    let dot = 0
    for (let i = 0, at = row * d; i < d; i++, at++) dot += query[i]! * matrix.vectors[at]!
    scored.push({ path: matrix.paths[matrix.files[row]!]!, chunkIndex: matrix.sections[row]!, score: dot })
  }
  return scored.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.chunkIndex - b.chunkIndex)).slice(0, limit)
}

