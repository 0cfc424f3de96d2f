import { statSync } from 'node:fs'
import { join } from 'node:path'
import { drainQueue, indexerRunning, queueSummary, readIndexerState, readQueue, type QueueSummary } from '../queue/index.js'
import { unlessCorrupt } from '../errors.js'
import { workingTreeChanges } from '../git/index.js'
import { readRecord, sweepTempFiles, withLock, writeRecord } from '../store/index.js'
import { buildTree, isCurrent, loadIndexedTree, loadManifest, type BuildOptions, type BuildResult } from './build.js'
import { openIndexContext, type IndexContext } from './context.js'
import { countIndexed, countSkipped, type SkippedCounts, type TreeManifest } from './manifest.js'
import { readOverlay, syncOverlay, type Overlay } from './overlay.js'
import { readState, writeState, type IndexState } from './state.js'
import { EXTRACTOR_VERSION } from '../parse/version.js'
import { commitIndexBytes, readCommitIndex, syncCommits, type CommitsContext, type CommitSyncResult } from '../commits/index.js'

export { openIndexContext, type IndexContext } from './context.js'
export type { BuildOptions, BuildResult, IndexedTree } from './build.js'
export { loadIndexedTree } from './build.js'
export type { ManifestFile, SkippedCounts, TreeManifest } from './manifest.js'
export type { Overlay, OverlayFile } from './overlay.js'
export { runQueuedSync, type QueuedSyncResult } from './queued.js'

export interface InitResult {
  treeHash: string
  files: number
  chunks: number
  symbols: number
  edges: number
  skipped: SkippedCounts
  /** Blobs extracted by this run: 0 when everything came from the cache (e.g. a restored CI cache). */
  extracted: number
  /** The commit index of HEAD's history (src/core/commits), brought up to date by the same run. */
  commits: CommitsSummary
  durationMs: number
}

/** What a run did to the commit index. */
export interface CommitsSummary {
  /** Commits in the index afterwards. */
  indexed: number
  /** Read from git by this run. */
  added: number
  /** No longer in HEAD's history (a rebase, a reset, a checkout of an older commit), or past max_commits. */
  dropped: number
  mode: CommitSyncResult['mode']
  durationMs: number
}

export interface SyncResult {
  treeHash: string
  previousTreeHash: string | null
  /** How the committed tree was brought up to date. */
  mode: 'unchanged' | 'incremental' | 'cold' | 'reused'
  /** Paths added, changed or removed in the committed tree since the previous indexed tree. */
  changed: string[]
  /** Paths whose content had to be extracted (cache misses), committed or working tree. */
  extracted: string[]
  overlay: { files: number; extracted: string[] }
  /** Batches the git hooks had queued that this sync covered and removed. */
  queueDrained: number
  commits: CommitsSummary
  durationMs: number
}

/**
 * Builds (or, without --force, reuses) the index of HEAD's tree with its aggregates stored in
 * full, then the working-tree overlay. Verifies what it reuses: a corrupt file is reported and
 * rebuilt here rather than at the next query.
 */
export async function initIndex(cwd: string, opts: BuildOptions): Promise<InitResult> {
  const started = Date.now()
  const ctx = await openIndexContext(cwd)
  return withLock(ctx.paths.root, async () => {
    if (opts.sweep) await sweepTempFiles(ctx.paths.root)
    const state = await readState(ctx.paths, opts.warn)
    const head = ctx.repo.head
    const existing = opts.force || !(await loadReusable(ctx, head.tree, opts.warn)) ? null : await loadIndexedTree(ctx, head.tree, opts)
    let built: BuildResult
    if (existing) {
      built = describeTree(existing.manifest, existing.aggregates.stats().edges)
    } else {
      const base = opts.force ? null : await nearestTree(ctx, state, head.tree, opts)
      built = await buildTree(ctx, head.tree, base, { ...opts, full: true })
    }
    await syncOverlay(ctx, opts, workingTreeChanges(ctx.repo))
    await recordIndexed(ctx, state, built.builtFrom === null ? 'full' : 'incremental')
    const commits = await syncCommitIndex(ctx, opts)
    const { treeHash, files, chunks, symbols, skipped } = built
    return { treeHash, files, chunks, symbols, edges: built.edges ?? 0, skipped, extracted: built.extracted.length, commits, durationMs: Date.now() - started }
  }, lockOptions(opts))
}

