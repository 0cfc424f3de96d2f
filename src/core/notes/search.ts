/**
 * Note sections found by words and, when an embedding provider is configured, by meaning.
 *
 * Words: BM25 with the code index's analyser — a section's heading path weighs like a symbol name,
 * the note's title, aliases and tags like a docstring, its path like a file path. Meaning: the
 * vector path (vectors.ts). The two rankings are fused by reciprocal rank, so a section both find
 * rises; when embeddings are unavailable the search says so once and ranks by words alone.
 */
import { loadConfig } from '../config/index.js'
import { createEmbeddingProvider, type EmbeddingProvider } from '../embed/index.js'
import { VltError } from '../errors.js'
import { bestWindow } from '../search/window.js'
import { analyzeQuery } from '../search/index.js'
import { openNotes, type NotesFreshness, type NotesIndex, type NotesOptions } from './build.js'
import type { NoteArtifact } from './store.js'
import { noteVectorPath } from './vectors.js'

export interface NoteSearchOptions extends NotesOptions {
  /** Results to return (default 10). */
  limit?: number
  /** Only notes with this tag (without '#'); `project` also matches nested tags such as `project/alpha`. */
  tag?: string
  /** The embedding provider; null turns the vector path off; absent: the one configured in vlt.toml, if any. */
  embedding?: EmbeddingProvider | null
}

export type NoteSearchMethod = 'bm25' | 'vector'

export interface NoteHit {
  path: string
  /** The paths that found the section, in the order bm25, vector. */
  methods: NoteSearchMethod[]
  /** Heading path of the section, "Title > Section > Subsection". */
  heading: string
  /** 1-based, inclusive. */
  startLine: number
  endLine: number
  /**
   * BM25 score when words alone ranked; with the vector path, the fused rank score, 1 for a
   * section first in both rankings.
   */
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
  /** Problems the search worked around (missing folders, unreadable notes, embeddings unavailable). */
  warnings: string[]
}

export interface NoteSearch {
  hits: NoteHit[]
  /** One line per problem the search worked around (embeddings unavailable …). */
  warnings: string[]
}

/** The usual reciprocal rank fusion constant; notes have no corpus to tune it on. */
const RRF_K = 60
/** Candidates each path contributes to the fusion, at least. */
const FUSION_DEPTH = 20
const SNIPPET_LINES = 3
const SNIPPET_LINE_CHARS = 200

/** Searches the notes of the repository containing `cwd` (index brought up to date first). */
export async function findNotes(cwd: string, query: string, options: NoteSearchOptions = {}): Promise<NotesSearchResult> {
  const warnings: string[] = []
  const notes = await openNotes(cwd, { ...options, warn: collect(warnings, options.warn) })
  const found = await searchIndex(notes, query, options)
  for (const warning of found.warnings) collect(warnings, options.warn)(warning)
  return { query, results: found.hits, freshness: notes.freshness, warnings }
}

function collect(warnings: string[], warn: ((message: string) => void) | undefined): (message: string) => void {
  return (message) => {
    warnings.push(message)
    warn?.(message)
  }
}

interface Ranked {
  path: string
  chunkIndex: number
  score: number
  methods: NoteSearchMethod[]
}

/** Artifacts read for the hits, by note path; a caller needing them afterwards passes its own map instead of reading them again. */
export type ArtifactReads = Map<string, Promise<NoteArtifact>>

export async function searchIndex(notes: NotesIndex, query: string, options: NoteSearchOptions = {}, artifacts: ArtifactReads = new Map()): Promise<NoteSearch> {
  const tag = options.tag?.replace(/^#/, '').toLowerCase()
  const filter = tag === undefined
    ? undefined
    : (path: string) => notes.note(path)!.tags.some((t) => {
      const lower = t.toLowerCase()
      return lower === tag || lower.startsWith(`${tag}/`)
    })
  const limit = options.limit ?? 10
  const warnings: string[] = []
  const provider = options.embedding !== undefined ? options.embedding : await configuredProvider(notes, warnings)
  let hits: Ranked[]
  if (provider === null) {
    hits = bm25Ranking(notes, query, limit, filter)
  } else {
    const depth = Math.max(limit, FUSION_DEPTH)
    const vector = await noteVectorPath(notes, provider, query, depth, filter)
    if (vector.warning) warnings.push(vector.warning)
    hits = vector.warning ? bm25Ranking(notes, query, limit, filter) : fuse(bm25Ranking(notes, query, depth, filter), vector.hits).slice(0, limit)
  }
  return { hits: await noteHits(notes, query, hits, artifacts), warnings }
}

/** The configured provider; a configuration it cannot use (no API key …) is a warning, not a failure. */
async function configuredProvider(notes: NotesIndex, warnings: string[]): Promise<EmbeddingProvider | null> {
  const config = await loadConfig(notes.repo.root ?? notes.repo.gitDir)
  try {
    return createEmbeddingProvider(config.embedding)
  } catch (error) {
    if (!(error instanceof VltError)) throw error
    warnings.push(`embeddings unavailable: ${error.message}; using keyword search only`)
    return null
  }
}

function bm25Ranking(notes: NotesIndex, query: string, limit: number, filter: ((path: string) => boolean) | undefined): Ranked[] {
  return notes.bm25.search(query, { limit, filter }).map((hit) => ({ path: hit.path, chunkIndex: hit.chunkIndex, score: hit.score, methods: ['bm25'] }))
}

/** Reciprocal rank fusion of the two rankings, scaled so that first in both scores 1. */
function fuse(bm25: readonly Ranked[], vector: ReadonlyArray<{ path: string; chunkIndex: number }>): Ranked[] {
  const fused = new Map<string, Ranked>()
  const add = (method: NoteSearchMethod, hits: ReadonlyArray<{ path: string; chunkIndex: number }>): void => {
    hits.forEach((hit, rank) => {
      const id = `${hit.path}\0${hit.chunkIndex}`
      let candidate = fused.get(id)
      if (!candidate) fused.set(id, (candidate = { path: hit.path, chunkIndex: hit.chunkIndex, score: 0, methods: [] }))
      candidate.score += (RRF_K + 1) / (2 * (RRF_K + rank + 1))
      candidate.methods.push(method)
    })
  }
  add('bm25', bm25)
  add('vector', vector)
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.chunkIndex - b.chunkIndex))
}

async function noteHits(notes: NotesIndex, query: string, hits: readonly Ranked[], artifacts: ArtifactReads): Promise<NoteHit[]> {
  for (const hit of hits) if (!artifacts.has(hit.path)) artifacts.set(hit.path, notes.artifact(hit.path))
  const terms = new Set(analyzeQuery(query))
  return Promise.all(hits.map(async (hit): Promise<NoteHit> => {
    const note = notes.note(hit.path)!
    const artifact = await artifacts.get(hit.path)!
    const section = artifact.sections[hit.chunkIndex]!
    const lines = artifact.text.split('\n').slice(section.startLine - 1, section.endLine)
    return {
      path: hit.path,
      methods: hit.methods,
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
  return bestWindow(lines, weights, SNIPPET_LINES, SNIPPET_LINE_CHARS, (line) => line.trim() !== '' && !line.startsWith('#'))
}
