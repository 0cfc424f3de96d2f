import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { drainQueue, indexerRunning, queueSummary, readIndexerState, readQueue, type QueueSummary } from '../queue/index.js'
import { unlessCorrupt } from '../errors.js'
import { workingTreeChanges, type WorkingChange } from '../git/index.js'
import { listDirConfined, listFilesConfined, readRecord, sweepTempFiles, unlessUnwritable, withLock, writeRecord } from '../store/index.js'
import { buildTree, isCurrent, loadIndexedTree, loadManifest, type BuildOptions, type BuildResult, type IndexedTree } from './build.js'
import { openIndexContext, type IndexContext } from './context.js'
import { answerRebuildingDamage } from './damage.js'
import { inspectIndex, type IndexIntegrity } from './integrity.js'
import { countIndexed, countSkipped, emptySkipped, type SkippedCounts, type TreeManifest } from './manifest.js'
import { readOverlay, syncOverlay, type Overlay } from './overlay.js'
import { loadWholeTreeLocked, nearestTree, recordItems, repairTree } from './repair.js'
import { pushRemoteTree, takeRemoteTree } from './remote-tree.js'
import { readState, readStateRecord, writeState, type IndexState } from './state.js'
import { EXTRACTOR_VERSION } from '../parse/version.js'
import { commitIndexBytes, readCommitIndex, syncCommits, type CommitsContext, type CommitSyncResult } from '../commits/index.js'

export { openIndexContext, type IndexContext } from './context.js'
export type { BuildOptions, BuildResult, IndexedTree, TreeBeingBuilt } from './build.js'
export { loadIndexedTree } from './build.js'
export type { ManifestFile, SkippedCounts, TreeManifest } from './manifest.js'
export type { Overlay, OverlayFile } from './overlay.js'
export { runQueuedSync, type QueuedSyncResult } from './queued.js'
export type { IndexIntegrity } from './integrity.js'
export { verifyIndex, type VerifyResult } from './verify.js'
export { answerRebuildingDamage, isAggregateDamage } from './damage.js'

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
 * full, then the working-tree overlay. Checks what it reuses (manifest, aggregates, the presence of
 * every blob record): anything missing or damaged is rebuilt here, reported in one line, rather
 * than at the next query.
 */
export async function initIndex(cwd: string, opts: BuildOptions): Promise<InitResult> {
  const started = Date.now()
  // git status runs while the tree is built rather than after it (0.2-0.4 s of Linux 10k's end), and
  // looks at the working tree as HEAD is read, as a sync's does (see syncIndexIn). Init's status alone
  // refreshes .git/index (a fresh clone's makes every later status read the files again).
  const ctx = await openIndexContext(cwd, { syncing: true, refreshGitIndex: true })
  const changes = takeWorkingTree(ctx)
  const result = await withLock(ctx.paths.root, async (lock) => {
    if (opts.sweep || lock.recovered) await sweepTempFiles(ctx.paths.root)
    const { state, damaged } = await readStateRecord(ctx.paths, ctx.repairs)
    const head = ctx.repo.head
    // A query opens the BM25 index and the graph when it reads them: init opens them now, and one
    // damaged where it was opened (or stored by an older build in another format) is rebuilt and reported here.
    const reuse = async (): Promise<BuildResult | null> => {
      const existing = await loadWholeTreeLocked(ctx, head.tree, state, opts, true)
      if (!existing) return null
      void existing.aggregates.bm25
      return describeTree(existing.manifest, existing.aggregates.stats().edges)
    }
    const reused = !opts.force && (await loadReusable(ctx, head.tree)) ? await answerRebuildingDamage(reuse) : null
    let built: BuildResult
    if (reused) built = reused
    else {
      const base = opts.force ? null : await nearestTree(ctx, state, head.tree)
      // A clone with nothing to build from asks the remote cache for the whole tree first.
      const shared = base === null && !opts.force ? await takeRemoteTree(ctx, head.tree, opts) : null
      built = shared ?? (await buildTree(ctx, head.tree, base, { ...opts, full: true }))
    }
    await pushRemoteTree(ctx, head.tree)
    await syncOverlay(ctx, opts, changes)
    await recordIndexed(ctx, state, built.builtFrom === null ? 'full' : 'incremental', built.aggregatesTree)
    if (damaged) ctx.repairs.rebuilt('rebuilt the index state')
    const commits = await syncCommitIndex(ctx, opts)
    const { treeHash, files, chunks, symbols, skipped } = built
    return { treeHash, files, chunks, symbols, edges: built.edges ?? 0, skipped, extracted: built.extracted.length, commits, durationMs: Date.now() - started }
  }, lockOptions(opts))
  ctx.repairs.flush(opts.warn)
  ctx.remote?.flush(opts.warn, { summary: true })
  return result
}

