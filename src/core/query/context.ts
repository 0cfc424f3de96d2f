import { loadCommitHistory, type CommitHistory } from '../commits/index.js'
import type { OpenedRepo } from '../git/index.js'
import { VltError } from '../errors.js'
import { summarizeBlobs, type BlobItem, type BuildOptions } from '../index/build.js'
import { ChunkTexts, withChunkText } from '../index/chunk-text.js'
import { readWorkingContent } from '../index/heal.js'
import { fromReferenceColumns, referenceAt, rowsNamed, type ReferenceColumns } from '../parse/reference-columns.js'
import { loadLastComplete, loadWholeTree, openIndexContext, syncIndexIn, type IndexContext, type IndexedTree, type ManifestFile, type Overlay, type TreeManifest } from '../index/index.js'
import { EnvironmentFault, LockBusyError, takeFaultNotice } from '../store/index.js'
import type { TreeAggregates } from '../index/aggregates.js'
import { readOverlay } from '../index/overlay.js'
import type { FileArtifact, LanguageId, SymbolRef } from '../parse/types.js'
import { refreshOfferedScip, scipViewLoader, type ScipView } from '../scip/index.js'

/**
 * Why an answer may be stale (`Freshness.staleReason`, a JSON and MCP contract: values are only added):
 * - `locked`: another run (a sync, an init) held the index lock past `[query] lock_wait_ms`, or is stopped;
 * - `read-only`: `.vlt/` cannot be written (a read-only mount, permissions);
 * - `disk-full`: `.vlt/` could not be written for want of space (or quota);
 * - `update-failed`: a warm index (daemon, MCP server) failed to update and answers from its last context;
 * - `no-overlay`: uncommitted edits could not be laid over the tree (their record is missing or damaged).
 */
export const STALE_REASONS = ['locked', 'read-only', 'disk-full', 'update-failed', 'no-overlay'] as const
export type StaleReason = (typeof STALE_REASONS)[number]

/** Every query result says which index answered it (the MCP and JSON contracts carry it). */
export interface Freshness {
  /** The committed tree the aggregates describe (HEAD's, after the just-in-time sync). */
  treeHash: string
  /** True when the index could not be brought up to date with HEAD and the working tree. */
  stale: boolean
  /** Why, when stale (absent otherwise). */
  staleReason?: StaleReason
  /** Uncommitted files laid over the tree for this query. */
  overlayFiles: number
}

/** Where a file's current content is: its committed blob, or the working-tree content hash. */
export interface FileSource {
  path: string
  blob: string
  language: LanguageId
  /** True for a file whose uncommitted content the overlay supplies. */
  dirty: boolean
}

export interface QueryContext {
  index: IndexContext
  manifest: TreeManifest
  /** HEAD's aggregates with the uncommitted files laid over them (in memory only: see TreeAggregates.addFile). */
  aggregates: TreeAggregates
  freshness: Freshness
  /** Indexed files by path, overlay included, deleted files excluded. */
  files: Map<string, FileSource>
  /** A file's full artifact (chunks with text, every reference); null when not indexed. */
  artifact(path: string): FileArtifact | null
  /**
   * Reads the chunk text of these files in one git run, for a reader about to use the text of
   * many (git serves a committed file's chunk text, see index/chunk-text.ts; read one file at a
   * time, each costs a git process).
   */
  prefetchText(paths: Iterable<string>): void
  /** HEAD's commit history (src/core/commits), loaded on first use and kept with the context. */
  commits(): Promise<CommitHistory>
  /** The imported SCIP index (src/core/scip), read on first use; null when there is none. */
  scip(): ScipView | null
}

export interface OpenQueryOptions extends BuildOptions {
  /** Skip the just-in-time sync (callers that have just synced, benchmarks of warm queries). */
  noSync?: boolean
  /** The repository, opened (and its status started, unless `noSync`) before the query modules were loaded: see openRepoReading. */
  opened?: Promise<OpenedRepo>
}

/**
 * The index as a query must see it: brought up to date with HEAD and the working tree first
 * (building it on first use, with progress), then HEAD's aggregates with uncommitted edits laid
 * over them, so that an answer is never stale about a file the user just changed. Whatever of it
 * is found missing or damaged on the way is rebuilt before answering, and reported in one line.
 *
 * When the index cannot be brought up to date — another run holds its lock past `[query]
 * lock_wait_ms` (or is stopped), `.vlt/` is read-only or full — the query answers from the last
 * complete index instead, as it is, marked stale (`staleReason`), and says so in one line.
 */
export async function openQueryContext(cwd: string, opts: OpenQueryOptions): Promise<QueryContext> {
  return openQueryContextIn(await openIndexContext(cwd, { syncing: !opts.noSync, opened: opts.opened }), opts)
}

