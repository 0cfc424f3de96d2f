/**
 * The knowledge sources beside code: notes (vault), development threads, and agent conversation
 * history, each mapped to candidates whose relevance is their share of the question's terms.
 */
import { searchHistory } from '../history/index.js'
import { searchNotes } from '../notes/index.js'
import { readerSummary, readThread, searchThreads, threadNames } from '../threads/index.js'
import { makeSource, type Candidate } from './candidate.js'
import { coverage } from './relevance.js'

const LIMIT = 10

export async function vaultPath(cwd: string, searchText: string, terms: readonly string[]): Promise<Candidate[]> {
  const results = await searchNotes(cwd, searchText, { limit: LIMIT })
  return results.map((result) => {
    const meta = result.metadata as { note_path: string; start_line: number; end_line: number; heading: string; title: string }
    return {
      source: makeSource('vault', `${meta.note_path}:${meta.start_line}-${meta.end_line}`, result.retrievalMethod, result.score, result.content, result.metadata),
      path: 'vault',
      relevance: coverage(terms, `${meta.note_path} ${meta.title} ${meta.heading}\n${result.content}`),
      exact: false,
      range: { path: meta.note_path, start: meta.start_line, end: meta.end_line },
    }
  })
}

/** Threads whose entries matched that also give their summary as evidence: the context around the entries. */
const SUMMARISED_THREADS = 2

/**
 * The matching entries, and the summaries of the threads they are in (cached, brought up to date on
 * read: thread/summary.ts). Null when the repository has no threads (the source is then named as
 * skipped); `warn` hears of thread files left out and of a summary model that could not answer.
 */
export async function threadsPath(root: string, vltDir: string, searchText: string, terms: readonly string[], warn: (message: string) => void): Promise<Candidate[] | null> {
  if ((await threadNames(vltDir)).length === 0) return null
  const { hits, warnings } = await searchThreads(vltDir, searchText, { limit: LIMIT })
  for (const warning of warnings) warn(`threads: ${warning}`)
  const top = hits[0]?.score || 1
  const threads = new Map<string, ReturnType<typeof readThread>>()
  const entries = await Promise.all(hits.map(async (hit): Promise<Candidate> => {
    let thread = threads.get(hit.thread)
    if (!thread) threads.set(hit.thread, (thread = readThread(vltDir, hit.thread)))
    const entry = (await thread).entries.find((e) => e.id === hit.entryId)
    const content = entry?.text ?? hit.snippet
    return {
      source: makeSource('threads', `${hit.thread}#${hit.entryId}`, 'bm25', hit.score / top, content, {
        thread: hit.thread,
        entryId: hit.entryId,
        author: hit.author,
        type: hit.type,
        timestamp: hit.timestamp,
        bm25Score: hit.score,
      }),
      path: 'threads',
      relevance: coverage(terms, `${hit.thread}\n${content}`),
      exact: false,
    }
  }))
  const best = new Map<string, number>()
  for (const hit of hits) if (!best.has(hit.thread) && best.size < SUMMARISED_THREADS) best.set(hit.thread, hit.score / top)
  const summaries = await Promise.all([...best].map(async ([name, score]): Promise<Candidate | null> => {
    const summary = await readerSummary(root, vltDir, await threads.get(name)!, (warning) => warn(`threads: ${warning}`))
    if (summary.text === '') return null
    return {
      source: makeSource('threads', `${name}#summary`, 'bm25', score, summary.text, { thread: name, summary: true, upToEntry: summary.upToEntry, generatedBy: summary.generatedBy }),
      path: 'threads',
      relevance: coverage(terms, `${name}\n${summary.text}`),
      exact: false,
    }
  }))
  return [...entries, ...summaries.filter((candidate) => candidate !== null)]
}

/** Agent conversations; `files` links the question to sessions that touched the cited code. */
export async function historyPath(cwd: string, searchText: string, terms: readonly string[], files: string[]): Promise<Candidate[]> {
  const results = await searchHistory(cwd, searchText, { limit: LIMIT, files })
  return results.map((result) => ({
    source: makeSource('history', result.sourcePath, result.retrievalMethod, result.score, result.content, result.metadata),
    path: 'history',
    relevance: coverage(terms, result.content),
    exact: false,
  }))
}