/** Brings the index up to date with HEAD and the working tree, touching only what changed. */
export async function syncIndex(cwd: string, opts: BuildOptions): Promise<SyncResult> {
  return syncIndexIn(await openIndexContext(cwd, { syncing: true }), opts)
}

/**
 * The working tree's changes the context started reading when opened (or a read started now), taken
 * once: awaited only if the run gets that far, so a failure before then is not left unhandled.
 */
function takeWorkingTree(ctx: IndexContext): Promise<WorkingChange[]> {
  const changes = ctx.workingTree ?? workingTreeChanges(ctx.repo)
  changes.catch(() => {})
  ctx.workingTree = undefined
  return changes
}

/**
 * syncIndex for a caller that has opened the context already (a query syncs, then reads through the
 * same context). `report: false` leaves what was repaired for the caller to report with its own.
 */
export async function syncIndexIn(ctx: IndexContext, opts: BuildOptions, { report = true } = {}): Promise<SyncResult> {
  const started = Date.now()
  // git status runs while the lock, queue and state are read. It is also the look that matches the
  // HEAD this sync builds (read at the same moment): a status taken after the build would compare
  // the working tree with a HEAD that may have moved meanwhile, while the overlay is laid over the
  // tree built here. Edits made during the build are the next sync's, as edits made after it are.
  const earlyChanges = takeWorkingTree(ctx)
  const result = await withLock(ctx.paths.root, async (lock) => {
    // A run killed holding the lock left its temp files (a pack half written): cleared once, here.
    if (lock.recovered) await sweepTempFiles(ctx.paths.root)
    // Batches queued before this point describe commits up to HEAD at the latest: the sync covers them.
    const queue = await readQueue(ctx.paths.root)
    const { state, damaged } = await readStateRecord(ctx.paths, ctx.repairs)
    const head = ctx.repo.head
    let mode: SyncResult['mode'] = 'unchanged'
    let changed: string[] = []
    let extracted: string[] = []
    if (state.treeHash !== head.tree || state.indexedWith !== indexedWith(ctx)) {
      const reusable = await loadReusable(ctx, head.tree)
      let aggregatesTree: string
      if (reusable) {
        mode = 'reused'
        aggregatesTree = reusable.aggregatesTree
      } else {
        const base = await nearestTree(ctx, state, head.tree)
        const built = await buildTree(ctx, head.tree, base, opts)
        mode = built.builtFrom ? 'incremental' : 'cold'
        changed = built.changed
        extracted = built.extracted
        aggregatesTree = built.aggregatesTree
      }
      await recordIndexed(ctx, state, mode === 'cold' ? 'full' : 'incremental', aggregatesTree)
      if (damaged) ctx.repairs.rebuilt('rebuilt the index state')
    } else if (!looksWhole(ctx, state)) {
      await repairTree(ctx, head.tree, state, opts)
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
  if (report) ctx.repairs.flush(opts.warn)
  ctx.remote?.flush(opts.warn)
  return result
}

/**
 * What a sync with nothing to build can afford to check (a few stat calls, no reads): the tree's
 * manifest and aggregates are there and not empty, and the blob records' directory exists. Damage
 * inside a file is found by the query that reads it.
 */
function looksWhole(ctx: IndexContext, state: IndexState): boolean {
  const present = (path: string): boolean => (lstatSync(path, { throwIfNoEntry: false })?.size ?? 0) > 0
  if (!state.treeHash || !present(ctx.paths.treeManifest(state.treeHash))) return false
  const anchor = state.aggregatesTree
  if (anchor && !['manifest', 'bm25', 'symbols', 'graph'].every((name) => present(ctx.paths.treeRecord(anchor, name)))) return false
  return lstatSync(ctx.blobs.recordsDir, { throwIfNoEntry: false }) !== undefined
}

/**
 * The index of `tree` with its aggregates in memory, made whole first when it is not: a manifest or
 * aggregates that fail their checks are rebuilt, missing blob records extracted again (under the
 * index lock), noted in the context's repairs for the caller to report.
 */
export async function loadWholeTree(ctx: IndexContext, tree: string, opts: BuildOptions): Promise<IndexedTree | null> {
  const indexed = await loadIndexedTree(ctx, tree, opts)
  if (indexed && ctx.blobs.missing(recordItems(indexed.manifest)).length === 0) return indexed
  // Looked at again under the lock: another run may have repaired it meanwhile.
  return withLock(ctx.paths.root, async () => loadWholeTreeLocked(ctx, tree, await readState(ctx.paths, ctx.repairs), opts), lockOptions(opts))
}

/**
 * The most recent complete index, loaded as it is, for a query that could not bring it up to date
 * (another run holds the lock, `.vlt/` cannot be written): HEAD's tree when it is indexed, else the
 * last tree indexed. Nothing is repaired (that needs the lock), nor stored when `.vlt/` is
 * unwritable (see BlobStore.stopStoring): a record it lacks is extracted in memory. Null when no
 * tree is indexed yet.
 */
export async function loadLastComplete(ctx: IndexContext, opts: BuildOptions): Promise<IndexedTree | null> {
  const state = await readState(ctx.paths, ctx.repairs)
  for (const tree of new Set([ctx.repo.head.tree, state.treeHash])) {
    const indexed = tree ? await loadIndexedTree(ctx, tree, opts) : null
    if (indexed) return indexed
  }
  return null
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
  /** Bytes of the BM25 index, and of the symbol table plus graph, the tree's queries load: its anchor's for a delta tree. */
  bm25Bytes: number
  /** Bytes of the embedding cache (`.vlt/vectors/`) and of the tree's chunk vectors. */
  vectorBytes: number
  graphBytes: number
  /** A delta tree stores only its manifest: the anchor tree whose stored aggregates it is loaded from. null when its own are stored. */
  deltaOf: string | null
  /** Tokens of the default repo map (`git vlt coderag map`) of the indexed tree; null when nothing is indexed. */
  repoMapTokens: number | null
  lastIndexed: string | null
  lastIncremental: string | null
  skipped: SkippedCounts
  /** Paths of the indexed tree's submodules (counted in skipped.submodule): their files are another repository's. */
  submodules: string[]
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
  /** Whether every record of the indexed tree is there and sound (see IndexIntegrity). */
  integrity: IndexIntegrity
}

/**
 * Reads what is indexed without changing anything (no lock: every file it reads is written
 * atomically), and checks every record of it (see inspectIndex): what is missing or damaged is
 * reported in `integrity`, for the next query, sync or `coderag verify` to repair.
 */
export async function indexStatus(cwd: string, warn: (message: string) => void): Promise<StatusResult> {
  const ctx = await openIndexContext(cwd)
  const { state, damaged } = await readStateRecord(ctx.paths, ctx.repairs)
  // A damaged state leaves the trees: report HEAD's when it is indexed, rather than nothing.
  const head = ctx.repo.head.tree
  const tree = state.treeHash ?? (damaged && lstatSync(ctx.paths.treeManifest(head), { throwIfNoEntry: false }) ? head : null)
  const integrity = await inspectIndex(ctx, tree)
  const manifest = tree ? await loadManifest(ctx, tree) : null
  const overlay: Overlay | undefined = manifest ? await readOverlay(ctx) : undefined
  const { files, chunks, symbols, languages } = countIndexed(manifest?.files ?? [])
  // A delta tree's aggregates are its anchor's, its files laid over them when opened.
  const dir = manifest ? ctx.paths.treeDir(manifest.aggregatesTree) : ''
  const indexer = await readIndexerState(ctx.paths.root)
  const dirty = overlay ? overlay.files.length > 0 || overlay.headTree !== head : false
  const commitIndex = await unlessCorrupt(() => readCommitIndex(ctx.paths), (error) => {
    warn(`warning: ${error.message}; the next sync rebuilds it`)
    return undefined
  })
  return {
    indexed: manifest !== null,
    treeHash: manifest ? tree : null,
    headTreeHash: head,
    stale: manifest === null || tree !== head || state.indexedWith !== indexedWith(ctx) || (overlay?.headTree ?? null) !== head,
    files,
    chunks,
    symbols,
    edges: manifest ? manifest.edges ?? (await deltaEdges(ctx, manifest.treeHash, warn)) : 0,
    languages,
    bm25Bytes: manifest ? fileSize(join(dir, 'bm25.mpk')) : 0,
    vectorBytes: manifest ? await vectorBytes(ctx, manifest.treeHash) : 0,
    graphBytes: manifest ? fileSize(join(dir, 'graph.mpk')) + fileSize(join(dir, 'symbols.mpk')) : 0,
    deltaOf: manifest && manifest.aggregatesTree !== manifest.treeHash ? manifest.aggregatesTree : null,
    // Computing it needs the tree's aggregates: not from a damaged index (status repairs nothing).
    repoMapTokens: manifest && integrity.complete ? await repoMapTokens(ctx, manifest.treeHash, warn) : null,
    lastIndexed: state.lastIndexed,
    lastIncremental: state.lastIncremental,
    skipped: manifest ? countSkipped(manifest) : emptySkipped(),
    submodules: manifest?.submodules ?? [],
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
    integrity,
  }
}

export function commitsContext(ctx: IndexContext): CommitsContext {
  return { repo: ctx.repo, paths: ctx.paths, maxCommits: ctx.config.commits.maxCommits, ...(ctx.remote ? { remote: ctx.remote } : {}) }
}

async function syncCommitIndex(ctx: IndexContext, opts: BuildOptions): Promise<CommitsSummary> {
  const { commits, added, dropped, mode, durationMs } = await syncCommits(commitsContext(ctx), { warn: opts.warn, progress: opts.progress, force: opts.force })
  return { indexed: commits, added, dropped, mode, durationMs }
}

const REPOMAP_STATS_KIND = 'repomap-stats'
const REPOMAP_STATS_VERSION = 1
/** The repo map statistics cached beside a tree's aggregates (`treeRecord(tree, name)`). */
export const REPOMAP_RECORD = { name: 'repomap', kind: REPOMAP_STATS_KIND, version: REPOMAP_STATS_VERSION }

/**
 * Tokens of the tree's default repo map (committed files only), computed once per tree and cached
 * beside its aggregates (see cachedCount).
 */
async function repoMapTokens(ctx: IndexContext, tree: string, warn: (message: string) => void): Promise<number | null> {
  return cachedCount(ctx, tree, REPOMAP_COUNT, warn, async () => {
    const indexed = await loadIndexedTree(ctx, tree, { warn })
    if (!indexed) return null
    const { defaultRepoMapTokens } = await import('../repomap/index.js')
    return defaultRepoMapTokens({ aggregates: indexed.aggregates, freshness: { treeHash: tree, stale: false, overlayFiles: 0 } })
  })
}

/**
 * A delta tree stores no edge count: its files are laid over its anchor's aggregates to count
 * them (graph/laid-edge-count.ts reads the few stored files whose edges they change; a large
 * change materialises the set), once per tree, and the count cached beside its manifest.
 */
async function deltaEdges(ctx: IndexContext, tree: string, warn: (message: string) => void): Promise<number> {
  const edges = await cachedCount(ctx, tree, DELTA_EDGES, warn, async () => {
    const indexed = await loadIndexedTree(ctx, tree, { warn })
    if (!indexed) return null
    // A damaged block is met as it is read: status reports it (integrity) and repairs nothing.
    return unlessCorrupt(
      async () => indexed.aggregates.graph.edgeCount,
      (error) => {
        ctx.repairs.damaged(error)
        ctx.repairs.flush(warn)
        return null
      },
    )
  })
  return edges ?? 0
}

/** A count status caches beside a tree's aggregates: its record, the field holding it, and what a damaged one's repair says. */
interface CountRecord {
  name: string
  kind: string
  version: number
  field: string
  redone: string
}

const REPOMAP_COUNT: CountRecord = { ...REPOMAP_RECORD, field: 'tokens', redone: 'recomputed the repo map tokens' }
const DELTA_EDGES: CountRecord = { name: 'edges', kind: 'tree-edges', version: 1, field: 'edges', redone: "counted the delta tree's edges again" }

/**
 * The count `record` caches for `tree`, else `compute`d (null: it could not be) and written; a
 * damaged record is computed again, rewritten and reported.
 */
async function cachedCount(ctx: IndexContext, tree: string, record: CountRecord, warn: (message: string) => void, compute: () => Promise<number | null>): Promise<number | null> {
  const path = ctx.paths.treeRecord(tree, record.name)
  const cached = await unlessCorrupt(
    () => readRecord<Record<string, unknown>>(path, record.kind, record.version),
    (error) => {
      ctx.repairs.damaged(error)
      ctx.repairs.rebuilt(record.redone)
      return undefined
    },
  )
  const value = cached?.[record.field]
  if (typeof value === 'number' && Number.isInteger(value)) return value
  const count = await compute()
  if (count === null) return null
  // A cache: in a `.vlt/` that cannot be written, computed again next time.
  await unlessUnwritable(() => writeRecord(path, record.kind, record.version, { [record.field]: count }, { durable: false }))
  ctx.repairs.flush(warn)
  return count
}

/** A finished index of `tree` built with the current selection settings, or null. */
async function loadReusable(ctx: IndexContext, tree: string): Promise<TreeManifest | null> {
  const manifest = await loadManifest(ctx, tree)
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
    skipped: countSkipped(manifest),
    extracted: [],
    changed: [],
    aggregatesTree: manifest.aggregatesTree,
    durationMs: 0,
  }
}

async function recordIndexed(ctx: IndexContext, state: IndexState, how: 'full' | 'incremental', aggregatesTree: string): Promise<void> {
  const now = new Date().toISOString()
  const tree = ctx.repo.head.tree
  await writeState(ctx.paths, {
    treeHash: tree,
    commit: ctx.repo.head.commit,
    lastIndexed: how === 'full' ? now : state.lastIndexed ?? now,
    lastIncremental: how === 'incremental' ? now : state.lastIncremental,
    recentTrees: [tree, ...state.recentTrees.filter((t) => t !== tree)].slice(0, 20),
    indexedWith: indexedWith(ctx),
    aggregatesTree,
  })
}

export function indexedWith(ctx: IndexContext): string {
  return `${EXTRACTOR_VERSION}:${ctx.configFingerprint}`
}

/** How long init, sync and verify wait for another run's index lock: a cold build of a large repository takes minutes. */
const WRITER_LOCK_WAIT_MS = 120_000

/**
 * How a run waits for the index lock (a stopped holder is never waited for: store/lock.ts). A writer
 * says whom it waits for after a second and gives up after WRITER_LOCK_WAIT_MS; a query waits its own
 * bound silently, then answers from the last complete index with one line of its own (query/context.ts).
 */
export function lockOptions(opts: BuildOptions) {
  if (opts.lockWaitMs !== undefined) return { waitMs: opts.lockWaitMs }
  // Concurrent queries each sync first and queue on the lock for milliseconds: not worth a warning.
  return { waitMs: WRITER_LOCK_WAIT_MS, notifyAfterMs: 1_000, onWait: (holder: string) => opts.warn(`waiting for another git-vlt run (${holder}) to finish…`) }
}

/** The embedding cache, shared by every tree, and the tree's own chunk vectors (vector search path). */
async function vectorBytes(ctx: IndexContext, tree: string): Promise<number> {
  const treeDir = ctx.paths.treeDir(tree)
  const treeVectors = (await listDirConfined(treeDir)).filter((name) => name.startsWith('search-vectors-')).map((name) => join(treeDir, name))
  let total = 0
  for (const path of [...(await listFilesConfined(join(ctx.paths.root, 'vectors'))), ...treeVectors]) total += fileSize(path)
  return total
}

function fileSize(path: string): number {
  try {
    return lstatSync(path).size
  } catch {
    return 0
  }
}
