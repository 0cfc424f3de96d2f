/**
 * The oracle's `threads` source: matching thread entries as seed 000's RetrievalResult, each
 * carrying its whole text and where it was said (thread, entry, type, author, time).
 */
import { openRepo } from '../git/index.js'
import { estimateTokens, type RetrievalResult } from '../sources/retrieval.js'
import type { EntryType } from './format.js'
import { rankEntries, type ThreadSearchOptions } from './search.js'

export type ThreadMetadata = {
  thread: string
  /** The thread's title, as its header gives it. */
  title: string
  entryId: string
  type: EntryType
  author: string
  timestamp: string
}

export interface ThreadRetrievalOptions extends ThreadSearchOptions {
  /** Told one line per thread file left out (see readThreads). */
  warn?: (message: string) => void
}

/** Entries of the threads of the repository containing `cwd` that match `query`, best first, scored 1 for the best. */
export async function searchThreadsForOracle(cwd: string, query: string, options: ThreadRetrievalOptions = {}): Promise<Array<RetrievalResult<ThreadMetadata>>> {
  const { vltDir } = await openRepo(cwd)
  const { ranked: hits, warnings } = await rankEntries(vltDir, query, options)
  for (const warning of warnings) options.warn?.(warning)
  const best = hits[0]?.score ?? 1
  return hits.map(({ thread: { name, title }, entry, score }): RetrievalResult<ThreadMetadata> => {
    // The header tells the oracle whose words these are and of what kind, which the text alone does not.
    const content = `${title} — ${entry.type} by ${entry.author}, ${entry.timestamp}\n\n${entry.text}`
    return {
      sourceType: 'threads',
      sourcePath: `${name}#${entry.id}`,
      retrievalMethod: 'bm25',
      score: score / best,
      content,
      tokenCount: estimateTokens(content),
      metadata: { thread: name, title, entryId: entry.id, type: entry.type, author: entry.author, timestamp: entry.timestamp },
    }
  })
}
