/**
 * A tree's term associations: learned from the committed files' artifacts and kept as one record
 * beside the tree's aggregates — by `coderag init` while it writes them, else on the first search
 * that needs them. A delta tree uses its anchor's (what a few changed files would teach is noise),
 * so a one-file commit does not relearn. A damaged or outdated record is reported once, rebuilt
 * and replaced.
 */
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { CorruptFileError, VltError } from '../errors.js'
import type { BlobKey, BlobStore } from '../index/blob-store.js'
import type { ManifestFile, TreeBeingBuilt } from '../index/index.js'
import { ChunkTexts, withChunkText } from '../index/chunk-text.js'
import type { Repo } from '../git/index.js'
import { WorkerPool } from '../index/pool.js'
import type { Chunk } from '../parse/types.js'
import type { QueryContext } from '../query/context.js'
import { acquireLock, readRecord, unlessUnwritable, writeRecord, type Lock } from '../store/index.js'
import { learnAssociations, type TermAssociations } from './term-associations.js'

export const ASSOCIATIONS_RECORD_KIND = 'term-associations'
export const ASSOCIATIONS_RECORD_VERSION = 1
export const ASSOCIATIONS_FILE = 'term-associations.mpk'

/**
 * Files read to learn from, spread evenly over the tree: on Linux reading every artifact takes
 * ~14 s, and a few thousand files already hold tens of thousands of documented chunks.
 */
export const MAX_LEARNING_FILES = 3000

export interface LoadedAssociations {
  model: TermAssociations
  /** Set when a stored record could not be used and was rebuilt. */
  warning?: string
}

/** One model per query context: the MCP server's warm context learns or loads it once. */
const loaded = new WeakMap<QueryContext, Promise<LoadedAssociations>>()

/** The tree's model; a rebuild's warning goes to the first caller only. */
export function treeAssociations(qctx: QueryContext): Promise<LoadedAssociations> {
  const cached = loaded.get(qctx)
  if (cached) return cached
  const first = loadOrLearn(qctx)
  const later = first.then(({ model }) => ({ model }))
  // A failed load is not cached: the next search tries again (the first caller gets the error).
  later.catch(() => loaded.delete(qctx))
  loaded.set(qctx, later)
  return first
}

export function associationsPath(qctx: QueryContext): string {
  return join(qctx.index.paths.treeDir(qctx.manifest.aggregatesTree), ASSOCIATIONS_FILE)
}

/** What a learning worker is asked: the blob records to learn from (in `vltDir`), and where to store the model. */
export interface LearningTask {
  /** Where the records' chunk text is read from (see index/chunk-text.ts). */
  repo: Repo
  vltDir: string
  records: BlobKey[]
  outPath: string
}

/** Models being learned in worker threads, by record path. */
const learning = new Map<string, Promise<void>>()

/**
 * Learns the tree's model in a worker thread unless it is stored already. A warm server (the MCP
 * server, the query daemon) starts this as soon as it has an index, so that its first prose
 * search finds the model ready instead of spending seconds on it (Linux 10k: ~3 s) — and its
 * definition and reference queries never wait behind the learning.
 */
export function learnInBackground(qctx: QueryContext): Promise<void> {
  const outPath = associationsPath(qctx)
  let pending = learning.get(outPath)
  if (!pending) {
    pending = existsSync(outPath) ? Promise.resolve() : learnOnce(qctx, { repo: qctx.index.repo, vltDir: qctx.index.paths.root, records: learningRecords(qctx.manifest.files), outPath })
    learning.set(outPath, pending)
    pending.then(() => learning.delete(outPath), () => learning.delete(outPath))
  }
  return pending
}

/**
 * Servers started together (ten MCP clients on one repository) would each spend seconds learning
 * the same model: the first to take the tree's lock learns it, the others leave it to that one.
 */
async function learnOnce(qctx: QueryContext, task: LearningTask): Promise<void> {
  let lock: Lock
  try {
    lock = await acquireLock(qctx.index.paths.root, { name: learningLockName(qctx), waitMs: 0 })
  } catch (error) {
    if (error instanceof VltError) return
    throw error
  }
  try {
    if (!existsSync(task.outPath)) await learnInWorker(task)
  } finally {
    lock.release()
  }
}

/** The lock (under `.vlt/locks/`) whose holder is learning the tree's model. */
export function learningLockName(qctx: QueryContext): string {
  return `term-associations-${qctx.manifest.aggregatesTree}`
}

