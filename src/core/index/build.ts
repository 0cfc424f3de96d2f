import { silentProgress, type Progress } from '../cli/progress.js'
import { CorruptFileError, unlessCorrupt, VltError } from '../errors.js'
import { BlobReader, listTreeAndSubmodules, type Repo, type TreeEntry } from '../git/index.js'
import { EXTRACTOR_VERSION } from '../parse/version.js'
import type { LanguageId } from '../parse/types.js'
import type { Bm25Index, Bm25Recovery } from '../search/index.js'
import { readRecord, refuseShippedRecords, unlessUnwritableSync, writeRecord } from '../store/index.js'
import type { TreeAggregates } from './aggregates.js'
import { blobRunner, IN_THREAD_LIMIT, type BlobRunner } from './blob-runner.js'
import { summarize, type BlobSummary, type BlobTask } from './blob-task.js'
import { keyOf, PACK_MIN_RECORDS } from './blob-store.js'
import { readItemBytes } from './heal.js'
import { RemoteWriteBack, takeRemoteRecords } from './remote-records.js'
import type { IndexContext } from './context.js'
import { countIndexed, countSkipped, DEGRADED_REASONS, MANIFEST_KIND, MANIFEST_VERSION, type ManifestFile, type SkippedCounts, type TreeManifest } from './manifest.js'
import { TASKS_PER_WORKER } from './pool.js'

/**
 * The aggregates (graph, BM25) and the extractor (tree-sitter) load on first use: a sync with
 * nothing to rebuild, which runs after every commit, does not pay for loading them.
 */
const aggregatesModule = () => import('./aggregates.js')

/**
 * A cold build's aggregates, the tree's files yet to be added: its BM25 index written out in runs
 * past the memory budget (`[index] memory_mb`), as every build from nothing — init's, or a repair's
 * from the blob records — must, or a large tree's memory grows with it.
 */
export async function coldAggregates(ctx: IndexContext, treeHash: string): Promise<TreeAggregates> {
  const { bm25MemoryBytes, createAggregates } = await aggregatesModule()
  return createAggregates({ memoryBytes: bm25MemoryBytes(ctx.config.index.memoryMb), treeDir: ctx.paths.treeDir(treeHash) })
}

/** Aggregates past OVERLAPPED_FINISHING_SYMBOLS: finishAndSave writes their BM25 index first (`bm25First`). */
export function largeAggregates(aggregates: TreeAggregates): boolean {
  return aggregates.symbols.symbolCount > OVERLAPPED_FINISHING_SYMBOLS
}

/**
 * Up to this many symbols a build's finishing overlaps its parts: BuildOptions.afterAggregates runs
 * beside the writing of the aggregates, whose encoding then stays well under the memory peak of adding files (Linux 10k: 327 K symbols,
 * the finishing ~60–130 MB under it), and the learning thread uses the core the main thread's
 * encoding leaves idle (~2 s of a Linux 10k init). Linux full's 4.27 M symbols make encoding its
 * table the build's peak, so there it waits; and past this many its BM25 index is written before
 * the graph is resolved rather than beside it (finishAndSave's `bm25First`).
 */
const OVERLAPPED_FINISHING_SYMBOLS = 1_000_000

export interface BuildOptions {
  /** Re-extract every blob even when its artifact is cached. */
  force?: boolean
  /** Store full aggregates for the tree even when a delta on its anchor would do. */
  full?: boolean
  /** Remove temp files left in .vlt/ by killed runs before building (a restored CI cache may hold some). */
  sweep?: boolean
  /** How long to wait for the index lock held by another run (a query's bound); default: a writer's (see lockOptions). */
  lockWaitMs?: number
  progress?: Progress
  warn: (message: string) => void
  /**
   * Work on a tree built with aggregates of its own, done before its manifest is written (a caller
   * above this folder: `coderag init` learns the tree's term associations there). Must not reject.
   * Run beside the writing of the aggregates, once their BM25 index is written, when the symbol
   * table is small (see OVERLAPPED_FINISHING_SYMBOLS); otherwise once they are written: encoding a large
   * table is the build's memory peak, which a learning thread's heap would raise (Linux full: by
   * 150–225 MB).
   */
  afterAggregates?: (tree: TreeBeingBuilt) => Promise<void>
}

