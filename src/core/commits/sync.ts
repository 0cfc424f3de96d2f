/**
 * Keeping the commit index equal to HEAD's history. Three cases:
 *
 *  - HEAD is the indexed commit: nothing to do (one small record read and a stat per pack).
 *  - HEAD descends from it (commits, a fast-forward, a merge): the commits in between are read
 *    with one `git log HEAD ^indexed` and appended as a pack; small packs are merged as they
 *    accumulate, so their number stays logarithmic.
 *  - Anything else (a rebase, reset or amend, a checkout of an older or unrelated commit, a
 *    changed max_commits, a damaged pack): `git rev-list HEAD` says which commits the history now
 *    has; records still in it are kept, the rest dropped, and only the missing ones are read.
 *
 * So nothing newer than HEAD, and nothing from another branch, is ever in the index. The caller
 * holds the index lock.
 */
import { GitError, runInRepo, type Repo } from '../git/index.js'
import { unlessCorrupt, CorruptFileError } from '../errors.js'
import type { RemoteCache } from '../cache/index.js'
import type { Progress } from '../cli/progress.js'
import type { VltPaths } from '../store/index.js'
import { readCommits, type CommitSelection } from './log.js'
import { pushRemotePacks, takeRemotePacks } from './remote.js'
import { analyzeMessage } from './message-index.js'
import { confinedSize, packIdOfPath, readCommitIndex, readPack, removeOtherPacks, writeCommitIndex, writePack, type CommitIndexRecord, type PackRef } from './store.js'
import type { CommitRecord } from './types.js'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'

/** What the commit index needs of the index context (kept structural: the code index imports this module, not the reverse). */
export interface CommitsContext {
  repo: Repo
  paths: VltPaths
  /** `[commits] max_commits`: 0 = every commit. */
  maxCommits: number
  /** The remote cache ([cache] remote): a history none of which is here is taken from it when it has HEAD's; written back with push. */
  remote?: RemoteCache
}

export interface CommitSyncOptions {
  warn: (message: string) => void
  progress?: Progress
  /** Packs found damaged by a reader: rebuilt from git whatever their checksum says now. */
  distrust?: ReadonlySet<string>
  /** Read every commit from git again (`coderag init --force`). */
  force?: boolean
  /** Commits per pack at most (default MAX_PACK_COMMITS). */
  packCommits?: number
}

export interface CommitSyncResult {
  mode: 'unchanged' | 'incremental' | 'rebuilt'
  /** Commits read from git by this sync. */
  added: number
  /** Commits no longer in HEAD's history (or beyond max_commits) that were dropped. */
  dropped: number
  /** Commits in the index afterwards. */
  commits: number
  durationMs: number
}

/** Packs kept separate at most; past it the newest are merged (up to MAX_PACK_COMMITS each). */
const MAX_PACKS = 24
/**
 * Commits per pack at most: a long history is written in packs of this size as git streams it, so
 * reading a million commits never holds them all (scrapy's 9,276 fit in one).
 */
export const MAX_PACK_COMMITS = 16_384
/** With max_commits set, appending goes on until the index holds this much more; then it is trimmed exactly. */
const TRIM_SLACK = 1.25

export async function syncCommits(ctx: CommitsContext, opts: CommitSyncOptions): Promise<CommitSyncResult> {
  const result = await syncHere(ctx, opts)
  const { remote, repo, paths, maxCommits } = ctx
  if (remote?.pushing && repo.head.commit !== null) {
    const index = await readCommitIndex(paths)
    if (index?.head === repo.head.commit) await pushRemotePacks(remote, paths, index.head, maxCommits, index.packs)
  }
  return result
}

