/**
 * The notes source for the oracle, in the shape every retrieval path returns (seed 000,
 * RetrievalResult): one result per matching section.
 */
import { stat } from 'node:fs/promises'
import { estimateTokens, type RetrievalResult } from '../sources/retrieval.js'
import { openNotes } from './build.js'
import { searchIndex, type ArtifactReads, type NoteSearchMethod, type NoteSearchOptions } from './search.js'

/** Vault metadata per the seed: note_path, title, snippet, updated; plus where the section is. */
export type VaultMetadata = {
  note_path: string
  title: string
  snippet: string
  /** Front matter `updated`/`modified`/`date`, else the file's modification time, else null (a blob of HEAD). */
  updated: string | null
  heading: string
  start_line: number
  end_line: number
  tags: string[]
  /** The paths that found the section. */
  methods: NoteSearchMethod[]
}

/** Sections matching `query`, best first; problems worked around (embeddings unavailable …) go to `options.warn`. */
export async function searchNotes(cwd: string, query: string, options: NoteSearchOptions = {}): Promise<Array<RetrievalResult<VaultMetadata>>> {
  const notes = await openNotes(cwd, options)
  const artifacts: ArtifactReads = new Map()
  const { hits, warnings } = await searchIndex(notes, query, options, artifacts)
  for (const warning of warnings) options.warn?.(warning)
  const top = hits[0]?.score ?? 1
  return Promise.all(hits.map(async (hit): Promise<RetrievalResult<VaultMetadata>> => {
    const note = notes.note(hit.path)!
    const frontMatter = (await artifacts.get(hit.path)!).frontMatter
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
      methods: hit.methods,
    }
    return {
      sourceType: 'vault',
      sourcePath: `${hit.path}:${hit.startLine}`,
      retrievalMethod: hit.methods.length > 1 ? 'hybrid' : hit.methods[0]!,
      score: hit.score / top,
      content: hit.content,
      tokenCount: estimateTokens(hit.content),
      metadata,
    }
  }))
}