/** A tree whose files are extracted and whose aggregates are written. */
export interface TreeBeingBuilt {
  repo: Repo
  /** The `.vlt/` directory, whose blob records of the tree's files are all stored. */
  vltDir: string
  /** Where the tree's aggregates go (`.vlt/trees/<tree>/`). */
  dir: string
  /** The tree's files as its manifest will list them. */
  files: readonly ManifestFile[]
}

export interface BuildResult {
  treeHash: string
  builtFrom: string | null
  files: number
  chunks: number
  symbols: number
  /** Graph edges; null for a delta tree until its aggregates are materialised. */
  edges: number | null
  skipped: SkippedCounts
  /** Paths whose blobs were extracted in this run (cache misses). */
  extracted: string[]
  /** Paths added, changed or removed relative to `builtFrom` (all paths for a cold build). */
  changed: string[]
  /** The tree whose stored aggregates this one's derive from (itself, or a delta's anchor). */
  aggregatesTree: string
  durationMs: number
}

/** A tree that is already indexed, with its aggregates materialised. */
export interface IndexedTree {
  manifest: TreeManifest
  aggregates: TreeAggregates
}

/**
 * A tree differing from its anchor in at most this many files is stored as a delta (its
 * manifest only): a one-file commit then costs one extraction and one small write, never a
 * rewrite of the repository-sized aggregates. Beyond it, materialising on load would cost more
 * than storing the aggregates once.
 */
export function deltaLimit(files: number): number {
  return Math.max(64, Math.ceil(files * 0.02))
}

/**
 * Indexes one git tree. With `base` (the nearest indexed tree), only files whose (path, blob,
 * language) differ from what is already aggregated are touched: a small change is stored as a
 * delta on the base's anchor (the tree whose aggregates are stored in full), a large one as full
 * aggregates patched from the anchor's.
 */
