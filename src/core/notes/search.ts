/**
 * BM25 over note sections with the code index's analyser: a section's heading path weighs like a
 * symbol name, the note's title, aliases and tags like a docstring, its path like a file path.
 */
import { analyzeQuery } from '../search/index.js'
import { openNotes, type NotesFreshness, type NotesIndex, type NotesOptions } from './build.js'
import type { NoteArtifact } from './store.js'

export interface NoteSearchOptions extends NotesOptions {
  /** Results to return (default 10). */
  limit?: number
  /** Only notes with this tag (without '#'); `project` also matches nested tags such as `project/alpha`. */
  tag?: string
}

export interface NoteHit {
  path: string
  /** Heading path of the section, "Title > Section > Subsection". */
  heading: string
  /** 1-based, inclusive. */
  startLine: number
  endLine: number
  score: number
  /** The section's lines matching the query best. */
  snippet: string
  tags: string[]
  title: string
  /** The section's text. */
  content: string
}

export interface NotesSearchResult {
  query: string
  results: NoteHit[]
  freshness: NotesFreshness
}

const SNIPPET_LINES = 3
const SNIPPET_LINE_CHARS = 200

/** Searches the notes of the repository containing `cwd` (index brought up to date first). */
export async function findNotes(cwd: string, query: string, options: NoteSearchOptions = {}): Promise<NotesSearchResult> {
  const notes = await openNotes(cwd, options)
  return { query, results: await searchIndex(notes, query, options), freshness: notes.freshness }
}

export async function searchIndex(notes: NotesIndex, query: string, options: NoteSearchOptions = {}): Promise<NoteHit[]> {
  const tag = options.tag?.replace(/^#/, '').toLowerCase()
  const filter = tag === undefined
    ? undefined
    : (path: string) => notes.note(path)!.tags.some((t) => {
      const lower = t.toLowerCase()
      return lower === tag || lower.startsWith(`${tag}/`)
    })
  const hits = notes.bm25.search(query, { limit: options.limit ?? 10, filter })
  const artifacts = new Map<string, Promise<NoteArtifact>>()
  for (const hit of hits) if (!artifacts.has(hit.path)) artifacts.set(hit.path, notes.artifact(hit.path))
  const terms = new Set(analyzeQuery(query))
  return Promise.all(hits.map(async (hit): Promise<NoteHit> => {
    const note = notes.note(hit.path)!
    const artifact = await artifacts.get(hit.path)!
    const section = artifact.sections[hit.chunkIndex]!
    const lines = artifact.text.split('\n').slice(section.startLine - 1, section.endLine)
    return {
      path: hit.path,
      heading: section.heading || note.title,
      startLine: section.startLine,
      endLine: section.endLine,
      score: hit.score,
      snippet: snippet(lines, terms),
      tags: note.tags,
      title: note.title,
      content: lines.join('\n'),
    }
  }))
}

/** The window of up to SNIPPET_LINES non-heading lines sharing the most terms with the query; the first lines when none does. */
function snippet(lines: string[], terms: ReadonlySet<string>): string {
  const weights = lines.map((line) => analyzeQuery(line).filter((term) => terms.has(term)).length)
  let best = lines.findIndex((line) => line.trim() !== '' && !line.startsWith('#'))
  if (best < 0) best = 0
  let bestWeight = 0
  for (let start = 0; start < lines.length; start++) {
    if (lines[start]!.trim() === '' || lines[start]!.startsWith('#')) continue
    let weight = 0
    for (let i = start; i < Math.min(lines.length, start + SNIPPET_LINES); i++) weight += weights[i]!
    if (weight > bestWeight) {
      best = start
      bestWeight = weight
    }
  }
  const window = lines.slice(best, best + SNIPPET_LINES)
  while (window.length > 0 && window[window.length - 1]!.trim() === '') window.pop()
  return window.map((line) => (line.length > SNIPPET_LINE_CHARS ? `${line.slice(0, SNIPPET_LINE_CHARS - 1)}…` : line.trimEnd())).join('\n')
}
