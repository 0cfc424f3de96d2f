/**
 * Indexing split over machines (a CI matrix): `coderag init --shard K/N` extracts only its share of
 * HEAD's blobs — a stable split by blob hash, so a content lands in one shard whatever its paths —
 * into `.vlt/objects/`, and builds nothing else; `coderag merge DIR…` takes the records of every
 * shard's `.vlt` (the job artifacts), then indexes HEAD as `coderag init` does, extracting only
 * what no shard brought. Records are content addressed, so shards of another tree or extractor
 * simply bring fewer usable ones; each is checked (checksum, kind, format version) before it is
 * taken, and a damaged one is extracted here instead and reported.
 */
import { resolve } from 'node:path'
import { lstatSync } from 'node:fs'
import { CorruptFileError, VltError } from '../errors.js'
import { EXTRACTOR_VERSION } from '../parse/version.js'
import { checkRecord, confineTo, sweepTempFiles, vltPaths, withLock } from '../store/index.js'
import { BlobStore, PACK_MIN_RECORDS, parseKey } from './blob-store.js'
import { BLOB_RECORD_KIND, BLOB_RECORD_VERSION } from './blob-task.js'
import { selectTree, summarizeBlobs, type BlobItem, type BuildOptions } from './build.js'
import { openIndexContext } from './context.js'
import { initIndex, lockOptions, type InitResult } from './index.js'
import { plural } from './repairs.js'

/** `<blob hash>.<language>`, as keyOf writes it (SHA-1 or SHA-256 repositories). */
const RECORD_KEY = /^(?:[0-9a-f]{40}|[0-9a-f]{64})\.[a-z0-9][a-z0-9_-]*$/

export interface Shard {
  /** 1-based, as the user writes it (`--shard 2/4`). */
  index: number
  count: number
}

/** `K/N` with 1 ≤ K ≤ N; undefined for anything else (the command says how to write it). */
export function parseShard(text: string): Shard | undefined {
  const match = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim())
  if (!match) return undefined
  const shard = { index: Number(match[1]), count: Number(match[2]) }
  return shard.index >= 1 && shard.index <= shard.count ? shard : undefined
}

/** The shard a content belongs to: its blob hash's first 32 bits, modulo the count. */
export function inShard(blob: string, shard: Shard): boolean {
  return Number.parseInt(blob.slice(0, 8), 16) % shard.count === shard.index - 1
}

export interface ShardResult {
  treeHash: string
  shard: Shard
  /** Files of the tree in this shard (secrets and files over max_file_bytes are no shard's: never read). */
  files: number
  /** Of those, extracted by this run (the others' records were here, or in the remote cache). */
  extracted: number
  /** Where the records are: the directory to hand to `coderag merge` (the shard's `.vlt`). */
  vltDir: string
  durationMs: number
}

/** Extracts this shard's share of HEAD's blobs into `.vlt/objects/`; no tree, state or commit index is written. */
export async function extractShard(cwd: string, shard: Shard, opts: BuildOptions): Promise<ShardResult> {
  const started = Date.now()
  const ctx = await openIndexContext(cwd)
  const result = await withLock(
    ctx.paths.root,
    async (lock) => {
      if (opts.sweep || lock.recovered) await sweepTempFiles(ctx.paths.root)
      const tree = ctx.repo.head.tree
      const { wanted } = await selectTree(ctx, tree)
      const items: BlobItem[] = wanted
        .filter(({ entry, secret }) => !secret && entry.size <= ctx.config.index.maxFileBytes && inShard(entry.blob, shard))
        .map(({ entry, language }) => ({ path: entry.path, blob: entry.blob, language }))
      const extracted = await summarizeBlobs(ctx, items, opts, () => {})
      return { treeHash: tree, shard, files: items.length, extracted: extracted.length, vltDir: ctx.paths.root, durationMs: Date.now() - started }
    },
    lockOptions(opts),
  )
  ctx.repairs.flush(opts.warn)
  ctx.remote?.flush(opts.warn, { summary: true })
  return result
}

export interface MergeResult extends InitResult {
  merged: {
    /** The shards' `.vlt` directories, as given. */
    shards: string[]
    /** Records taken from them (those this repository lacked). */
    records: number
    /** Records that failed their checks, extracted here instead. */
    rejected: number
  }
}

/** Takes the records of the shards' `.vlt` directories this repository lacks, then indexes HEAD (initIndex). */
export async function mergeShards(cwd: string, shardDirs: string[], opts: BuildOptions): Promise<MergeResult> {
  const ctx = await openIndexContext(cwd)
  const sources = shardDirs.map((dir) => shardStore(dir))
  let records = 0
  let rejected = 0
  await withLock(
    ctx.paths.root,
    async () => {
      const pack = ctx.blobs.packWriter()
      const loose: Array<{ key: string; encoded: Buffer }> = []
      try {
        for (const source of sources) {
          for (const { key, encoded, path } of source.storedRecords()) {
            // A shard's pack index names its keys: one that is not ours in form is damage, never a path.
            if (!RECORD_KEY.test(key)) {
              rejected++
              continue
            }
            const blobKey = parseKey(key)
            if (ctx.blobs.missing([blobKey]).length === 0) continue
            try {
              checkRecord(encoded, BLOB_RECORD_KIND, BLOB_RECORD_VERSION, path)
            } catch (error) {
              if (!(error instanceof CorruptFileError)) throw error
              rejected++
              continue
            }
            // A few are written loose, as a build writes a few; many are packed.
            if (loose.length < PACK_MIN_RECORDS) loose.push({ key, encoded })
            else pack.add(key, encoded)
            records++
          }
        }
        if (records >= PACK_MIN_RECORDS) for (const { key, encoded } of loose) pack.add(key, encoded)
        else for (const { key, encoded } of loose) ctx.blobs.writeLoose(parseKey(key), encoded)
        pack.finish()
      } finally {
        pack.abort()
      }
    },
    lockOptions(opts),
  )
  if (rejected > 0) opts.warn(`warning: merge: ${plural(rejected, 'record')} from the shards failed their checks and were extracted here`)
  const result = await initIndex(cwd, opts)
  return { ...result, merged: { shards: shardDirs, records, rejected } }
}

/** A shard's `.vlt` directory, read under the same confinement as ours: no link inside it is followed. */
function shardStore(dir: string): BlobStore {
  const root = resolve(dir)
  const info = lstatSync(root, { throwIfNoEntry: false })
  if (!info?.isDirectory()) throw new VltError(`merge: ${dir} is not a directory (give the .vlt directory a 'coderag init --shard' run wrote)`)
  confineTo(root)
  const store = new BlobStore(vltPaths(root))
  if (!lstatSync(store.recordsDir, { throwIfNoEntry: false })) {
    throw new VltError(`merge: ${dir} holds no records of extractor version ${EXTRACTOR_VERSION} (give the .vlt directory a 'coderag init --shard' run of this git-vlt wrote)`)
  }
  return store
}
