/**
 * The commit index on disk: commit records grouped in packs (`commits/packs/<id>.mpk`, id = hash
 * of the commits a pack holds), and `commits/index.mpk`, which names the packs that make up
 * HEAD's history, newest first. A sync writes new packs, then the index (atomically): a reader
 * sees the old set of packs or the new one, and a pack the index does not name is garbage a
 * later sync removes.
 */
import { createHash } from 'node:crypto'
import { lstat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { CorruptFileError } from '../errors.js'
import { dirExistsSync, listDirConfined, readRecord, removeConfined, writeRecord, type VltPaths } from '../store/index.js'
import type { CommitRecord } from './types.js'

export const COMMIT_INDEX_KIND = 'commit-index'
export const COMMIT_INDEX_VERSION = 1
export const COMMIT_PACK_KIND = 'commit-pack'
/** Bumped when the record changes, the message analysis its `terms` come from (search/analyze.ts) included. */
export const COMMIT_PACK_VERSION = 1

export interface PackRef {
  id: string
  commits: number
}

export interface CommitIndexRecord {
  /** The HEAD commit whose history this is; null for an unborn branch. */
  head: string | null
  /** `[commits] max_commits` it was built with (0 = all). */
  maxCommits: number
  /** Newest first; within a pack, commits are in `git log` order (newest first). */
  packs: PackRef[]
  /** ISO time of the last change. */
  updatedAt: string
}

interface PackRecord {
  commits: readonly CommitRecord[]
}

/**
 * The index, undefined when there is none; throws CorruptFileError, also for a record whose head
 * is no object id or whose pack ids are no plain names: the head goes on git's command line, and a
 * `.vlt/` that came with a clone must not choose git's options.
 */
export async function readCommitIndex(paths: VltPaths): Promise<CommitIndexRecord | undefined> {
  const record = await readRecord<CommitIndexRecord>(paths.commitIndex, COMMIT_INDEX_KIND, COMMIT_INDEX_VERSION)
  if (!record) return undefined
  const wellFormed = (record.head === null || (typeof record.head === 'string' && OBJECT_ID.test(record.head)))
    && Number.isSafeInteger(record.maxCommits)
    && Array.isArray(record.packs)
    && record.packs.every((pack) => typeof pack?.id === 'string' && PACK_ID.test(pack.id) && Number.isSafeInteger(pack.commits))
  if (!wellFormed) throw new CorruptFileError(paths.commitIndex, 'malformed commit index (head, packs)')
  return record
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/
const PACK_ID = /^[0-9a-f]{24}$/

export async function writeCommitIndex(paths: VltPaths, record: CommitIndexRecord): Promise<void> {
  await writeRecord(paths.commitIndex, COMMIT_INDEX_KIND, COMMIT_INDEX_VERSION, record)
}

/** A pack's commits; a missing pack is reported as corrupt (the index names it, so it should be there). */
export async function readPack(paths: VltPaths, id: string): Promise<readonly CommitRecord[]> {
  const path = paths.commitPack(id)
  const pack = await readRecord<PackRecord>(path, COMMIT_PACK_KIND, COMMIT_PACK_VERSION)
  if (!pack) throw new CorruptFileError(path, 'missing: the commit index names it')
  return pack.commits
}

/** Writes `commits` as one pack (not durable: the index written after it is, and a torn pack is detected and rebuilt). */
export async function writePack(paths: VltPaths, commits: readonly CommitRecord[]): Promise<PackRef> {
  const id = packIdOf(commits)
  await writeRecord(paths.commitPack(id), COMMIT_PACK_KIND, COMMIT_PACK_VERSION, { commits } satisfies PackRecord, { durable: false })
  return { id, commits: commits.length }
}

/** Removes the pack files `keep` does not name (left by a rewrite, a merge of packs, a killed sync). */
export async function removeOtherPacks(paths: VltPaths, keep: readonly PackRef[]): Promise<void> {
  const dir = dirname(paths.commitPack('x'))
  const wanted = new Set(keep.map((pack) => `${pack.id}.mpk`))
  for (const name of await listDirConfined(dir)) {
    // Temp files of a writer still running are its own to finish (sweepTempFiles handles abandoned ones).
    if (!wanted.has(name) && name.endsWith('.mpk')) await removeConfined(join(dir, name))
  }
}

/** The size of the regular file at `path` inside `.vlt/` (links not followed), or undefined when there is none. */
export async function confinedSize(path: string): Promise<number | undefined> {
  if (!dirExistsSync(dirname(path))) return undefined
  const info = await lstat(path).catch(() => undefined)
  return info?.isFile() ? info.size : undefined
}

/** Bytes of the index and its packs (for status). */
export async function commitIndexBytes(paths: VltPaths, record: CommitIndexRecord | undefined): Promise<number> {
  if (!record) return 0
  const sizes = await Promise.all([paths.commitIndex, ...record.packs.map((pack) => paths.commitPack(pack.id))].map(confinedSize))
  return sizes.reduce((sum: number, size) => sum + (size ?? 0), 0)
}

/** A pack's id: the hash of the commits it holds, in order. */
export function packIdOf(commits: readonly CommitRecord[]): string {
  const hash = createHash('sha1')
  for (const commit of commits) hash.update(commit.hash).update('\n')
  return hash.digest('hex').slice(0, 24)
}

/** The pack id a pack file's name carries. */
export function packIdOfPath(path: string): string {
  return basename(path, '.mpk')
}

/**
 * Reads the index and every pack it names, decoding each: what is missing or damaged, by path, and
 * the ids of the packs to read from git again. For `coderag verify`.
 */
export async function inspectCommitIndex(paths: VltPaths): Promise<{ records: number; problems: Array<{ path: string; problem: string }>; damagedPacks: string[] }> {
  let index: CommitIndexRecord | undefined
  try {
    index = await readCommitIndex(paths)
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error
    return { records: 1, problems: [{ path: paths.commitIndex, problem: error.reason }], damagedPacks: [] }
  }
  if (!index) return { records: 0, problems: [{ path: paths.commitIndex, problem: 'missing' }], damagedPacks: [] }
  const problems: Array<{ path: string; problem: string }> = []
  const damagedPacks: string[] = []
  for (const pack of index.packs) {
    try {
      await readPack(paths, pack.id)
    } catch (error) {
      if (!(error instanceof CorruptFileError)) throw error
      problems.push({ path: error.path, problem: error.reason })
      damagedPacks.push(pack.id)
    }
  }
  return { records: 1 + index.packs.length, problems, damagedPacks }
}