async function syncHere(ctx: CommitsContext, opts: CommitSyncOptions): Promise<CommitSyncResult> {
  const started = Date.now()
  const { paths, repo, maxCommits } = ctx
  const head = repo.head.commit
  const index = opts.force ? undefined : await unlessCorrupt(
    () => readCommitIndex(paths),
    (error) => {
      opts.warn(`warning: ${error.message}; rebuilding the commit index`)
      return undefined
    },
  )
  const total = (record: CommitIndexRecord | undefined): number => record?.packs.reduce((sum, pack) => sum + pack.commits, 0) ?? 0
  const done = (mode: CommitSyncResult['mode'], added: number, dropped: number, record: CommitIndexRecord | undefined): CommitSyncResult => ({
    mode,
    added,
    dropped,
    commits: total(record),
    durationMs: Date.now() - started,
  })

  const trusted = index !== undefined && index.maxCommits === maxCommits && !index.packs.some((pack) => opts.distrust?.has(pack.id)) && (await packsPresent(paths, index.packs))
  if (trusted && index.head === head) return done('unchanged', 0, 0, index)

  if (head === null) {
    // An unborn branch (or every commit gone): an empty history.
    const empty: CommitIndexRecord = { head: null, maxCommits, packs: [], updatedAt: new Date().toISOString() }
    await writeCommitIndex(paths, empty)
    await removeOtherPacks(paths, [])
    return done('rebuilt', 0, total(index), empty)
  }

  if (trusted && index.head !== null && (maxCommits === 0 || total(index) < maxCommits * TRIM_SLACK) && (await isAncestor(repo, index.head, head))) {
    try {
      return await append(ctx, opts, head, { ...index, head: index.head }, done)
    } catch (error) {
      // A damaged pack among those merged: the rebuild reads its commits from git again.
      if (!(error instanceof CorruptFileError)) throw error
      opts.warn(`warning: ${error.message}; reading its commits from git again`)
      return rebuild(ctx, head, index, { ...opts, distrust: new Set([...(opts.distrust ?? []), packIdOfPath(error.path)]) }, done)
    }
  }
  return rebuild(ctx, head, index, opts, done)
}

/** HEAD descends from the indexed commit: read the commits in between. */
async function append(ctx: CommitsContext, opts: CommitSyncOptions, head: string, index: CommitIndexRecord & { head: string }, done: Done): Promise<CommitSyncResult> {
  const { paths, maxCommits } = ctx
  const added = await collect(ctx, opts, [{ revisions: [head, `^${index.head}`] }])
  const packs = await mergeSmallPacks(paths, [...added.packs, ...index.packs], opts.packCommits ?? MAX_PACK_COMMITS)
  const record: CommitIndexRecord = { head, maxCommits, packs, updatedAt: new Date().toISOString() }
  await writeCommitIndex(paths, record)
  if (packs.length !== index.packs.length + added.packs.length) await removeOtherPacks(paths, packs)
  return done('incremental', added.commits, 0, record)
}

type Done = (mode: CommitSyncResult['mode'], added: number, dropped: number, record: CommitIndexRecord) => CommitSyncResult

/** The rewritten-history case: keep what is still reachable, drop the rest, read what is missing. */
async function rebuild(
  ctx: CommitsContext,
  head: string,
  index: CommitIndexRecord | undefined,
  opts: CommitSyncOptions,
  done: Done,
): Promise<CommitSyncResult> {
  const { paths, repo, maxCommits } = ctx
  const { hashes: wanted, roots } = await revList(repo, head, maxCommits)
  const wantedSet = new Set(wanted)
  const kept: PackRef[] = []
  const have = new Set<string>()
  let dropped = 0
  for (const pack of index?.packs ?? []) {
    if (opts.distrust?.has(pack.id)) continue
    let commits: readonly CommitRecord[]
    try {
      commits = await readPack(paths, pack.id)
    } catch (error) {
      if (!(error instanceof CorruptFileError)) throw error
      opts.warn(`warning: ${error.message}; reading its commits from git again`)
      continue
    }
    const still = commits.filter((commit) => wantedSet.has(commit.hash) && !have.has(commit.hash))
    dropped += commits.length - still.length
    for (const commit of still) have.add(commit.hash)
    if (still.length === commits.length) kept.push(pack)
    else if (still.length > 0) kept.push(await writePack(paths, still))
  }
  if (kept.length === 0 && ctx.remote) {
    const taken = await takeRemotePacks(ctx.remote, paths, head, maxCommits, wanted)
    if (taken.length > 0) {
      const record: CommitIndexRecord = { head, maxCommits, packs: taken, updatedAt: new Date().toISOString() }
      await writeCommitIndex(paths, record)
      await removeOtherPacks(paths, taken)
      return done('rebuilt', 0, dropped, record)
    }
  }
  const missing = wanted.filter((hash) => !have.has(hash))
  const added = missing.length > 0 ? await collect(ctx, opts, readsOf(missing, roots), missing.length) : { packs: [], commits: 0 }
  const packs = await mergeSmallPacks(paths, [...added.packs, ...kept], opts.packCommits ?? MAX_PACK_COMMITS)
  const record: CommitIndexRecord = { head, maxCommits, packs, updatedAt: new Date().toISOString() }
  await writeCommitIndex(paths, record)
  await removeOtherPacks(paths, packs)
  return done('rebuilt', added.commits, dropped, record)
}

interface Collected {
  /** Newest first, as git listed the commits. */
  packs: PackRef[]
  commits: number
}

/** Commits a reader of a long history takes at least (about a second of git's time). */
const MIN_COMMITS_PER_READER = 2_000
const MAX_READERS = 4

