/**
 * The localize benchmark's reference indexes, kept by the bench itself (not the product): plain
 * BM25 over whole files — the baseline every ranker is compared with — and the past commits'
 * messages the history prototype of the issue's note searched. Both use the project's own
 * analyser (code-aware tokens: identifiers split and stemmed, stopwords dropped) and standard BM25
 * (k1 1.2, b 0.75), and both follow the case's parent incrementally: only changed files are read
 * again, and the history is parsed once per repository and masked to what the parent reaches.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { analyzeChunks, analyzeQuery, Bm25Index, BM25_B, BM25_K1 } from '../src/core/search/index.js'
import type { Chunk } from '../src/core/parse/types.js'
import type { FileSource } from '../src/core/query/context.js'

export interface Scored {
  path: string
  score: number
}

/** A whole text as one chunk, so the analyser sees it as a single document with body weight 1. */
function asOneChunk(text: string): Chunk {
  return {
    kind: 'module', name: '', qualifiedName: '', language: 'text', startLine: 1, endLine: 1, imports: '',
    classContext: '', signature: '', decorators: '', docstring: '', body: text, tokenCount: 0,
  }
}

/**
 * One BM25 document per file: its whole text plus its path's words (Bm25Index folds the path in at
 * weight 2), over exactly the files the product's index selects.
 */
export class WholeFileBm25 {
  private readonly index = new Bm25Index()
  private readonly blobs = new Map<string, string>()

  /** Brings the index to `files` as checked out in `dir`; returns how many files were (re)analysed. */
  update(dir: string, files: ReadonlyMap<string, FileSource>): number {
    for (const path of this.blobs.keys()) {
      if (files.has(path)) continue
      this.index.removeFile(path)
      this.blobs.delete(path)
    }
    let analysed = 0
    for (const [path, source] of files) {
      if (this.blobs.get(path) === source.blob) continue
      this.index.addFile(path, analyzeChunks([asOneChunk(readFileSync(join(dir, path), 'utf8'))]))
      this.blobs.set(path, source.blob)
      analysed++
    }
    return analysed
  }

  /** Every matching file, best first. */
  search(query: string): Scored[] {
    return this.index.search(query, { limit: Math.max(1, this.index.fileCount) }).map(({ path, score }) => ({ path, score }))
  }
}

export interface PastCommit {
  sha: string
  /** Paths it touched (`git log --name-only`: a rename's new path). */
  files: string[]
}

/** Postings of one term: commit numbers and term frequencies, in commit order. */
interface Postings {
  commits: number[]
  tfs: number[]
}

/**
 * Every non-merge commit reachable from the pin, its message (subject and body) a BM25 document,
 * parsed from one `git log`. `reachFrom` masks it to the commits a case's parent reaches, and
 * scores use that set's statistics only, so nothing newer than the parent counts in any way.
 */
export class CommitMessages {
  private readonly commits: PastCommit[] = []
  private readonly lengths: number[] = []
  private readonly postings = new Map<string, Postings>()
  private readonly numbers = new Map<string, number>()
  private reachable = new Uint8Array(0)
  private reachableCount = 0
  private reachableLength = 0

  constructor(dir: string, head: string) {
    const log = execFileSync('git', ['log', '--no-merges', '--name-only', '--format=%x1e%H%n%B%x1f', head], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 30 })
    for (const block of log.split('\x1e').slice(1)) {
      const [commit = '', files = ''] = block.split('\x1f')
      const newline = commit.indexOf('\n')
      this.add(commit.slice(0, newline), commit.slice(newline + 1), files.split('\n').filter(Boolean))
    }
  }

  /** Limits every later `similar` to the commits `commit` reaches (itself included). */
  reachFrom(dir: string, commit: string): void {
    this.reachable = new Uint8Array(this.commits.length)
    this.reachableCount = 0
    this.reachableLength = 0
    const shas = execFileSync('git', ['rev-list', '--no-merges', commit], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n')
    for (const sha of shas) {
      const n = this.numbers.get(sha)
      if (n === undefined) continue
      this.reachable[n] = 1
      this.reachableCount++
      this.reachableLength += this.lengths[n]!
    }
  }

  /** The `limit` reachable commits whose messages score highest for `query`, best first. */
  similar(query: string, limit: number): Array<{ commit: PastCommit; score: number }> {
    const scores = new Map<number, number>()
    const n = this.reachableCount
    const tfPerLength = (BM25_K1 * BM25_B * n) / Math.max(1, this.reachableLength)
    for (const term of analyzeQuery(query)) {
      const postings = this.postings.get(term)
      if (!postings) continue
      const live = postings.commits.filter((c) => this.reachable[c] === 1)
      if (live.length === 0) continue
      const idf = Math.log(1 + (n - live.length + 0.5) / (live.length + 0.5))
      postings.commits.forEach((c, i) => {
        if (this.reachable[c] !== 1) return
        const tf = postings.tfs[i]!
        const add = (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B) + tfPerLength * this.lengths[c]!)
        scores.set(c, (scores.get(c) ?? 0) + add)
      })
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit)
      .map(([c, score]) => ({ commit: this.commits[c]!, score }))
  }

  private add(sha: string, message: string, files: string[]): void {
    const number = this.commits.length
    this.commits.push({ sha, files })
    this.numbers.set(sha, number)
    const analysed = analyzeChunks([asOneChunk(message)])
    const terms = analysed.terms.split(' ')
    const doc = analysed.docs[0]!
    this.lengths.push(doc.length)
    doc.terms.forEach((t, i) => {
      const term = terms[t]!
      let postings = this.postings.get(term)
      if (!postings) this.postings.set(term, (postings = { commits: [], tfs: [] }))
      postings.commits.push(number)
      postings.tfs.push(doc.tfs[i]!)
    })
  }
}