export async function buildTree(ctx: IndexContext, treeHash: string, base: TreeManifest | null, opts: BuildOptions): Promise<BuildResult> {
  const started = Date.now()
  const { wanted, submodules } = await selectTree(ctx, treeHash)

  const reusable = base && isCurrent(ctx, base) ? base : null
  const anchor = reusable ? await anchorOf(ctx, reusable) : null
  const fromBase = new Map((reusable?.files ?? []).map((file) => [file.path, file]))
  const fromAnchor = new Map((anchor?.files ?? []).map((file) => [file.path, file]))

  const files: ManifestFile[] = []
  const todo: Array<BlobItem & { index: number }> = []
  const changed: string[] = []
  /** Paths the anchor's aggregates hold with other content: removed before re-adding. */
  const replaced: string[] = []
  let differing = 0
  for (const { entry, language, secret } of wanted) {
    const before = fromBase.get(entry.path)
    fromBase.delete(entry.path)
    if (!before || before.blob !== entry.blob || before.language !== language) changed.push(entry.path)
    const aggregated = fromAnchor.get(entry.path)
    fromAnchor.delete(entry.path)
    if (aggregated && aggregated.blob === entry.blob && aggregated.language === language) {
      files.push(aggregated)
      continue
    }
    differing++
    if (aggregated) replaced.push(entry.path)
    const file: ManifestFile = { path: entry.path, blob: entry.blob, language, size: entry.size, chunks: 0, symbols: 0, parseErrors: 0, lines: 0 }
    if (secret) file.skipped = 'secret'
    else if (entry.size > ctx.config.index.maxFileBytes) file.skipped = 'tooLarge'
    else todo.push({ path: entry.path, blob: entry.blob, language, index: files.length })
    files.push(file)
  }
  changed.push(...fromBase.keys())
  const removed = [...fromAnchor.keys()]
  const delta = anchor !== null && !opts.full && differing + removed.length <= deltaLimit(files.length)

  let aggregates: TreeAggregates | null = null
  if (!delta) {
    aggregates = anchor ? await loadTreeAggregatesFile(ctx, anchor.treeHash, anchor) : await coldAggregates(ctx, treeHash)
    // Unreadable anchor aggregates: build this tree cold (blob artifacts are still reused).
    if (!aggregates) {
      ctx.repairs.rebuilt(`built the index of tree ${treeHash.slice(0, 12)} from the blob records`)
      return buildTree(ctx, treeHash, null, opts)
    }
    for (const path of [...replaced, ...removed]) aggregates.removeFile(path)
  }

  const extracted = await summarizeBlobs(ctx, todo, opts, (item, summary) => {
    const file = files[item.index]!
    if (summary.skipped) {
      file.skipped = summary.skipped
      return
    }
    if (summary.degraded) file.degraded = summary.degraded
    file.chunks = summary.chunkCount
    file.symbols = summary.symbols.length
    file.parseErrors = summary.parseErrors
    file.lines = summary.lineCount
    aggregates?.addFile(file.path, summary)
  })

  const built: TreeBeingBuilt = { repo: ctx.repo, vltDir: ctx.paths.root, dir: ctx.paths.treeDir(treeHash), files }
  const { afterAggregates } = opts
  const small = !aggregates || !largeAggregates(aggregates)
  const besideSaving = afterAggregates && small
  const finishing = { beside: besideSaving ? () => afterAggregates(built) : undefined, bm25First: !small }
  const edges = aggregates ? (await (await aggregatesModule()).finishAndSave(built.dir, aggregates, finishing)).edges : null
  if (aggregates && afterAggregates && !besideSaving) {
    // Saved: what the build held of them can be collected while the hook runs.
    aggregates = null
    await afterAggregates(built)
  }
  const manifest: TreeManifest = {
    treeHash,
    builtFrom: reusable ? reusable.treeHash : null,
    aggregatesTree: delta ? anchor!.treeHash : treeHash,
    configFingerprint: ctx.configFingerprint,
    extractorVersion: EXTRACTOR_VERSION,
    createdAt: new Date().toISOString(),
    edges,
    files,
    submodules,
  }
  // The manifest goes last: a tree directory without one is an unfinished build and is ignored.
  await writeRecord(ctx.paths.treeManifest(treeHash), MANIFEST_KIND, MANIFEST_VERSION, manifest)

  const { files: indexed, chunks, symbols } = countIndexed(files)
  return {
    treeHash,
    builtFrom: manifest.builtFrom,
    files: indexed,
    chunks,
    symbols,
    edges,
    skipped: countSkipped(manifest),
    extracted,
    changed: changed.sort(),
    aggregatesTree: manifest.aggregatesTree,
    durationMs: Date.now() - started,
  }
}

/** One piece of content to summarise: a committed blob or a working-tree file (same hashing). */
export interface BlobItem {
  path: string
  blob: string
  language: LanguageId
}

export interface Wanted {
  entry: TreeEntry
  language: LanguageId
  secret: boolean
}

/** What of a tree vlt.toml selects: the files (in tree order) and the submodules a manifest lists. */
export async function selectTree(ctx: IndexContext, treeHash: string): Promise<{ wanted: Wanted[]; submodules: string[] }> {
  const { files: entries, submodules } = await listTreeAndSubmodules(ctx.repo, treeHash)
  // Records committed where ours live would be read as ours (store/shipped.ts). A bare
  // repository keeps `.vlt` in its git dir, where no tree reaches.
  if (ctx.repo.root !== null) refuseShippedRecords(entries.map((entry) => entry.path))
  return { wanted: selectEntries(ctx, entries), submodules: submodules.filter((path) => !excluded(ctx, path)) }
}

/** Applies vlt.toml's selection; secrets stay in the manifest (counted) but are never read. */
function selectEntries(ctx: IndexContext, entries: TreeEntry[]): Wanted[] {
  const wanted: Wanted[] = []
  for (const entry of entries) {
    const selection = ctx.selectFile(entry.path)
    if (selection.selected) wanted.push({ entry, language: selection.language, secret: false })
    else if (selection.reason === 'secret') wanted.push({ entry, language: 'text', secret: true })
  }
  return wanted
}

/** Left out by the built-in excludes or vlt.toml's include/exclude: not reported as skipped. */
function excluded(ctx: IndexContext, path: string): boolean {
  const selection = ctx.selectFile(path)
  return !selection.selected && selection.reason === 'excluded'
}

