/**
 * The commit index loaded for queries: HEAD's commits with every changed path translated to the
 * name that file has today (renames followed from HEAD backwards), a BM25 index over their
 * messages, and which commits changed each file. Loaded once per process and HEAD (a warm index
 * keeps it across queries), rebuilt from git with one warning when a pack is damaged.
 */
import { CorruptFileError, VltError } from '../errors.js'
import { withLock } from '../store/index.js'
import { MessageIndex, type MessageHit, type MessageTerms } from './message-index.js'
import { readCommitIndex, readPack } from './store.js'
import { syncCommits, type CommitsContext } from './sync.js'
import type { CommitFile, CommitRecord } from './types.js'

export interface HistoryFile {
  /** The file's path today (it may since have been deleted: callers check against the tree). */
  path: string
  status: CommitFile['status']
  symbols: readonly string[]
}

export interface HistoryCommit {
  hash: string
  /** Author date, Unix seconds. */
  time: number
  author: string
  subject: string
  body: string
  files: HistoryFile[]
}

export interface SimilarCommit {
  commit: HistoryCommit
  /** Position in `commits` (0 = newest). */
  index: number
  score: number
}

export class CommitHistory {
  private messages: MessageIndex | undefined
  private byFile: Map<string, number[]> | undefined

  /** `commits` newest first; `terms[i]` is commit i's analysed message. */
  constructor(
    readonly head: string | null,
    readonly commits: readonly HistoryCommit[],
    private readonly terms: readonly MessageTerms[],
  ) {}

  get size(): number {
    return this.commits.length
  }

  /** The commits whose message (and hunk names) match `query` best, best first. */
  similar(query: string, limit: number): SimilarCommit[] {
    this.messages ??= new MessageIndex(this.terms)
    return this.messages.search(query, limit).map((hit: MessageHit) => ({ commit: this.commits[hit.doc]!, index: hit.doc, score: hit.score }))
  }

  /** Positions (newest first) of the commits that changed `path` (today's name). */
  commitsOf(path: string): readonly number[] {
    if (!this.byFile) {
      const byFile = new Map<string, number[]>()
      this.commits.forEach((commit, i) => {
        for (const file of commit.files) {
          const list = byFile.get(file.path)
          if (!list) byFile.set(file.path, [i])
          else if (list[list.length - 1] !== i) list.push(i)
        }
      })
      this.byFile = byFile
    }
    return this.byFile.get(path) ?? []
  }
}

/**
 * Paths as they are named today: walking from HEAD back, a rename from A to B at some commit
 * means that, in every older commit, A is what is now called whatever B is called today.
 */
export function followRenames(records: readonly CommitRecord[]): HistoryCommit[] {
  const today = new Map<string, string>()
  return records.map((record) => {
    const files: HistoryFile[] = record.files.map((file) => ({ path: today.get(file.path) ?? file.path, status: file.status, symbols: file.symbols ?? [] }))
    record.files.forEach((file, i) => {
      if (file.status === 'R' && file.from !== undefined) today.set(file.from, files[i]!.path)
    })
    return { hash: record.hash, time: record.time, author: record.author, subject: record.subject, body: record.body, files }
  })
}

const loaded = new Map<string, { key: string; history: CommitHistory }>()

/**
 * HEAD's commit history. An index of another HEAD (a caller that did not sync) or none at all is
 * brought up to date first; a damaged pack is reported once and rebuilt from git — both under the
 * index lock — before the history is returned. Cached per `.vlt/` directory until the index names
 * other packs.
 */
export async function loadCommitHistory(ctx: CommitsContext, warn: (message: string) => void): Promise<CommitHistory> {
  const head = ctx.repo.head.commit
  for (let attempt = 0; ; attempt++) {
    // A damaged index is the sync's to report (it rebuilds it).
    const index = await readCommitIndex(ctx.paths).catch((error: unknown) => {
      if (error instanceof CorruptFileError && attempt === 0) return undefined
      throw error
    })
    let distrust: string[] = []
    if (index && index.head === head && index.maxCommits === ctx.maxCommits) {
      const key = `${index.head}:${index.maxCommits}:${index.packs.map((pack) => pack.id).join(',')}`
      const cached = loaded.get(ctx.paths.root)
      if (cached?.key === key) return cached.history
      try {
        const records: CommitRecord[] = []
        for (const pack of index.packs) records.push(...(await readPack(ctx.paths, pack.id)))
        const kept = ctx.maxCommits > 0 && records.length > ctx.maxCommits ? records.slice(0, ctx.maxCommits) : records
        const history = new CommitHistory(index.head, followRenames(kept), kept.map((record) => record.terms))
        loaded.set(ctx.paths.root, { key, history })
        return history
      } catch (error) {
        if (!(error instanceof CorruptFileError)) throw error
        if (attempt > 0) throw new VltError(`${error.message} (still, after rebuilding it from git)`)
        warn(`warning: ${error.message}; rebuilding it from git`)
        distrust = index.packs.map((pack) => pack.id).filter((id) => error.path === ctx.paths.commitPack(id))
      }
    } else if (attempt > 0) {
      throw new VltError(`the commit index at ${ctx.paths.commitIndex} does not describe HEAD after a sync`)
    }
    await withLock(ctx.paths.root, () => syncCommits(ctx, { warn, distrust: new Set(distrust) }), { waitMs: 120_000 })
  }
}