/** `openQueryContext` over an index context the caller has already opened (its repository read once). */
export async function openQueryContextIn(index: IndexContext, opts: OpenQueryOptions): Promise<QueryContext> {
  const bounded = { ...opts, lockWaitMs: index.config.query.lockWaitMs }
  let tree: IndexedTree | null
  let skipped: SkippedUpdate | undefined
  try {
    if (!opts.noSync) {
      readPackIndexesEarly(index)
      await syncIndexIn(index, bounded, { report: false })
    }
    tree = await loadWholeTree(index, index.repo.head.tree, bounded)
  } catch (error) {
    skipped = skippedUpdate(error)
    if (skipped.reason !== 'locked') index.blobs.stopStoring()
    tree = await loadLastComplete(index, opts)
    if (!tree) throw new VltError(`${skipped.why}, and there is no complete index to answer from yet: run the query again once it can be updated`)
    opts.warn(`warning: ${skipped.why}; answering from the last complete index (tree ${tree.manifest.treeHash.slice(0, 12)}), which may be stale`)
  }
  if (!tree) throw new VltError(`the index of tree ${index.repo.head.tree.slice(0, 12)} could not be built`)
  // A damaged overlay (noted) is answered without: marked stale, the next sync rewrites it.
  const overlay = (await readOverlay(index)) ?? { headTree: '', files: [] }
  const files = new Map<string, FileSource>()
  for (const file of tree.manifest.files) if (!file.skipped) files.set(file.path, committed(file))
  const overlaid = overlay.headTree === tree.manifest.treeHash
  const applied = overlaid ? await applyOverlay(index, tree.aggregates, overlay, files, opts) : 0
  index.repairs.flush(opts.warn)
  // A SCIP index the repository offers is imported when it is new: only a query that could update the index does it.
  if (!skipped && !opts.noSync) await refreshOfferedScip(index, opts.warn)
  const texts = new ChunkTexts(index.repo, index.repairs)
  const artifacts = artifactCache((source) => readArtifact(index, texts, source, opts.warn), files)
  const staleReason: StaleReason | undefined = skipped?.reason ?? (overlaid ? undefined : 'no-overlay')
  return {
    index,
    manifest: tree.manifest,
    aggregates: tree.aggregates,
    freshness: { treeHash: tree.manifest.treeHash, stale: staleReason !== undefined, ...(staleReason ? { staleReason } : {}), overlayFiles: applied },
    files,
    artifact: artifacts.read,
    // A file whose artifact has its text already (a warm context's, or one an earlier path of the query read) is not read again.
    prefetchText: (paths) => texts.prefetch(committedBlobs(paths, files, artifacts.hasText)),
    commits: once(() => loadCommitHistory({ repo: index.repo, paths: index.paths, maxCommits: index.config.commits.maxCommits }, opts.warn)),
    scip: scipViewLoader(index, opts.warn),
  }
}

/**
 * The pack indexes the load reads first, read while git status still runs for the sync (~0.3 s on
 * Linux's 78k files, against ~50 ms for its 78 pack indexes). A failure is left for the load to
 * meet and report where it always has.
 */
function readPackIndexesEarly(index: IndexContext): void {
  try {
    index.blobs.readPackIndexes()
  } catch {
    // Read again, and thrown, by the load.
  }
}

/** `load` run on the first call only; a failure is not kept, so the next call tries again. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined
      throw error
    })
    return pending
  }
}

interface SkippedUpdate {
  reason: StaleReason
  /** The cause, for the query's one line: who holds the lock, or what could not be written. */
  why: string
}

/** Why updating the index was given up, for an error that is a reason to answer from what is there; any other is rethrown. */
function skippedUpdate(error: unknown): SkippedUpdate {
  if (error instanceof LockBusyError) {
    const what = error.stopped ? 'holds the index lock but is stopped (SIGSTOP or Ctrl-Z)' : 'is updating the index'
    return { reason: 'locked', why: `another git-vlt run ${what}: ${error.description}` }
  }
  if (error instanceof EnvironmentFault) {
    // This line is the one about it: the command base must not repeat it.
    takeFaultNotice()
    return { reason: error.readOnly ? 'read-only' : 'disk-full', why: error.message }
  }
  throw error
}

/**
 * Decoded artifacts by path, the most recently used kept: a warm context (the MCP server) answers
 * many queries about the same files, and decoding a record costs more than the query around it.
 */
const ARTIFACT_CACHE_SIZE = 4096

interface ArtifactCache {
  read(path: string): FileArtifact | null
  /** Whether the cached artifact of `path` has read its chunks' text (see readArtifact). */
  hasText(path: string): boolean
}