/** Brings the index up to date with HEAD and the working tree, touching only what changed. */
export async function syncIndex(cwd: string, opts: BuildOptions): Promise<SyncResult> {
  return syncIndexIn(await openIndexContext(cwd, { syncing: true }), opts)
}

/** syncIndex for a caller that has opened the context already (a query syncs, then reads through the same context). */
export async function syncIndexIn(ctx: IndexContext, opts: BuildOptions): Promise<SyncResult> {
  const started = Date.now()
  // git status runs while the lock, queue and state are read. It is also the look that matches the
  // HEAD this sync builds (read at the same moment): a status taken after the build would compare
  // the working tree with a HEAD that may have moved meanwhile, while the overlay is laid over the
  // tree built here. Edits made during the build are the next sync's, as edits made after it are.
  const earlyChanges = ctx.workingTree ?? workingTreeChanges(ctx.repo)
  earlyChanges.catch(() => {})
  ctx.workingTree = undefined
  return withLock(ctx.paths.root, async () => {
    // Batches queued before this point describe commits up to HEAD at the latest: the sync covers them.
    const queue = await readQueue(ctx.paths.root)
    const state = await readState(ctx.paths, opts.warn)
    const head = ctx.repo.head
    let mode: SyncResult['mode'] = 'unchanged'
    let changed: string[] = []
    let extracted: string[] = []
    if (state.treeHash !== head.tree || state.indexedWith !== indexedWith(ctx)) {
      if (await loadReusable(ctx, head.tree, opts.warn)) {
        mode = 'reused'
      } else {
        const base = await nearestTree(ctx, state, head.tree, opts)
        const built = await buildTree(ctx, head.tree, base, opts)
        mode = built.builtFrom ? 'incremental' : 'cold'
        changed = built.changed
        extracted = built.extracted
      }
      await recordIndexed(ctx, state, mode === 'cold' ? 'full' : 'incremental')
    }
    const overlay = await syncOverlay(ctx, opts, earlyChanges)
    const commits = await syncCommitIndex(ctx, opts)
    const covered = [...queue.batches.map((batch) => batch.id), ...queue.unreadable]
    const queueDrained = covered.length > 0 ? await drainQueue(ctx.paths.root, covered) : 0
    return {
      treeHash: head.tree,
      previousTreeHash: state.treeHash,
      mode,
      changed,
      extracted: [...extracted, ...overlay.extracted],
      overlay: { files: overlay.overlay.files.length, extracted: overlay.extracted },
      queueDrained,
      commits,
      durationMs: Date.now() - started,
    }
  }, lockOptions(opts))
}

export interface StatusResult {
  indexed: boolean
  treeHash: string | null
  headTreeHash: string
  stale: boolean
  files: number
  chunks: number
  symbols: number
  edges: number
  languages: Record<string, number>
  bm25Bytes: number
  vectorBytes: number
  graphBytes: number
  /** Tokens of the default repo map (`git vlt coderag map`) of the indexed tree; null when nothing is indexed. */
  repoMapTokens: number | null
  lastIndexed: string | null
  lastIncremental: string | null
  skipped: SkippedCounts
  overlay: { files: number; headTree: string | null }
  /** Changes the git hooks queued and whether the commit policy makes them due (see `git vlt hooks`). */
  queue: QueueSummary
  /**
   * The commit index of HEAD's history: commits indexed, the commit they are the history of, its
   * bytes on disk, and whether HEAD (or max_commits) has moved since.
   */
  commits: { indexed: number; head: string | null; bytes: number; stale: boolean }
  /** The background indexer hooks start: running or not, and how its last run ended. */
  indexer: { running: boolean; pid: number | null; startedAt: string | null; finishedAt: string | null; lastResult: 'ok' | 'failed' | null; lastError: string | null }
}

