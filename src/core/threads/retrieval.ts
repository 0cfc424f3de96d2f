/**
 * The oracle's `threads` source: matching thread entries as seed 000's RetrievalResult, each
 * carrying its whole text and where it was said (thread, entry, type, author, time).
 */
import { openRepo } from '../git/index.js'
import { estimateTokens, type RetrievalResult } from '../sources/retrieval.js'
import type { EntryType } from './format.js'
import { searchThreads, type ThreadSearchOptions } from './search.js'
import { readThread, type Thread } from './store.js'

export type ThreadMetadata = {
  thread: string
  /** The thread's title, as its header gives it. */
  title: string
  entryId: string
  type: EntryType
  author: string
  timestamp: string
}

/** Entries of the threads of the repository containing `cwd` that match `query`, best first, scored 1 for the best. */
export async function searchThreadsForOracle(cwd: string, query: string, options: ThreadSearchOptions = {}): Promise<Array<RetrievalResult<ThreadMetadata>>> {
  const { vltDir } = await openRepo(cwd)
  const hits = await searchThreads(vltDir, query, options)
  const best = hits[0]?.score ?? 1
  const threads = new Map<string, Promise<Thread>>()
  return Promise.all(hits.map(async (hit): Promise<RetrievalResult<ThreadMetadata>> => {
    let thread = threads.get(hit.thread)
    if (!thread) threads.set(hit.thread, (thread = readThread(vltDir, hit.thread)))
    const { title, entries } = await thread
    const entry = entries.find((candidate) => candidate.id === hit.entryId)!
    // The header tells the oracle whose words these are and of what kind, which the text alone does not.
    const content = `${title} — ${entry.type} by ${entry.author}, ${entry.timestamp}\n\n${entry.text}`
    return {
      sourceType: 'threads',
      sourcePath: `${hit.thread}#${hit.entryId}`,
      retrievalMethod: 'bm25',
      score: hit.score / best,
      content,
      tokenCount: estimateTokens(content),
      metadata: { thread: hit.thread, title, entryId: hit.entryId, type: entry.type, author: entry.author, timestamp: entry.timestamp },
    }
  }))
}