function artifactCache(read: (source: FileSource) => ReadArtifact | null, files: Map<string, FileSource>): ArtifactCache {
  const cache = new Map<string, ReadArtifact | null>()
  const keyOf = (path: string): string | undefined => {
    const source = files.get(path)
    return source && `${path}\0${source.blob}`
  }
  return {
    read: (path) => {
      const key = keyOf(path)
      if (key === undefined) return null
      let artifact = cache.get(key)
      if (artifact === undefined) {
        artifact = read(files.get(path)!)
        if (cache.size >= ARTIFACT_CACHE_SIZE) cache.delete(cache.keys().next().value!)
      } else cache.delete(key)
      cache.set(key, artifact)
      return artifact?.artifact ?? null
    },
    hasText: (path) => {
      const key = keyOf(path)
      return key !== undefined && cache.get(key)?.textRead() === true
    },
  }
}

function committed(file: ManifestFile): FileSource {
  return { path: file.path, blob: file.blob, language: file.language, dirty: false }
}

/** Lays the working-tree versions of files over the committed ones in the aggregates (in memory only). */
async function applyOverlay(index: IndexContext, aggregates: TreeAggregates, overlay: Overlay, files: Map<string, FileSource>, opts: BuildOptions): Promise<number> {
  const items: BlobItem[] = []
  for (const file of overlay.files) {
    if (files.delete(file.path)) aggregates.removeFile(file.path)
    if (file.contentHash && !file.skipped) {
      items.push({ path: file.path, blob: file.contentHash, language: file.language })
      files.set(file.path, { path: file.path, blob: file.contentHash, language: file.language, dirty: true })
    }
  }
  if (overlay.files.length === 0) return 0
  // The sync just stored these records: one missing now was lost, and comes back from its file.
  await summarizeBlobs(
    index,
    items,
    opts,
    (item, summary) => {
      if (!summary.skipped) aggregates.addFile(item.path, summary)
    },
    { expected: true, readBytes: (item) => readWorkingContent(index.repo, item.path, item.blob) },
  )
  aggregates.finish()
  return overlay.files.length
}

/** An artifact, and whether its chunks' text was read (asked of git, or held by its record). */
interface ReadArtifact {
  artifact: FileArtifact
  textRead(): boolean
}

/** A file's artifact; a record lost or damaged since the context was opened is extracted again on the spot (see BlobStore.readOrHeal). */
function readArtifact(index: IndexContext, texts: ChunkTexts, source: FileSource, warn: (message: string) => void): ReadArtifact | null {
  const record = index.blobs.readOrHeal(source, { path: source.path, dirty: source.dirty })
  index.repairs.flush(warn)
  if (!record || record.skipped) return null
  let textRead = false
  const text = (): string | undefined => {
    textRead = true
    const read = texts.text(source.blob, record.artifact.lineCount, record.redacted === true)
    index.repairs.flush(warn)
    return read
  }
  const columns = record.artifact.references
  const artifact: FileArtifact = { ...withChunkText(record.artifact, text), references: [] }
  // Made on first use: a page of references takes a few rows of each of hundreds of files (see referencesNamed).
  Object.defineProperty(artifact, 'references', {
    configurable: true,
    enumerable: true,
    get: () => {
      const references = fromReferenceColumns(columns)
      Object.defineProperty(artifact, 'references', { value: references, configurable: true, enumerable: true, writable: true })
      return references
    },
  })
  storedReferences.set(artifact, columns)
  return { artifact, textRead: () => textRead }
}

/** The stored reference columns of the artifacts readArtifact made (see referencesNamed). */
const storedReferences = new WeakMap<FileArtifact, ReferenceColumns>()

/**
 * The references of `artifact` named one of `names`, each with its index in `artifact.references`,
 * in that order: from a stored artifact's columns, without making its other references (refs
 * schedule_work on Linux looks at 1,400 files of about a thousand references each).
 */
export function referencesNamed(artifact: FileArtifact, names: ReadonlySet<string>): Array<{ row: number; ref: SymbolRef }> {
  const columns = storedReferences.get(artifact)
  if (columns) return rowsNamed(columns, names).map((row) => ({ row, ref: referenceAt(columns, row) }))
  return artifact.references.flatMap((ref, row) => (names.has(ref.name) ? [{ row, ref }] : []))
}

/** The blobs of the committed files among `paths` whose text is still to read: an uncommitted file's record holds its text. */
function* committedBlobs(paths: Iterable<string>, files: Map<string, FileSource>, hasText: (path: string) => boolean): Iterable<string> {
  for (const path of paths) {
    const source = files.get(path)
    if (source && !source.dirty && !hasText(path)) yield source.blob
  }
}