/**
 * The learning thread's heap limits. Its live data is small (Linux: ~30 MB of model), but each
 * batch of records and texts it reads outlives a few young collections and is promoted, and V8
 * lets an unbounded heap's old space grow to ~100 MB of such garbage before collecting it: the
 * thread held ~160 MB beside `coderag init`'s finishing, ~70 MB with these limits. A model that
 * does not fit stops the thread (the pool gives the task up): the first prose search learns it.
 */
const LEARNING_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 8 }

async function learnInWorker(task: LearningTask): Promise<void> {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './learn-worker.ts' : './learn-worker.js', import.meta.url)
  const pool = new WorkerPool<LearningTask, null>(entry, 1, { resourceLimits: LEARNING_LIMITS })
  try {
    await pool.run(task)
  } finally {
    await pool.close()
  }
}

async function loadOrLearn(qctx: QueryContext): Promise<LoadedAssociations> {
  const path = associationsPath(qctx)
  // A worker already on it: its record is what this would compute (if it fails, learn here).
  await learning.get(path)?.catch(() => {})
  let warning: string | undefined
  try {
    const stored = await readRecord<TermAssociations>(path, ASSOCIATIONS_RECORD_KIND, ASSOCIATIONS_RECORD_VERSION)
    if (stored) return { model: stored }
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error
    warning = `${error.message}; rebuilt the term associations`
  }
  const model = learnAssociations(chunksOf(qctx.index.blobs, new ChunkTexts(qctx.index.repo, qctx.index.repairs), learningRecords(qctx.manifest.files)))
  // A cache: in a `.vlt/` that cannot be written, learned again next time.
  await unlessUnwritable(() => writeRecord(path, ASSOCIATIONS_RECORD_KIND, ASSOCIATIONS_RECORD_VERSION, model))
  return warning ? { model, warning } : { model }
}

/**
 * Learns the model of a tree `coderag init` is building, in a worker thread once the tree's
 * aggregates are written (BuildOptions.afterAggregates): the first prose search after
 * init then finds it stored instead of learning it (Linux: most of that search's 6.4 s). A failure
 * is only warned about: that search learns it then.
 */
export async function learnAfterAggregates(tree: TreeBeingBuilt, warn: (message: string) => void): Promise<void> {
  try {
    await mkdir(tree.dir, { recursive: true })
    await learnInWorker({ repo: tree.repo, vltDir: tree.vltDir, records: learningRecords(tree.files), outPath: join(tree.dir, ASSOCIATIONS_FILE) })
  } catch (error) {
    warn(`warning: learning the term associations failed (the first prose search learns them): ${(error as Error).message}`)
  }
}

/** The blob records of a spread of the tree's committed files (see MAX_LEARNING_FILES). */
function learningRecords(manifestFiles: readonly ManifestFile[]): BlobKey[] {
  const files = manifestFiles.filter((file) => !file.skipped)
  const step = Math.max(1, files.length / MAX_LEARNING_FILES)
  const keys: BlobKey[] = []
  for (let at = 0; at < files.length; at += step) {
    const { blob, language } = files[Math.floor(at)]!
    keys.push({ blob, language })
  }
  return keys
}

/**
 * The chunks of the given blob records, read straight from the store so that learning neither
 * fills the query context's artifact cache nor depends on the overlay. A record lost or damaged is
 * extracted again when the store can (a query's own store; a learning thread's goes without it).
 */
export function* chunksOf(store: BlobStore, texts: ChunkTexts, records: readonly BlobKey[]): Iterable<Chunk> {
  for (let start = 0; start < records.length; start += TEXT_BATCH) {
    const batch = records.slice(start, start + TEXT_BATCH).map((key) => ({ key, record: store.readOrHeal(key) }))
    // Only a documented chunk's code is read (learnAssociations): a file without one needs no text from git.
    texts.prefetch(batch.filter(({ record }) => record && !record.skipped && record.artifact.chunks.some(documented)).map(({ key }) => key.blob))
    for (const { key, record } of batch) {
      if (record && !record.skipped) yield* withChunkText(record.artifact, () => texts.text(key.blob, record.artifact.lineCount, record.redacted === true)).chunks
    }
  }
}

function documented(chunk: { docstring: string }): boolean {
  return chunk.docstring.trim() !== ''
}

/** Files whose text one git run reads for learning: a few megabytes of Linux source at a time. */
const TEXT_BATCH = 128
