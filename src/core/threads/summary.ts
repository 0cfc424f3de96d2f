/**
 * Lazy thread summaries (seed ThreadSummaryCache): generated on read, never on push, cached in
 * `.vlt/cache/threads/<name>.summary.json` (private, like every cache under `.vlt/`), keyed by
 * the last entry summarised. When entries were added since, only those are summarised, on top of
 * the cached text. The cache lists every entry it covers rather than trusting ids to be
 * increasing: a merge can bring in entries older than the last one summarised.
 */
import { join } from 'node:path'
import { redactSecrets } from '../files/index.js'
import { readFileConfined, unlessUnwritable, writeFileAtomic } from '../store/index.js'
import { validateThreadName } from './format.js'
import type { Thread } from './store.js'
import { loadConfig } from '../config/index.js'
import { VltError } from '../errors.js'
import { createLlmClient, LlmUnavailableError, type LlmClient } from '../llm/index.js'
import { chooseSummarizer, ExtractiveSummarizer, type Summarizer } from './summarizer.js'

export interface ThreadSummary {
  text: string
  /** Id of the newest entry the summary covers; null for a thread without entries. */
  upToEntry: string | null
  /** True when entries were added after the summary was written. */
  stale: boolean
  generatedBy: 'llm' | 'extractive'
}

interface SummaryCache {
  version: 1
  text: string
  lastEntryId: string
  entryIds: string[]
  generatedBy: 'llm' | 'extractive'
  generatedAt: string
}

export function summaryCachePath(vltDir: string, name: string): string {
  return join(vltDir, 'cache', 'threads', `${validateThreadName(name)}.summary.json`)
}

/** What the cache holds for this thread, with its staleness; never generates anything. */
export async function cachedSummary(vltDir: string, thread: Thread): Promise<ThreadSummary | null> {
  const cache = await readCache(vltDir, thread.name)
  if (!cache) return null
  const covered = new Set(cache.entryIds)
  const last = thread.entries.at(-1)?.id
  return {
    text: cache.text,
    upToEntry: cache.lastEntryId,
    stale: last !== cache.lastEntryId || thread.entries.some((entry) => !covered.has(entry.id)),
    generatedBy: cache.generatedBy,
  }
}

/** The thread's up-to-date summary, calling the summariser only for entries the cache lacks. */
export async function summarizeThread(vltDir: string, thread: Thread, summarizer: Summarizer): Promise<ThreadSummary> {
  const last = thread.entries.at(-1)
  if (!last) return { text: '', upToEntry: null, stale: false, generatedBy: summarizer.kind }
  const cache = await readCache(vltDir, thread.name)
  const present = new Set(thread.entries.map((entry) => entry.id))
  // Reusable only if written by the same kind of summariser and nothing it covered has been removed.
  const reusable = cache && cache.generatedBy === summarizer.kind && cache.entryIds.every((id) => present.has(id)) ? cache : undefined
  const covered = new Set(reusable?.entryIds)
  const fresh = thread.entries.filter((entry) => !covered.has(entry.id))
  if (reusable && fresh.length === 0) return { text: reusable.text, upToEntry: last.id, stale: false, generatedBy: reusable.generatedBy }
  // Entries are read redacted, but a summariser may still echo one written before redaction existed.
  const text = redactSecrets(await summarizer.summarize(reusable?.text ?? null, fresh)).text
  const record: SummaryCache = {
    version: 1,
    text,
    lastEntryId: last.id,
    entryIds: thread.entries.map((entry) => entry.id),
    generatedBy: summarizer.kind,
    generatedAt: new Date().toISOString(),
  }
  // A lost cache only costs a regeneration: no fsync, and none in a `.vlt/` that cannot be written.
  await unlessUnwritable(() => writeFileAtomic(summaryCachePath(vltDir, thread.name), Buffer.from(`${JSON.stringify(record)}\n`), { durable: false }))
  return { text, upToEntry: last.id, stale: false, generatedBy: summarizer.kind }
}

/**
 * The summary every reader gets — `thread read --summary`, MCP thread_read, the oracle's threads
 * path: written by the summarise role's model of the configuration when there is one, else
 * extractively; a model that cannot be set up or cannot answer leaves the extractive summary, and
 * `warn` hears why.
 */
export async function readerSummary(root: string, vltDir: string, thread: Thread, warn: (message: string) => void): Promise<ThreadSummary> {
  let llm: LlmClient | null = null
  try {
    llm = createLlmClient((await loadConfig(root)).llm, { role: 'summarise' })
  } catch (error) {
    if (!(error instanceof VltError)) throw error
    warn(`${error.message}; using the extractive summary`)
  }
  try {
    return await summarizeThread(vltDir, thread, chooseSummarizer(llm))
  } catch (error) {
    if (!(error instanceof LlmUnavailableError)) throw error
    warn(`${error.message}; using the extractive summary`)
    return summarizeThread(vltDir, thread, new ExtractiveSummarizer())
  }
}

async function readCache(vltDir: string, name: string): Promise<SummaryCache | undefined> {
  const text = (await readFileConfined(summaryCachePath(vltDir, name)))?.toString('utf8')
  if (text === undefined) return undefined
  try {
    const value = JSON.parse(text) as Partial<SummaryCache>
    const valid =
      value.version === 1 &&
      typeof value.text === 'string' &&
      typeof value.lastEntryId === 'string' &&
      Array.isArray(value.entryIds) &&
      value.entryIds.every((id) => typeof id === 'string') &&
      (value.generatedBy === 'llm' || value.generatedBy === 'extractive')
    // An unreadable cache is regenerated, like every cache under .vlt/.
    return valid ? (value as SummaryCache) : undefined
  } catch {
    return undefined
  }
}
