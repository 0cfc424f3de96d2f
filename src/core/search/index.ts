export { analyzeChunks, analyzeFields, analyzeQuery, FIELD_WEIGHTS, type AnalyzedChunks, type AnalyzedDoc, type TermCounts } from './analyze.js'
export { Bm25Index, BM25_B, BM25_K1, type Bm25Parts, type Bm25Recovery, type Bm25Snapshot, type SearchHit, type SearchOptions } from './bm25.js'
export { StoredPostings, type StoredRun } from './stored.js'
