/**
 * The commit index: HEAD's history (messages, changed files with renames followed, the functions
 * their hunks touched) under `.vlt/commits/`, kept current by every sync, and the retrieval it
 * serves — similar past commits and co-change — for word queries (src/core/query/search).
 * Not to be confused with src/core/history, which is the agents' (Claude Code) history.
 */
export { syncCommits, type CommitsContext, type CommitSyncOptions, type CommitSyncResult } from './sync.js'
export { loadCommitHistory, CommitHistory, type HistoryCommit, type HistoryFile, type SimilarCommit } from './history.js'
export { voteForFiles, coChanged, HISTORY_VOTE, CO_CHANGE, type FileVote, type CommitSupport, type HistoryVoteParams, type CoChangeParams } from './retrieval.js'
export { readCommitIndex, commitIndexBytes, inspectCommitIndex, type CommitIndexRecord } from './store.js'
export type { CommitRecord, CommitFile } from './types.js'