/** Reads what is indexed without changing anything (no lock: every file it reads is written atomically). */
export async function indexStatus(cwd: string, warn: (message: string) => void): Promise<StatusResult> {
  const ctx = await openIndexContext(cwd)
  const state = await readState(ctx.paths, warn)
  const manifest = state.treeHash ? await loadManifest(ctx, state.treeHash, warn) : null
  const overlay: Overlay | undefined = manifest ? await readOverlay(ctx) : undefined
  const { files, chunks, symbols, languages } = countIndexed(manifest?.files ?? [])
  const dir = state.treeHash ? ctx.paths.treeDir(state.treeHash) : ''
  const indexer = await readIndexerState(ctx.paths.root)
  const dirty = overlay ? overlay.files.length > 0 || overlay.headTree !== ctx.repo.head.tree : false
  const commitIndex = await unlessCorrupt(() => readCommitIndex(ctx.paths), (error) => {
    warn(`warning: ${error.message}; the next sync rebuilds it`)
    return undefined
  })
  return {
    indexed: manifest !== null,
    treeHash: manifest ? state.treeHash : null,
    headTreeHash: ctx.repo.head.tree,
    stale: manifest === null || state.treeHash !== ctx.repo.head.tree || state.indexedWith !== indexedWith(ctx) || (overlay?.headTree ?? null) !== ctx.repo.head.tree,
    files,
    chunks,
    symbols,
    edges: manifest ? manifest.edges ?? (await deltaEdges(ctx, manifest.treeHash, warn)) : 0,
    languages,
    bm25Bytes: manifest ? fileSize(join(dir, 'bm25.mpk')) : 0,
    vectorBytes: 0,
    graphBytes: manifest ? fileSize(join(dir, 'graph.mpk')) + fileSize(join(dir, 'symbols.mpk')) : 0,
    repoMapTokens: manifest ? await repoMapTokens(ctx, manifest.treeHash, warn) : null,
    lastIndexed: state.lastIndexed,
    lastIncremental: state.lastIncremental,
    skipped: countSkipped(manifest?.files ?? []),
    overlay: { files: dirty && overlay ? overlay.files.length : 0, headTree: overlay?.headTree ?? null },
    queue: queueSummary(await readQueue(ctx.paths.root), ctx.config.coderag.delta),
    commits: {
      indexed: commitIndex?.packs.reduce((sum, pack) => sum + pack.commits, 0) ?? 0,
      head: commitIndex?.head ?? null,
      bytes: await commitIndexBytes(ctx.paths, commitIndex),
      stale: !commitIndex || commitIndex.head !== ctx.repo.head.commit || commitIndex.maxCommits !== ctx.config.commits.maxCommits,
    },
    indexer: {
      running: indexerRunning(indexer),
      pid: indexer?.pid ?? null,
      startedAt: indexer?.startedAt ?? null,
      finishedAt: indexer?.finishedAt ?? null,
      lastResult: indexer?.lastResult ?? null,
      lastError: indexer?.lastError ?? null,
    },
  }
}

function commitsContext(ctx: IndexContext): CommitsContext {
  return { repo: ctx.repo, paths: ctx.paths, maxCommits: ctx.config.commits.maxCommits }
}

async function syncCommitIndex(ctx: IndexContext, opts: BuildOptions): Promise<CommitsSummary> {
  const { commits, added, dropped, mode, durationMs } = await syncCommits(commitsContext(ctx), { warn: opts.warn, progress: opts.progress, force: opts.force })
  return { indexed: commits, added, dropped, mode, durationMs }
}