/**
 * Produces the summary of each blob: from its cached record when there is one, else by
 * extracting it (worker threads for many, this thread for a few). Returns the paths extracted.
 */
export interface SummarizeOptions<T> {
  /** Where an item's bytes come from (working-tree files); by default, git. */
  readBytes?: (item: T) => Promise<Buffer>
  /**
   * Every item's record should exist (a tree's files, an overlay that was synced): a miss is a lost
   * record, counted in the repairs, rather than new content; and one that cannot be extracted
   * again (its git object gone, its file changed since) is noted there and left out, rather than
   * failing the caller, which answers from the rest.
   */
  expected?: boolean
  /** The remote cache was asked for these records already (and lacked them): they are extracted without asking again. */
  remoteAsked?: boolean
}

export async function summarizeBlobs<T extends BlobItem>(
  ctx: IndexContext,
  items: T[],
  opts: BuildOptions,
  accept: (item: T, summary: BlobSummary) => void,
  how: SummarizeOptions<T> = {},
): Promise<string[]> {
  const bounds = { timeoutMs: ctx.config.index.parseTimeoutMs, memoryMb: ctx.config.index.parseMemoryMb }
  let early: Promise<BlobRunner> | undefined
  let uncached: Uncached<T>
  try {
    uncached = takeCached(ctx, items, opts, accept, (count) => {
      early = blobRunner(count, bounds)
    })
  } catch (error) {
    // The error that stopped the check is the one to report, not one from stopping the workers.
    await early?.then((runner) => runner.close()).catch(() => {})
    throw error
  }
  const { sameContent, damaged } = uncached
  let { misses } = uncached
  if (misses.length === 0) return []
  const progress = opts.progress ?? silentProgress
  // Committed blobs only: a working-tree file's content is never sent to, nor taken from, the cache.
  const shared = how.readBytes === undefined && ctx.remote !== undefined
  if (shared && !how.remoteAsked) {
    const fetched = await takeRemoteRecords(ctx, sameContent, progress, (group, record) => {
      const summary = summarize(record)
      for (const same of group) accept(same, summary)
    })
    if (fetched.size > 0) misses = misses.filter((item) => !fetched.has(keyOf(item)))
    if (sameContent.size === 0) {
      await early?.then((runner) => runner.close())
      return []
    }
  }
  const writeBack = new RemoteWriteBack(ctx)
  progress.start(misses.length, 'indexing')
  const reader = how.readBytes ? undefined : new BlobReader(ctx.repo)
  // A lost record of a git blob whose object is gone too may still come back from the working file.
  const read = how.readBytes ?? (how.expected ? (item: T) => readItemBytes(ctx.repo, reader!, item) : (item: T) => reader!.read(item.blob))
  const runner = await (early ?? blobRunner(sameContent.size, bounds))
  const pack = ctx.blobs.storing && sameContent.size >= PACK_MIN_RECORDS ? ctx.blobs.packWriter() : undefined
  /** Why the records of `expected` items that could not be read were left out, by content key. */
  const lost = new Map<string, string>()
  try {
    const limit = runner.parallelism * TASKS_PER_WORKER
    const running = new Set<Promise<void>>()
    for (const [key, group] of sameContent) {
      const item = group[0]!
      const job = (async () => {
        let bytes: Buffer
        try {
          bytes = await read(item)
        } catch (error) {
          if (!how.expected || !(error instanceof VltError)) throw error
          lost.set(key, error.message)
          group.forEach(() => progress.tick())
          return
        }
        const task: BlobTask = {
          blob: item.blob,
          language: item.language,
          bytes: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
          maxFileBytes: ctx.config.index.maxFileBytes,
          ...(how.readBytes ? { keepText: true } : {}),
        }
        const { summary, encoded } = await runner.run(task, ctx.blobs.loosePath(item))
        if (pack) pack.add(key, encoded)
        else ctx.blobs.writeLoose(item, encoded)
        if (shared) await writeBack.add(item, encoded)
        if (!summary.skipped && summary.degraded) opts.warn(`warning: ${item.path}: ${DEGRADED_REASONS[summary.degraded]}; indexed as text`)
        for (const same of group) {
          accept(same, summary)
          progress.tick()
        }
      })()
      running.add(job)
      // Settled either way without deriving a promise of its own: a `finally` chain would reject
      // too, unhandled, and one unreadable file would crash the process instead of failing the build.
      const settled = (): void => void running.delete(job)
      job.then(settled, settled)
      if (running.size >= limit) await Promise.race(running)
    }
    await Promise.all(running)
    await writeBack.finish()
    pack?.finish()
    if (pack && opts.force) ctx.blobs.retireSuperseded(pack)
    ctx.repairs.recordsRestored((how.expected ? sameContent.size : damaged) - lost.size)
    if (lost.size > 0) ctx.repairs.recordsLost(lost.size, lost.values().next().value!)
  } finally {
    pack?.abort()
    progress.stop()
    reader?.close()
    await runner.close()
  }
  return misses.filter((item) => !lost.has(keyOf(item))).map((item) => item.path)
}

