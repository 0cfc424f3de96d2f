/**
 * The notes source for the oracle, in the shape every retrieval path returns (seed 000,
 * RetrievalResult): one result per matching section.
 */
import { stat } from 'node:fs/promises'
import { openNotes } from './build.js'
import { searchIndex, type NoteSearchOptions } from './search.js'

/** The code index's estimate (about four characters per token for prose and code alike). */
const CHARS_PER_TOKEN = 4

export interface RetrievalResult {
  sourceType: 'vault' | 'code' | 'thread' | 'definition' | 'reference' | 'history'
  /** For notes: `path:startLine`. */
  sourcePath: string
  retrievalMethod: 'vector' | 'bm25' | 'graph' | 'ctags' | 'scip'
  /** 0..1: the BM25 score divided by the best score of the same query, so the top note scores 1. */
  score: number
  content: string
  tokenCount: number
  metadata: Record<string, unknown>
}

/** Vault metadata per the seed: note_path, title, snippet, updated; plus where the section is. */
export interface VaultMetadata {
  note_path: string
  title: string
  snippet: string
  /** Front matter `updated`/`modified`/`date`, else the file's modification time, else null (a blob of HEAD). */
  updated: string | null
  heading: string
  start_line: number
  end_line: number
  tags: string[]
  bm25_score: number
}

export async function searchNotes(cwd: string, query: string, options: NoteSearchOptions = {}): Promise<RetrievalResult[]> {
  const notes = await openNotes(cwd, options)
  const hits = await searchIndex(notes, query, options)
  const top = hits[0]?.score ?? 1
  return Promise.all(hits.map(async (hit): Promise<RetrievalResult> => {
    const note = notes.note(hit.path)!
    const frontMatter = (await notes.artifact(hit.path)).frontMatter
    const declared = frontMatter.updated ?? frontMatter.modified ?? frontMatter.date
    let updated: string | null = typeof declared === 'string' || typeof declared === 'number' ? String(declared) : null
    if (updated === null && note.location.kind === 'file') updated = new Date((await stat(note.location.file).catch(() => undefined))?.mtimeMs ?? note.location.mtimeMs).toISOString()
    const metadata: VaultMetadata = {
      note_path: hit.path,
      title: hit.title,
      snippet: hit.snippet,
      updated,
      heading: hit.heading,
      start_line: hit.startLine,
      end_line: hit.endLine,
      tags: hit.tags,
      bm25_score: hit.score,
    }
    return {
      sourceType: 'vault',
      sourcePath: `${hit.path}:${hit.startLine}`,
      retrievalMethod: 'bm25',
      score: hit.score / top,
      content: hit.content,
      tokenCount: Math.ceil(hit.content.length / CHARS_PER_TOKEN),
      metadata: { ...metadata },
    }
  }))
}
