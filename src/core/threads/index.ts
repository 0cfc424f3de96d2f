/** Development threads: markdown files under `.vlt/threads/`, committed, merged by union, summarised lazily. */
export { defaultAuthor } from './author.js'
export { displayEntry } from './display.js'
export { ENTRY_TYPES, isOracleSessionThread, KNOWN_AUTHORS, ORACLE_SESSION_PREFIX, validateEntryType, validateThreadName, type Entry, type EntryType } from './format.js'
export { searchThreads, type ThreadHit, type ThreadSearchOptions } from './search.js'
export { listThreads, type ThreadListing } from './listing.js'
export { searchThreadsForOracle, type ThreadMetadata, type ThreadRetrievalOptions } from './retrieval.js'
export {
  appendEntry,
  createThread,
  readThread,
  threadNames,
  threadPath,
  THREADS_GITATTRIBUTES,
  type NewEntry,
  type NewThread,
  type Thread,
} from './store.js'
export { cachedSummary, readerSummary, summarizeThread, summaryCachePath, type ThreadSummary } from './summary.js'
export { chooseSummarizer, ExtractiveSummarizer, LlmSummarizer, MAX_SUMMARY_CHARS, type Summarizer } from './summarizer.js'
