/**
 * Where blob records live. A record is stored under its key (blob hash, language; the extractor
 * version names the directory) either loose, one file, as a sync of a few files writes it, or in
 * a pack, as a large build writes them: on Linux 10k, creating a file per record cost a cold init
 * ~5 s of kernel time (ext4 inode allocation); a pack holds up to a thousand records.
 *
 *   objects/<v>/<hh>/<rest>.<language>.mpk   a loose record
 *   objects/<v>/packs/<id>.pack              records back to back, each a whole record (header, checksum)
 *   objects/<v>/packs/<id>.idx               record `blob-pack-index`: the pack's keys, offsets and lengths
 *
 * A pack is renamed into place before its index is written, and readers only know packs through
 * their indexes: a run killed in between leaves a pack nobody reads, which gc removes. Readers look
 * for a loose record first, so one re-extracted after damage in a pack shadows the damaged copy.
 */
import { closeSync, lstatSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { CorruptFileError } from '../errors.js'
import { EXTRACTOR_VERSION } from '../parse/version.js'
import type { LanguageId } from '../parse/types.js'
import {
  decodeRecord,
  ensureDirSync,
  listDirConfinedSync,
  openConfinedSync,
  readRecordSync,
  removeConfinedSync,
  tempPathFor,
  writeFileAtomicSync,
  writeRecordSync,
  type VltPaths,
} from '../store/index.js'
import { BLOB_RECORD_KIND, BLOB_RECORD_VERSION, type BlobRecord } from './blob-task.js'

export const PACK_INDEX_KIND = 'blob-pack-index'
export const PACK_INDEX_VERSION = 1
const PACK_SUFFIX = '.pack'
const INDEX_SUFFIX = '.idx'

export interface BlobKey {
  blob: string
  language: LanguageId
}

/** What a pack's index record holds: entry i is `keys[i]`, `lengths[i]` bytes at `offsets[i]` of `pack`. */
export interface PackIndex {
  pack: string
  keys: string[]
  offsets: Float64Array
  lengths: Uint32Array
}

interface Packed {
  pack: string
  offset: number
  length: number
}

/** How many records, or bytes, a pack holds before the next one is started (a killed build loses at most one). */
export interface PackLimits {
  records: number
  bytes: number
}

const DEFAULT_LIMITS: PackLimits = { records: 1000, bytes: 64 << 20 }
/** A pack without an index younger than this may still be getting its index written. */
const ORPHAN_AGE_MS = 60 * 60 * 1000

export function keyOf({ blob, language }: BlobKey): string {
  return `${blob}.${language}`
}

export class BlobStore {
  /** Every packed record by key, read from the packs' indexes on first use. */
  private packed: Map<string, Packed> | undefined
  /** Damaged pack indexes already reported by this store. */
  private readonly reported = new Set<string>()

  constructor(private readonly paths: VltPaths) {}

  get packsDir(): string {
    return this.paths.blobPacks(EXTRACTOR_VERSION)
  }

  loosePath(key: BlobKey): string {
    return this.paths.blobRecord(key.blob, EXTRACTOR_VERSION, key.language)
  }

  /** The key's record, undefined when none is stored. Throws CorruptFileError for a damaged one. */
  read(key: BlobKey, warn: (message: string) => void): BlobRecord | undefined {
    return readRecordSync<BlobRecord>(this.loosePath(key), BLOB_RECORD_KIND, BLOB_RECORD_VERSION) ?? this.readPacked(key, warn, true)
  }

  /** Stores one record as its own file. */
  writeLoose(key: BlobKey, encoded: Uint8Array): void {
    // No fsync: a record is a cache entry whose checksum catches a write torn by a power cut.
    writeFileAtomicSync(this.loosePath(key), encoded, { durable: false })
  }

  packWriter(limits: PackLimits = DEFAULT_LIMITS): PackWriter {
    return new PackWriter(this, limits)
  }

  /** The pack indexes present, by file name; damaged ones are reported (once per store) and removed with their pack. */
  packIndexes(warn: (message: string) => void): PackIndex[] {
    const indexes: PackIndex[] = []
    for (const name of listDirConfinedSync(this.packsDir)) {
      if (!name.endsWith(INDEX_SUFFIX)) continue
      const path = join(this.packsDir, name)
      try {
        const index = readRecordSync<PackIndex>(path, PACK_INDEX_KIND, PACK_INDEX_VERSION)
        if (index) indexes.push(index)
      } catch (error) {
        if (!(error instanceof CorruptFileError)) throw error
        if (!this.reported.has(path)) warn(`warning: ${error.message}; its records will be extracted again`)
        this.reported.add(path)
        this.removePack(name.slice(0, -INDEX_SUFFIX.length))
      }
    }
    return indexes
  }

  /**
   * Drops the packed records whose keys `live` lacks: a pack left with none is removed, one left
   * with less than half is rewritten with only those, and a pack without an index (its build was
   * killed) is removed once it is an hour old. A record packed twice counts for its first pack.
   */
  prunePacks(live: ReadonlySet<string>, warn: (message: string) => void): { removed: number; freedBytes: number } {
    let removed = 0
    let freedBytes = 0
    const claimed = new Set<string>()
    const indexes = this.packIndexes(warn)
    for (const index of indexes) {
      const kept = index.keys.flatMap((key, i) => (live.has(key) && !claimed.has(key) ? [i] : []))
      kept.forEach((i) => claimed.add(index.keys[i]!))
      if (kept.length * 2 >= index.keys.length) continue
      const path = join(this.packsDir, index.pack)
      if (kept.length > 0) {
        const writer = this.packWriter({ records: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY })
        try {
          for (const i of kept) {
            const bytes = readRange(path, index.offsets[i]!, index.lengths[i]!)
            if (!bytes) throw new Error(`${path} disappeared while gc was rewriting it`)
            writer.add(index.keys[i]!, bytes)
          }
          writer.finish()
        } finally {
          writer.abort()
        }
      }
      freedBytes += sizeOf(path)
      removed += index.keys.length - kept.length
      this.removePack(packId(index.pack))
    }
    const indexed = new Set(indexes.map((index) => index.pack))
    for (const name of listDirConfinedSync(this.packsDir)) {
      if (!name.endsWith(PACK_SUFFIX) || indexed.has(name)) continue
      const path = join(this.packsDir, name)
      if (Date.now() - mtimeOf(path) < ORPHAN_AGE_MS) continue
      freedBytes += sizeOf(path)
      removeConfinedSync(path)
    }
    if (removed > 0) this.packed = undefined
    return { removed, freedBytes }
  }

  /**
   * Removes the packs (other than `written`'s own) whose every record `written` has stored again:
   * a forced rebuild would otherwise leave a second copy of the whole index behind.
   */
  retireSuperseded(written: PackWriter, warn: (message: string) => void): number {
    let retired = 0
    for (const index of this.packIndexes(warn)) {
      if (written.packs.has(index.pack) || !index.keys.every((key) => written.keys.has(key))) continue
      this.removePack(packId(index.pack))
      retired++
    }
    if (retired > 0) this.packed = undefined
    return retired
  }

  /** Removes a pack, its index first so that no reader finds an index without its pack. */
  removePack(id: string): void {
    removeConfinedSync(join(this.packsDir, id + INDEX_SUFFIX))
    removeConfinedSync(join(this.packsDir, id + PACK_SUFFIX))
  }

  /** A pack this process just finished: its records are readable at once, without rescanning. */
  registerPack(index: PackIndex): void {
    if (!this.packed) return
    index.keys.forEach((key, i) => this.packed!.set(key, { pack: index.pack, offset: index.offsets[i]!, length: index.lengths[i]! }))
  }

  private readPacked(key: BlobKey, warn: (message: string) => void, retry: boolean): BlobRecord | undefined {
    const at = this.packedRecords(warn).get(keyOf(key))
    if (!at) return undefined
    const path = join(this.packsDir, at.pack)
    const bytes = readRange(path, at.offset, at.length)
    if (!bytes) {
      if (!retry) return undefined
      // gc repacked or removed it since the indexes were read.
      this.packed = undefined
      return this.readPacked(key, warn, false)
    }
    return decodeRecord<BlobRecord>(bytes, BLOB_RECORD_KIND, BLOB_RECORD_VERSION, `${path} (record at byte ${at.offset})`)
  }

  private packedRecords(warn: (message: string) => void): Map<string, Packed> {
    if (!this.packed) {
      this.packed = new Map()
      for (const index of this.packIndexes(warn)) this.registerPack(index)
    }
    return this.packed
  }
}

/**
 * Appends records to a pack, starting a new one at the limits. Records become readable when their
 * pack is finished: at a limit, or at `finish()`.
 */
export class PackWriter {
  /** Keys and pack file names this writer has finished. */
  readonly keys = new Set<string>()
  readonly packs = new Set<string>()
  private fd: number | undefined
  private temp = ''
  private id = ''
  private size = 0
  private pending: string[] = []
  private offsets: number[] = []
  private lengths: number[] = []

  constructor(
    private readonly store: BlobStore,
    private readonly limits: PackLimits,
  ) {}

  /** Appends the record stored under `key` (see keyOf). */
  add(key: string, encoded: Uint8Array): void {
    if (this.fd === undefined) this.start()
    for (let written = 0; written < encoded.length; ) written += writeSync(this.fd!, encoded, written)
    this.pending.push(key)
    this.offsets.push(this.size)
    this.lengths.push(encoded.length)
    this.size += encoded.length
    if (this.pending.length >= this.limits.records || this.size >= this.limits.bytes) this.finish()
  }

  /** Makes the records added so far readable. */
  finish(): void {
    if (this.fd === undefined) return
    closeSync(this.fd)
    this.fd = undefined
    const dir = this.store.packsDir
    renameSync(this.temp, join(dir, this.id + PACK_SUFFIX))
    const index: PackIndex = { pack: this.id + PACK_SUFFIX, keys: this.pending, offsets: Float64Array.from(this.offsets), lengths: Uint32Array.from(this.lengths) }
    writeRecordSync(join(dir, this.id + INDEX_SUFFIX), PACK_INDEX_KIND, PACK_INDEX_VERSION, index, { durable: false })
    this.store.registerPack(index)
    this.packs.add(index.pack)
    for (const key of this.pending) this.keys.add(key)
    this.pending = []
    this.offsets = []
    this.lengths = []
  }

  /** Drops the pack in progress (a failed build); finished packs stay. */
  abort(): void {
    if (this.fd === undefined) return
    closeSync(this.fd)
    this.fd = undefined
    try {
      unlinkSync(this.temp)
    } catch {
      // Already gone: nothing to clean.
    }
  }

  private start(): void {
    const dir = this.store.packsDir
    ensureDirSync(dir)
    this.id = randomBytes(8).toString('hex')
    this.temp = tempPathFor(join(dir, this.id + PACK_SUFFIX))
    this.fd = openSync(this.temp, 'wx')
    this.size = 0
  }
}

/** `<id>.pack` → `<id>`. */
function packId(packName: string): string {
  return packName.slice(0, -PACK_SUFFIX.length)
}

/** The bytes at `offset`, or undefined when the pack is gone. A pack that is a link or a FIFO is refused (store/confine.ts). */
function readRange(path: string, offset: number, length: number): Buffer | undefined {
  const fd = openConfinedSync(path)
  if (fd === undefined) return undefined
  try {
    const bytes = Buffer.allocUnsafe(length)
    let filled = 0
    while (filled < length) {
      const read = readSync(fd, bytes, filled, length - filled, offset + filled)
      if (read === 0) break
      filled += read
    }
    return filled === length ? bytes : bytes.subarray(0, filled)
  } finally {
    closeSync(fd)
  }
}

function sizeOf(path: string): number {
  try {
    return lstatSync(path).size
  } catch {
    return 0
  }
}

function mtimeOf(path: string): number {
  try {
    return lstatSync(path).mtimeMs
  } catch {
    return Date.now()
  }
}
