import type { MessageTerms } from './message-index.js'

/** One commit as `git log` describes it (paths as they were at that commit). */
export interface ParsedCommit {
  hash: string
  /** Author date, Unix seconds. */
  time: number
  author: string
  /** The first paragraph, on one line (what `git log --format=%s` shows). */
  subject: string
  /** The rest of the message, trailers included, cut at MAX_BODY_CHARS. */
  body: string
  files: CommitFile[]
}

/** A commit as the commit index stores it: what git said, and its message analysed for search. */
export interface CommitRecord extends ParsedCommit {
  terms: MessageTerms
}

/** A file the commit changed, from `git log --raw -M`. */
export interface CommitFile {
  /** A added, M modified, D deleted, R renamed (from `from`), C copied (from `from`), T type changed. */
  status: 'A' | 'M' | 'D' | 'R' | 'C' | 'T'
  path: string
  /** The source of a rename or copy. */
  from?: string
  /**
   * Names of the functions, classes, methods the commit's hunks fall in (git's hunk headers with
   * its language-aware function patterns), distinct, in the order first seen. Source files only.
   */
  symbols?: string[]
}

/** Message bodies past this many characters (generated changelogs, squashed histories) are cut. */
export const MAX_BODY_CHARS = 4000
/** Hunk symbols kept per file: a commit that reformats a whole module names every function in it. */
export const MAX_SYMBOLS_PER_FILE = 24
