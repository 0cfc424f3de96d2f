/** Agent conversation history: Claude Code transcripts of this repository, ingested under `.vlt/history/`. */
export { ingestHistory, refreshHistory, type IngestOptions, type IngestResult } from './ingest.js'
export { fileHistory, queryHistory, type FileHistoryResult, type FileSession, type HistoryHit, type HistorySearchOptions, type HistorySearchResult } from './search.js'
export { searchHistory, type HistoryMetadata, type HistoryRetrievalOptions } from './retrieval.js'
export type { RetrievalResult } from '../sources/retrieval.js'
export { claudeConfigDir, projectDirName } from './locate.js'
export type { Exchange, FileMention, ToolCall } from './types.js'