/** The manifest of the most recently indexed tree other than `target` (which, if indexed, was found unusable). */
async function nearestTree(ctx: IndexContext, state: IndexState, target: string, opts: BuildOptions): Promise<TreeManifest | null> {
  for (const tree of new Set([state.treeHash, ...state.recentTrees])) {
    if (!tree || tree === target) continue
    const manifest = await loadManifest(ctx, tree, opts.warn)
    if (manifest && isCurrent(ctx, manifest)) return manifest
  }
  return null
}

const REPOMAP_STATS_KIND = 'repomap-stats'
const REPOMAP_STATS_VERSION = 1

/** Tokens of the tree's default repo map (committed files only), computed once per tree and cached beside its aggregates. */
async function repoMapTokens(ctx: IndexContext, tree: string, warn: (message: string) => void): Promise<number | null> {
  const path = ctx.paths.treeRecord(tree, 'repomap')
  // A corrupt cache is simply recomputed and rewritten.
  const cached = await unlessCorrupt(() => readRecord<{ tokens: number }>(path, REPOMAP_STATS_KIND, REPOMAP_STATS_VERSION), () => undefined)
  if (cached) return cached.tokens
  const indexed = await loadIndexedTree(ctx, tree, { warn })
  if (!indexed) return null
  const { defaultRepoMapTokens } = await import('../repomap/index.js')
  const tokens = defaultRepoMapTokens({ aggregates: indexed.aggregates, freshness: { treeHash: tree, stale: false, overlayFiles: 0 } })
  await writeRecord(path, REPOMAP_STATS_KIND, REPOMAP_STATS_VERSION, { tokens }, { durable: false })
  return tokens
}

/** A delta tree stores no edge count: materialise its aggregates to count them (no write). */
async function deltaEdges(ctx: IndexContext, tree: string, warn: (message: string) => void): Promise<number> {
  const indexed = await loadIndexedTree(ctx, tree, { warn })
  return indexed ? indexed.aggregates.stats().edges : 0
}

/** A finished index of `tree` built with the current selection settings, or null. */
async function loadReusable(ctx: IndexContext, tree: string, warn: (message: string) => void): Promise<TreeManifest | null> {
  const manifest = await loadManifest(ctx, tree, warn)
  return manifest && isCurrent(ctx, manifest) ? manifest : null
}

/** HEAD's tree is already indexed: nothing to build, report its numbers. */
function describeTree(manifest: TreeManifest, edges: number): BuildResult {
  const { files, chunks, symbols } = countIndexed(manifest.files)
  return {
    treeHash: manifest.treeHash,
    builtFrom: manifest.builtFrom,
    files,
    chunks,
    symbols,
    edges,
    skipped: countSkipped(manifest.files),
    extracted: [],
    changed: [],
    durationMs: 0,
  }
}

async function recordIndexed(ctx: IndexContext, state: IndexState, how: 'full' | 'incremental'): Promise<void> {
  const now = new Date().toISOString()
  const tree = ctx.repo.head.tree
  await writeState(ctx.paths, {
    treeHash: tree,
    commit: ctx.repo.head.commit,
    lastIndexed: how === 'full' ? now : state.lastIndexed ?? now,
    lastIncremental: how === 'incremental' ? now : state.lastIncremental,
    recentTrees: [tree, ...state.recentTrees.filter((t) => t !== tree)].slice(0, 20),
    indexedWith: indexedWith(ctx),
  })
}

function indexedWith(ctx: IndexContext): string {
  return `${EXTRACTOR_VERSION}:${ctx.configFingerprint}`
}

function lockOptions(opts: BuildOptions) {
  // Concurrent queries each sync first and queue on the lock for milliseconds: not worth a warning.
  return { waitMs: 120_000, notifyAfterMs: 1_000, onWait: (holder: string) => opts.warn(`waiting for another git-vlt run (${holder}) to finish…`) }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}