interface Uncached<T> {
  misses: T[]
  /** The misses by content key: the same content under several paths (empty __init__.py files, vendored copies) is extracted once. */
  sameContent: Map<string, T[]>
  /** Misses whose record was there but damaged. */
  damaged: number
}

/**
 * Accepts the cached summaries and collects the misses. Workers take about half a second to
 * start (modules, wasm, the queries' compilation), so `onManyMisses` is called as soon as more
 * distinct contents miss than are extracted in this thread: the caller starts them then, and
 * they boot while the rest of the cache is checked.
 */
function takeCached<T extends BlobItem>(
  ctx: IndexContext,
  items: T[],
  opts: BuildOptions,
  accept: (item: T, summary: BlobSummary) => void,
  onManyMisses: (count: number) => void,
): Uncached<T> {
  const misses: T[] = []
  const sameContent = new Map<string, T[]>()
  let damaged = 0
  let told = false
  for (const item of items) {
    const cached = opts.force ? undefined : readCachedSummary(ctx, item)
    if (cached && cached !== DAMAGED) {
      accept(item, cached)
      continue
    }
    misses.push(item)
    const key = keyOf(item)
    const group = sameContent.get(key)
    if (group) group.push(item)
    else {
      sameContent.set(key, [item])
      if (cached === DAMAGED) damaged++
    }
    if (!told && sameContent.size > IN_THREAD_LIMIT) {
      told = true
      onManyMisses(sameContent.size)
    }
  }
  return { misses, sameContent, damaged }
}

const DAMAGED = Symbol('damaged record')

/** A missing record is a cache miss; a damaged one too, told apart so that its re-extraction is reported. */
function readCachedSummary(ctx: IndexContext, key: BlobItem): BlobSummary | typeof DAMAGED | undefined {
  try {
    const record = ctx.blobs.read(key)
    return record && summarize(record)
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error
    return DAMAGED
  }
}

/** A tree's manifest when its build finished; null when absent or damaged (noted in the repairs: the caller rebuilds). */
export async function loadManifest(ctx: IndexContext, treeHash: string): Promise<TreeManifest | null> {
  const manifest = await unlessCorrupt(() => readRecord<TreeManifest>(ctx.paths.treeManifest(treeHash), MANIFEST_KIND, MANIFEST_VERSION), noteDamage(ctx))
  return manifest ?? null
}

/** Notes a damaged file of a tree's index in the repairs; the caller rebuilds it. */
function noteDamage(ctx: IndexContext): (error: CorruptFileError) => null {
  return (error) => {
    ctx.repairs.damaged(error)
    return null
  }
}

/** Built by this extractor with the current selection settings: reusable as is. */
export function isCurrent(ctx: IndexContext, manifest: TreeManifest): boolean {
  return manifest.configFingerprint === ctx.configFingerprint && manifest.extractorVersion === EXTRACTOR_VERSION
}

/** The manifest of the tree whose aggregates `manifest` derives from (itself when stored in full). */
export async function anchorOf(ctx: IndexContext, manifest: TreeManifest): Promise<TreeManifest | null> {
  if (manifest.aggregatesTree === manifest.treeHash) return manifest
  const anchor = await loadManifest(ctx, manifest.aggregatesTree)
  return anchor && isCurrent(ctx, anchor) && anchor.aggregatesTree === anchor.treeHash ? anchor : null
}