/**
 * The reads that bring in `hashes` (newest first): consecutive slices, one `git log` each, run
 * side by side. git's patch work (loading and diffing each changed blob) is almost all of a
 * first build's time and one process uses one core: on redis's 10,839 commits, 8 CPU-s of it.
 */
function readsOf(hashes: readonly string[], roots: ReadonlySet<string>): CommitSelection[] {
  const readers = Math.max(1, Math.min(availableParallelism(), MAX_READERS, Math.floor(hashes.length / MIN_COMMITS_PER_READER)))
  const size = Math.ceil(hashes.length / readers)
  const reads: CommitSelection[] = []
  for (let from = 0; from < hashes.length; from += size) reads.push({ listed: hashes.slice(from, from + size), roots })
  return reads
}

/**
 * Reads commits from git, the reads side by side, and writes each read's commits as packs of
 * MAX_PACK_COMMITS at most while git streams; the packs come back in the reads' order.
 */
async function collect(ctx: CommitsContext, opts: CommitSyncOptions, reads: readonly CommitSelection[], expected?: number): Promise<Collected> {
  const { progress } = opts
  const packCommits = opts.packCommits ?? MAX_PACK_COMMITS
  const written: Array<Array<Promise<PackRef>>> = reads.map(() => [])
  let commits = 0
  // Worth a bar only for a large read (a first index of a long history).
  const show = progress && expected !== undefined && expected >= 500
  if (show) progress.start(expected, 'Indexing commits', 'commits')
  try {
    await Promise.all(reads.map(async (read, i) => {
      let batch: CommitRecord[] = []
      await readCommits(ctx.repo, read, {
        attributesFile: join(ctx.paths.commits, 'diff-attributes'),
        onCommit(commit) {
          batch.push({ ...commit, terms: analyzeMessage(commit.subject, commit.body, commit.files.flatMap((file) => file.symbols ?? [])) })
          commits++
          if (show) progress.tick()
          if (batch.length === packCommits) {
            written[i]!.push(writePack(ctx.paths, batch))
            batch = []
          }
        },
      })
      if (batch.length > 0) written[i]!.push(writePack(ctx.paths, batch))
    }))
  } finally {
    // Settled before leaving, so that no write outlives a failed read unobserved.
    await Promise.allSettled(written.flat())
    if (show) progress.stop()
  }
  return { packs: await Promise.all(written.flat()), commits }
}

/**
 * Merges the newest packs while the newest is at least half the size of the one before it (a
 * binary counter: n one-commit updates leave O(log n) packs) or there are more than MAX_PACKS —
 * as long as the merged pack stays within `packCommits`.
 */
async function mergeSmallPacks(paths: VltPaths, packs: PackRef[], packCommits: number): Promise<PackRef[]> {
  const result = [...packs]
  while (result.length >= 2 && result[0]!.commits + result[1]!.commits <= packCommits && (result[1]!.commits <= 2 * result[0]!.commits || result.length > MAX_PACKS)) {
    const [newer, older] = [result[0]!, result[1]!]
    const merged = await writePack(paths, [...(await readPack(paths, newer.id)), ...(await readPack(paths, older.id))])
    result.splice(0, 2, merged)
  }
  return result
}

async function packsPresent(paths: VltPaths, packs: readonly PackRef[]): Promise<boolean> {
  const sizes = await Promise.all(packs.map((pack) => confinedSize(paths.commitPack(pack.id))))
  return sizes.every((size) => size !== undefined)
}

async function isAncestor(repo: Repo, ancestor: string, descendant: string): Promise<boolean> {
  try {
    await runInRepo(repo, ['merge-base', '--is-ancestor', ancestor, descendant])
    return true
  } catch (error) {
    // 1: not an ancestor; anything else (an object gone after a gc): treat as a rewrite.
    if (error instanceof GitError) return false
    throw error
  }
}

/**
 * HEAD's non-merge history, newest first, at most maxCommits (0 = all), and which of its commits
 * have no parent (said by the same walk: a commit with one is listed with it).
 */
async function revList(repo: Repo, head: string, maxCommits: number): Promise<{ hashes: string[]; roots: Set<string> }> {
  const args = ['rev-list', '--no-merges', '--parents', ...(maxCommits > 0 ? [`--max-count=${maxCommits}`] : []), head, '--']
  const out = (await runInRepo(repo, args)).toString('latin1')
  const hashes: string[] = []
  const roots = new Set<string>()
  for (const line of out.split('\n')) {
    if (line.length === 0) continue
    const space = line.indexOf(' ')
    const hash = space < 0 ? line : line.slice(0, space)
    hashes.push(hash)
    if (space < 0) roots.add(hash)
  }
  return { hashes, roots }
}
