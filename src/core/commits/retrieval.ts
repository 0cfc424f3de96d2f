/**
 * What HEAD's history says about a request in words:
 *
 *  - similar past commits vote for the files they changed: each of the top `commits` messages by
 *    BM25 gives its files its similarity (relative to the best match), divided by the square root
 *    of how many files it changed (a one-file fix says more than a 30-file refactor) and discounted
 *    by age (a commit `halfLifeDays` older than HEAD's newest counts half);
 *  - co-change: files that changed together with strong candidates — for a seed file, the share
 *    of its commits that also changed the other file.
 *
 * Paths are today's (renames followed); files that no longer exist are the caller's to drop.
 */
import type { CommitHistory, HistoryCommit, SimilarCommit } from './history.js'

export interface HistoryVoteParams {
  /** Similar commits that vote. */
  commits: number
  /** Exponent of the file count a vote is divided by (0.5: square root). */
  specificity: number
  /** Age at which a vote counts half; 0 = no discount. */
  halfLifeDays: number
}

/** Measured on the localize bench's tuning half (see docs/architecture.md). */
export const HISTORY_VOTE: HistoryVoteParams = { commits: 20, specificity: 0.5, halfLifeDays: 1460 }

export interface CommitSupport {
  commit: HistoryCommit
  /** This commit's vote for the file. */
  weight: number
}

export interface FileVote {
  path: string
  score: number
  /** The commits that voted, strongest first. */
  support: CommitSupport[]
  /** Hunk symbols of the voting commits in this file, with the weight of the votes that named them. */
  symbols: Map<string, number>
}

/**
 * Files voted for by `similar` commits (history.similar's, or a fusion of it with vector
 * similarity), best first. `admit` drops files (gone today, filtered out).
 */
export function voteForFiles(history: CommitHistory, similar: readonly SimilarCommit[], admit: (path: string) => boolean, params: HistoryVoteParams = HISTORY_VOTE): FileVote[] {
  if (similar.length === 0) return []
  const best = similar[0]!.score
  const newest = history.commits[0]?.time ?? 0
  const votes = new Map<string, FileVote>()
  for (const { commit, score } of similar) {
    const files = commit.files.filter((file) => file.status !== 'D')
    if (files.length === 0) continue
    const age = Math.max(0, newest - commit.time) / 86_400
    const recency = params.halfLifeDays > 0 ? Math.pow(0.5, age / params.halfLifeDays) : 1
    const weight = ((score / best) * recency) / Math.pow(files.length, params.specificity)
    for (const file of files) {
      if (!admit(file.path)) continue
      let vote = votes.get(file.path)
      if (!vote) {
        vote = { path: file.path, score: 0, support: [], symbols: new Map() }
        votes.set(file.path, vote)
      }
      vote.score += weight
      vote.support.push({ commit, weight })
      for (const symbol of file.symbols) vote.symbols.set(symbol, (vote.symbols.get(symbol) ?? 0) + weight)
    }
  }
  return [...votes.values()].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
}

export interface CoChangeParams {
  /** Commits changing more files than this say nothing about which belong together. */
  maxFiles: number
  /** A seed needs this many commits before its co-changes mean anything. */
  minCommits: number
}

export const CO_CHANGE: CoChangeParams = { maxFiles: 12, minCommits: 2 }

/**
 * For each seed (a path and its weight), the files changed in the same commits, weighted by the
 * share of the seed's commits that changed them; summed over seeds, best first. Seeds themselves
 * are scored too (a seed that co-changes with another seed gains).
 */
export function coChanged(history: CommitHistory, seeds: ReadonlyArray<{ path: string; weight: number }>, admit: (path: string) => boolean, params: CoChangeParams = CO_CHANGE): Array<{ path: string; score: number }> {
  const scores = new Map<string, number>()
  for (const seed of seeds) {
    const positions = history.commitsOf(seed.path)
    const together = new Map<string, number>()
    let counted = 0
    for (const position of positions) {
      const files = history.commits[position]!.files
      if (files.length > params.maxFiles) continue
      counted++
      for (const file of files) if (file.path !== seed.path && file.status !== 'D') together.set(file.path, (together.get(file.path) ?? 0) + 1)
    }
    if (counted < params.minCommits) continue
    for (const [path, count] of together) {
      if (!admit(path)) continue
      scores.set(path, (scores.get(path) ?? 0) + (seed.weight * count) / counted)
    }
  }
  return [...scores].map(([path, score]) => ({ path, score })).sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
}