/**
 * A tree's stored aggregates; null when missing or damaged (noted in the repairs). With the tree's
 * manifest, a damaged BM25 block a query finds later is rebuilt then (see `bm25Recovery`). `open`:
 * see loadAggregates.
 */
export async function loadTreeAggregatesFile(ctx: IndexContext, treeHash: string, manifest?: TreeManifest, open = false): Promise<TreeAggregates | null> {
  const { loadAggregates, writeBm25 } = await aggregatesModule()
  const recovery = manifest && bm25Recovery(ctx, manifest, writeBm25)
  return unlessCorrupt(() => loadAggregates(ctx.paths.treeDir(treeHash), { open, ...(recovery ? { recovery } : {}) }), noteDamage(ctx))
}

/**
 * The stored BM25 index is checked block by block as it is read: a damaged block is found by a
 * query (or by a build reading it whole to patch it), which rebuilds the index from the blob records of the tree's files (as a damaged record
 * found on loading is), stores it in place of the damaged file and notes both in the repairs, for
 * the query's one warning line. The rebuilt file's bytes depend only on the files (search/stored.ts),
 * so a build writing the same tree meanwhile writes the same bytes.
 */
function bm25Recovery(ctx: IndexContext, manifest: TreeManifest, writeBm25: (path: string, index: Bm25Index) => void): Bm25Recovery {
  // Indexed only when a recovery happens: a query over a large tree rarely needs it.
  let files: Map<string, ManifestFile> | undefined
  const indexed = (): Map<string, ManifestFile> => (files ??= new Map(manifest.files.filter((file) => !file.skipped).map((file) => [file.path, file])))
  return {
    paths: () => [...indexed().keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    chunksOf: (path) => {
      const file = indexed().get(path)
      if (!file || file.skipped) return undefined
      const record = ctx.blobs.readOrHeal(file, { path })
      return record && !record.skipped ? record.analyzed : undefined
    },
    rebuilt: (index, damage) => {
      ctx.repairs.damaged(damage)
      unlessUnwritableSync(() => writeBm25(damage.path, index))
      ctx.repairs.rebuilt(`rebuilt the BM25 index of tree ${manifest.treeHash.slice(0, 12)} from the blob records`)
    },
  }
}

/**
 * A finished tree with its aggregates opened: as stored, or, for a delta tree, its anchor's with
 * the files that differ laid over them (their artifacts come from the blob cache, extracted again
 * only if missing). `whole`: a delta tree's read and checked whole instead, the files applied to
 * them, for a caller about to count its edges (a tree stored in full stores its count). Null when
 * something it needs is unreadable (reported).
 */
export async function loadIndexedTree(ctx: IndexContext, treeHash: string, opts: BuildOptions, whole = false): Promise<IndexedTree | null> {
  const manifest = await loadManifest(ctx, treeHash)
  if (!manifest) return null
  const anchor = await anchorOf(ctx, manifest)
  if (!anchor) return null
  // Opened rather than read: a query reads the blocks it needs, a delta tree's files laid over them (see TreeAggregates.addFile).
  const aggregates = await loadTreeAggregatesFile(ctx, anchor.treeHash, anchor, !(whole && anchor !== manifest))
  if (!aggregates || anchor === manifest) return aggregates && { manifest, aggregates }

  const fromAnchor = new Map(anchor.files.map((file) => [file.path, file]))
  const todo: BlobItem[] = []
  for (const file of manifest.files) {
    const aggregated = fromAnchor.get(file.path)
    fromAnchor.delete(file.path)
    if (aggregated && aggregated.blob === file.blob && aggregated.language === file.language) continue
    if (aggregated) aggregates.removeFile(file.path)
    if (!file.skipped) todo.push({ path: file.path, blob: file.blob, language: file.language })
  }
  for (const path of fromAnchor.keys()) aggregates.removeFile(path)
  await summarizeBlobs(
    ctx,
    todo,
    opts,
    (item, summary) => {
      if (!summary.skipped) aggregates.addFile(item.path, summary)
    },
    { expected: true },
  )
  aggregates.finish()
  return { manifest, aggregates }
}
