/**
 * Commits as oracle evidence: a commit found through the symbol, the cited lines or the question's
 * words, with its message and files (the git primitives live in src/core/git/history.ts).
 */
import { commitText, type Commit } from '../git/index.js'
import { makeSource, type Candidate } from './candidate.js'
import { coverage } from './relevance.js'

/**
 * A commit as evidence; relevance is exact for commits found through the symbol or the cited lines.
 * `similar`: a past commit whose message resembles the question and that changed a file it is
 * about (the commit index, through file-level search).
 */
export function commitCandidate(commit: Commit, method: 'pickaxe' | 'lines' | 'message' | 'similar', score: number, terms: readonly string[]): Candidate {
  const content = commitText(commit)
  return {
    source: makeSource('git', commit.hash, 'log', score, content, {
      commit: commit.hash,
      author: commit.author,
      date: commit.date,
      subject: commit.subject,
      files: commit.files,
      found: method,
      boundary: commit.boundary,
    }),
    path: `git:${method}`,
    relevance: method === 'message' || method === 'similar' ? coverage(terms, `${commit.subject}\n${commit.body}`) : 1,
    exact: method !== 'message' && method !== 'similar',
  }
}
