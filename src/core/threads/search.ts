/**
 * BM25 over thread entries with the code index's analyser and ranking, built per query: threads
 * are small (a few hundred entries read in milliseconds), so there is no index to keep in sync
 * with files that git merges and people edit by hand.
 */
import type { Chunk } from '../parse/types.js'
import { analyzeChunks, analyzeQuery, Bm25Index } from '../search/index.js'
import { bestWindow } from '../search/window.js'
import type { Entry, EntryType } from './format.js'
import { readThreads } from './listing.js'
import type { Thread } from './store.js'

export interface ThreadHit {
  thread: string
  entryId: string
  score: number
  timestamp: string
  author: string
  type: EntryType
  /** The entry's line sharing the most terms with the query, shortened. */
  snippet: string
}

export interface ThreadSearchOptions {
  limit?: number
  type?: EntryType
}

const SNIPPET_CHARS = 200

/** The entries matching `query`, best first; `warnings` names the thread files left out (see readThreads). */
export async function searchThreads(vltDir: string, query: string, options: ThreadSearchOptions = {}): Promise<{ hits: ThreadHit[]; warnings: string[] }> {
  const terms = new Set(analyzeQuery(query))
  const { ranked, warnings } = await rankEntries(vltDir, query, options)
  const hits = ranked.map(({ thread, entry, score }) => ({
    thread: thread.name,
    entryId: entry.id,
    score,
    timestamp: entry.timestamp,
    author: entry.author,
    type: entry.type,
    snippet: snippet(entry.text, terms),
  }))
  return { hits, warnings }
}

export interface RankedEntry {
  thread: Thread
  entry: Entry
  /** BM25. */
  score: number
}

/** The entries matching `query`, best first, with the threads they were read from. */
export async function rankEntries(vltDir: string, query: string, options: ThreadSearchOptions = {}): Promise<{ ranked: RankedEntry[]; warnings: string[] }> {
  const { threads, warnings } = await readThreads(vltDir)
  const index = new Bm25Index()
  const byName = new Map<string, Thread>()
  for (const thread of threads) {
    byName.set(thread.name, thread)
    // The thread name is the document path: its words count in every entry, as a file path does for code.
    index.addFile(thread.name, analyzeChunks(thread.entries.map((entry) => entryChunk(thread, entry))))
  }
  const filter = options.type === undefined ? undefined : (path: string, chunk: number) => byName.get(path)!.entries[chunk].type === options.type
  const ranked = index.search(query, { limit: options.limit ?? 10, filter }).map((hit) => {
    const thread = byName.get(hit.path)!
    return { thread, entry: thread.entries[hit.chunkIndex]!, score: hit.score }
  })
  return { ranked, warnings }
}

/** An entry as a text chunk: its body is the text, the thread's title weighs like a docstring. */
function entryChunk(thread: Thread, entry: Entry): Chunk {
  return {
    kind: 'block',
    name: '',
    qualifiedName: '',
    language: 'text',
    startLine: 0,
    endLine: 0,
    imports: '',
    classContext: '',
    signature: '',
    decorators: '',
    docstring: thread.title,
    body: entry.text,
    tokenCount: 0,
  }
}

/** The entry's line sharing the most terms with the query (the first on ties), trimmed and shortened. */
function snippet(text: string, terms: ReadonlySet<string>): string {
  const lines = text.split('\n').map((line) => line.trim())
  const weights = lines.map((line) => analyzeQuery(line).filter((term) => terms.has(term)).length)
  return bestWindow(lines, weights, 1, SNIPPET_CHARS, (line) => line !== '')
}
