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
 *
 * Damage is found where it is read: a pack index that fails its checksum, a pack shorter than its
 * index says (its records beyond the end are missing), a record that fails its checksum. All of it
 * is noted in the store's Repairs; a reader that must have the record (a query's artifact) calls
 * `readOrHeal`, which extracts it again on the spot.
 */
import { closeSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { CorruptFileError } from '../errors.js'
import { EXTRACTOR_VERSION } from '../parse/version.js'
import type { LanguageId } from '../parse/types.js'
import {
  checkRecord,
  ensureDirSync,
  listDirConfinedSync,
  openConfinedSync,
  readAtSync,
  readFileConfinedSync,
  readRecordSync,
  removeConfinedSync,
  faultOr,
  tempPathFor,
  unlessUnwritableSync,
  writeFileAtomicSync,
  writeRecordSync,
  type VltPaths,
} from '../store/index.js'
import { BLOB_RECORD_KIND, BLOB_RECORD_VERSION, decodeBlobRecord, type BlobRecord } from './blob-task.js'
import type { HealItem, RecordHealer } from './heal.js'
import { plural, Repairs } from './repairs.js'

/** From this many records on, a build packs them; fewer are written loose. */
export const PACK_MIN_RECORDS = 256

export const PACK_INDEX_KIND = 'blob-pack-index'
export const PACK_INDEX_VERSION = 1
const PACK_SUFFIX = '.pack'
/** A loose record's file name under its fan-out folder: the rest of the blob hash, the language. */
const LOOSE_NAME = /^([0-9a-f]{38}|[0-9a-f]{62})\.([A-Za-z0-9_-]+)\.mpk$/
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

/**
 * Every packed record by key, each in the pack that holds it whole (the last pack read wins a key
 * two packs hold). A record's place is two numbers, its pack and its entry in that pack's index,
 * rather than an object: a cold query looks up every record of the tree (78k on Linux) to find
 * the missing ones, but reads only a few hundred.
 */
class PackedRecords {
  private readonly slots = new Map<string, number>()
  private readonly indexes: PackIndex[] = []
  /** Per slot: the index in `indexes` of its pack, and its entry there. */
  private readonly packOf: number[] = []
  private readonly entryOf: number[] = []

  /** Adds the records of `index` whose entry passes `whole`. */
  add(index: PackIndex, whole: (entry: number) => boolean = () => true): void {
    const pack = this.indexes.push(index) - 1
    index.keys.forEach((key, entry) => {
      if (!whole(entry)) return
      this.slots.set(key, this.packOf.length)
      this.packOf.push(pack)
      this.entryOf.push(entry)
    })
  }

  has(key: string): boolean {
    return this.slots.has(key)
  }

  get(key: string): Packed | undefined {
    const slot = this.slots.get(key)
    return slot === undefined ? undefined : this.at(slot)
  }

  /** The records of the pack named `pack`, by key. */
  *inPack(pack: string): Generator<[string, Packed]> {
    for (const [key, slot] of this.slots) if (this.indexes[this.packOf[slot]!]!.pack === pack) yield [key, this.at(slot)]
  }

  private at(slot: number): Packed {
    const index = this.indexes[this.packOf[slot]!]!
    const entry = this.entryOf[slot]!
    return { pack: index.pack, offset: index.offsets[entry]!, length: index.lengths[entry]! }
  }
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

/** Where a record's content is, should it have to be extracted again. */
export interface RecordOrigin {
  /** The file's path: its working-tree copy serves when git lacks the object, if it is the same content. */
  path?: string
  /** An uncommitted file (the key hashes its working-tree content): read from there only. */
  dirty?: boolean
}

/** What `inspect` found among a set of keys. */
export interface RecordInspection<K extends BlobKey> {
  missing: K[]
  damaged: Array<{ key: K; error: CorruptFileError }>
}

export class BlobStore {
  /** Every packed record by key, read from the packs' indexes on first use. */
  private packed: PackedRecords | undefined
  /** Pack indexes and packs found damaged by this store (reported once each): path → reason. */
  readonly damagedFiles = new Map<string, string>()
  /** False once `.vlt/` was found unwritable (see stopStoring). */
  private storingRecords = true

  /**
   * `repairs` collects the damage this store finds; `healer` extracts records again for `readOrHeal`
   * (a store without one, as in a learning thread, reads what is there and nothing more).
   */
  constructor(
    private readonly paths: VltPaths,
    readonly repairs: Repairs = new Repairs(),
    private readonly healer?: RecordHealer,
  ) {}

  get packsDir(): string {
    return this.paths.blobPacks(EXTRACTOR_VERSION)
  }

  /** The directory of this extractor version's records: absent when none was ever written (or it was removed). */
  get recordsDir(): string {
    return join(this.paths.objects, String(EXTRACTOR_VERSION))
  }

  loosePath(key: BlobKey): string {
    return this.paths.blobRecord(key.blob, EXTRACTOR_VERSION, key.language)
  }

  /** The key's record, undefined when none is stored. Throws CorruptFileError for a damaged one. */
  read(key: BlobKey): BlobRecord | undefined {
    const path = this.loosePath(key)
    const loose = readFileConfinedSync(path)
    return loose ? decodeBlobRecord(loose, path) : this.readPacked(key, true)
  }

  /**
   * The key's record for a reader that needs it (a query reading chunk text): one missing or damaged
   * is extracted again (from git or the working tree, see RecordOrigin) while this thread waits, stored
   * loose and noted in the repairs for the caller to report. With it, the other damaged records of
   * the same pack are healed too (a garbled pack is one repair, not one per query). Undefined when
   * that fails as well (noted).
   */
  readOrHeal(key: BlobKey, origin: RecordOrigin = {}): BlobRecord | undefined {
    let damage: CorruptFileError | undefined
    try {
      const record = this.read(key)
      if (record) return record
      // Another process may have packed it since the indexes were read: look once more before extracting.
      this.packed = undefined
      const again = this.read(key)
      if (again) return again
    } catch (error) {
      if (!(error instanceof CorruptFileError)) throw error
      damage = error
    }
    if (!this.healer) return undefined
    const items: HealItem[] = [{ blob: key.blob, language: key.language, ...origin }]
    const at = damage && this.packed?.get(keyOf(key))
    if (at) items.push(...this.damagedInPack(at.pack).filter((other) => keyOf(other) !== keyOf(key)))
    const results = this.healer.extract(items)
    let healed: BlobRecord | undefined
    let restored = 0
    const failures: string[] = []
    results.forEach((result, i) => {
      const item = items[i]!
      if ('error' in result) return failures.push(result.error)
      restored++
      this.storeHealed(item, result.encoded)
      if (i === 0) healed = decodeBlobRecord(result.encoded, this.loosePath(item))
    })
    this.repairs.recordsRestored(restored)
    if (failures.length > 0) this.repairs.recordsLost(failures.length, failures[0]!)
    return healed
  }

  /**
   * Reads the packs' indexes now rather than at the first record looked up: a query does it while
   * git reads the working tree for its sync (on Linux, 78 indexes of 78k records: ~50 ms).
   */
  readPackIndexes(): void {
    this.packedRecords()
  }

  /** The keys among `keys` that have no record here: neither loose nor in a pack that holds it whole. */
  missing<K extends BlobKey>(keys: Iterable<K>): K[] {
    const packed = this.packedRecords()
    const missing: K[] = []
    for (const key of keys) if (!packed.has(keyOf(key)) && !lstatSync(this.loosePath(key), { throwIfNoEntry: false })) missing.push(key)
    return missing
  }

  /**
   * Reads every record of `keys` (each pack once) and says which are missing and which damaged;
   * `decode` unpacks each as well (verify), else framing and checksum are checked (status).
   */
  inspect<K extends BlobKey>(keys: Iterable<K>, decode: boolean): RecordInspection<K> {
    const check = (bytes: Uint8Array, path: string): void => {
      if (decode) {
        const record = decodeBlobRecord(bytes, path)
        // Its analysed docs are decoded on first use: verify decodes them too.
        if (!record.skipped) void record.analyzed
      } else checkRecord(bytes, BLOB_RECORD_KIND, BLOB_RECORD_VERSION, path)
    }
    const result: RecordInspection<K> = { missing: [], damaged: [] }
    const byPack = new Map<string, Array<{ key: K; at: Packed }>>()
    const packed = this.packedRecords()
    for (const key of keys) {
      const loose = this.loosePath(key)
      // Most records are packed: a stat says so without the cost of an ENOENT exception per record.
      const bytes = lstatSync(loose, { throwIfNoEntry: false }) ? readFileConfinedSync(loose) : undefined
      if (bytes) {
        try {
          check(bytes, loose)
        } catch (error) {
          if (!(error instanceof CorruptFileError)) throw error
          result.damaged.push({ key, error })
        }
        continue
      }
      const at = packed.get(keyOf(key))
      if (!at) result.missing.push(key)
      else {
        const entries = byPack.get(at.pack)
        if (entries) entries.push({ key, at })
        else byPack.set(at.pack, [{ key, at }])
      }
    }
    for (const [pack, entries] of byPack) {
      const path = join(this.packsDir, pack)
      const bytes = readFileConfinedSync(path)
      if (!bytes) {
        // Removed since its index was read (gc): its records are missing.
        result.missing.push(...entries.map(({ key }) => key))
        continue
      }
      for (const { key, at } of entries) {
        try {
          check(bytes.subarray(at.offset, at.offset + at.length), `${path} (record at byte ${at.offset})`)
        } catch (error) {
          if (!(error instanceof CorruptFileError)) throw error
          result.damaged.push({ key, error })
        }
      }
    }
    return result
  }

  /** Whether records extracted again are stored (see stopStoring). */
  /**
   * Every record this store holds, as stored: the packed ones (each pack read once), then the loose
   * ones. For another store to import (coderag merge), which checks each record before taking it.
   */
  *storedRecords(): Generator<{ key: string; encoded: Buffer; path: string }> {
    for (const index of this.packIndexes()) {
      const path = join(this.packsDir, index.pack)
      const bytes = readFileConfinedSync(path)
      if (!bytes) continue
      for (const [i, key] of index.keys.entries()) {
        const end = index.offsets[i]! + index.lengths[i]!
        if (end <= bytes.length) yield { key, encoded: bytes.subarray(index.offsets[i]!, end), path }
      }
    }
    for (const fan of listDirConfinedSync(this.recordsDir)) {
      if (!/^[0-9a-f]{2}$/.test(fan)) continue
      for (const name of listDirConfinedSync(join(this.recordsDir, fan))) {
        const match = LOOSE_NAME.exec(name)
        const path = join(this.recordsDir, fan, name)
        const encoded = match ? readFileConfinedSync(path) : undefined
        if (encoded) yield { key: `${fan}${match![1]}.${match![2]}`, encoded, path }
      }
    }
  }

  get storing(): boolean {
    return this.storingRecords
  }

  /**
   * `.vlt/` cannot be written (read-only, full; said once by whoever found it): from now on records
   * extracted again serve from memory only, and `writeLoose` stores nothing.
   */
  stopStoring(): void {
    this.storingRecords = false
  }

  /** Stores one record as its own file. */
  writeLoose(key: BlobKey, encoded: Uint8Array): void {
    if (!this.storingRecords) return
    // No fsync: a record is a cache entry whose checksum catches a write torn by a power cut.
    writeFileAtomicSync(this.loosePath(key), encoded, { durable: false })
  }

  packWriter(limits: PackLimits = DEFAULT_LIMITS): PackWriter {
    return new PackWriter(this, limits)
  }

  /** The readable pack indexes, by file name; damaged ones are noted in the repairs (once per store) and skipped. */
  packIndexes(): PackIndex[] {
    const indexes: PackIndex[] = []
    for (const name of listDirConfinedSync(this.packsDir)) {
      if (!name.endsWith(INDEX_SUFFIX)) continue
      const path = join(this.packsDir, name)
      try {
        const index = readRecordSync<PackIndex>(path, PACK_INDEX_KIND, PACK_INDEX_VERSION)
        if (index) indexes.push(index)
      } catch (error) {
        if (!(error instanceof CorruptFileError)) throw error
        this.noteUnreadable(error)
      }
    }
    return indexes
  }

  /**
   * Mends the packs found damaged: one whose index is damaged is removed, an index whose pack is
   * gone too, and a pack cut short is rewritten with the records it still holds whole. The records
   * lost are then missing, for the caller to extract again. For writers, under the index lock.
   */
  mendPacks(): number {
    let mended = 0
    const indexes = new Map(this.packIndexes().map((index) => [packId(index.pack), index]))
    for (const name of listDirConfinedSync(this.packsDir)) {
      if (!name.endsWith(INDEX_SUFFIX)) continue
      const id = name.slice(0, -INDEX_SUFFIX.length)
      const index = indexes.get(id)
      const size = lstatSync(join(this.packsDir, id + PACK_SUFFIX), { throwIfNoEntry: false })?.size
      if (!index || size === undefined) this.removePack(id)
      else {
        const whole = index.keys.flatMap((_, i) => (index.offsets[i]! + index.lengths[i]! <= size ? [i] : []))
        if (whole.length === index.keys.length) continue
        this.rewritePack(index, whole)
      }
      mended++
    }
    if (mended > 0) this.packed = undefined
    return mended
  }

  /**
   * Drops the packed records whose keys `live` lacks: a pack left with none is removed, one left
   * with less than half is rewritten with only those, and a pack without an index (its build was
   * killed) is removed once it is an hour old. A record packed twice counts for its first pack.
   */
  prunePacks(live: ReadonlySet<string>): { removed: number; freedBytes: number } {
    let removed = 0
    let freedBytes = 0
    const claimed = new Set<string>()
    this.mendPacks()
    const indexes = this.packIndexes()
    for (const index of indexes) {
      const kept = index.keys.flatMap((key, i) => (live.has(key) && !claimed.has(key) ? [i] : []))
      kept.forEach((i) => claimed.add(index.keys[i]!))
      if (kept.length * 2 >= index.keys.length) continue
      // Measured before removing; a rewrite frees only what its smaller copy does not take back.
      freedBytes += this.packBytes(index.pack)
      for (const pack of this.rewritePack(index, kept)) freedBytes -= this.packBytes(pack)
      removed += index.keys.length - kept.length
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
   * Rewrites each pack holding one of `keys` without those records (damaged ones, which are then
   * extracted again): afterwards no pack holds a bad copy that a reader could find. Under the index lock.
   */
  dropPackedRecords(keys: Iterable<BlobKey>): number {
    const drop = new Set([...keys].map(keyOf))
    let rewritten = 0
    for (const index of this.packIndexes()) {
      const kept = index.keys.flatMap((key, i) => (drop.has(key) ? [] : [i]))
      if (kept.length === index.keys.length) continue
      this.rewritePack(index, kept)
      rewritten++
    }
    if (rewritten > 0) this.packed = undefined
    return rewritten
  }

  /**
   * Removes the packs (other than `written`'s own) whose every record `written` has stored again:
   * a forced rebuild would otherwise leave a second copy of the whole index behind.
   */
  retireSuperseded(written: PackWriter): number {
    let retired = 0
    for (const index of this.packIndexes()) {
      if (written.packs.has(index.pack) || !index.keys.every((key) => written.keys.has(key))) continue
      this.removePack(packId(index.pack))
      retired++
    }
    if (retired > 0) this.packed = undefined
    return retired
  }

  /** Bytes of a pack (by file name) and its index. */
  private packBytes(pack: string): number {
    return sizeOf(join(this.packsDir, pack)) + sizeOf(join(this.packsDir, packId(pack) + INDEX_SUFFIX))
  }

  /** Removes a pack, its index first so that no reader finds an index without its pack. */
  removePack(id: string): void {
    removeConfinedSync(join(this.packsDir, id + INDEX_SUFFIX))
    removeConfinedSync(join(this.packsDir, id + PACK_SUFFIX))
  }

  /** A pack this process just finished: its records are readable at once, without rescanning. */
  registerPack(index: PackIndex): void {
    this.packed?.add(index)
  }

  /** Replaces a pack by one holding only its records at `kept` (none: the pack is removed); returns the packs written. */
  private rewritePack(index: PackIndex, kept: number[]): string[] {
    const path = join(this.packsDir, index.pack)
    let written: string[] = []
    if (kept.length > 0) {
      const writer = this.packWriter({ records: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY })
      try {
        for (const i of kept) {
          const bytes = readRange(path, index.offsets[i]!, index.lengths[i]!)
          if (!bytes) throw new Error(`${path} disappeared while gc was rewriting it`)
          writer.add(index.keys[i]!, bytes)
        }
        writer.finish()
        written = [...writer.packs]
      } finally {
        writer.abort()
      }
    }
    this.removePack(packId(index.pack))
    return written
  }

  /** Served from memory all the same when it cannot be stored (a read-only .vlt/, noted for the command's one line); the next run extracts it again. */
  private storeHealed(key: BlobKey, encoded: Uint8Array): void {
    unlessUnwritableSync(() => this.writeLoose(key, encoded))
  }

  /** Records of `pack` that fail their checksum, not shadowed by a loose copy: the others a garbled pack needs healed. */
  private damagedInPack(pack: string): BlobKey[] {
    const path = join(this.packsDir, pack)
    const bytes = readFileConfinedSync(path)
    if (!bytes) return []
    const damaged: BlobKey[] = []
    for (const [name, at] of this.packedRecords().inPack(pack)) {
      const key = parseKey(name)
      try {
        checkRecord(bytes.subarray(at.offset, at.offset + at.length), BLOB_RECORD_KIND, BLOB_RECORD_VERSION, path)
      } catch (error) {
        if (!(error instanceof CorruptFileError)) throw error
        if (!lstatSync(this.loosePath(key), { throwIfNoEntry: false })) damaged.push(key)
      }
    }
    return damaged
  }

  private readPacked(key: BlobKey, retry: boolean): BlobRecord | undefined {
    const at = this.packedRecords().get(keyOf(key))
    if (!at) return undefined
    const path = join(this.packsDir, at.pack)
    const bytes = readRange(path, at.offset, at.length)
    if (!bytes) {
      if (!retry) return undefined
      // gc repacked or removed it since the indexes were read.
      this.packed = undefined
      return this.readPacked(key, false)
    }
    return decodeBlobRecord(bytes, `${path} (record at byte ${at.offset})`)
  }

  /** The packed records by key, each in a pack that holds it whole: a pack cut short (or gone) loses the records beyond its end. */
  private packedRecords(): PackedRecords {
    if (!this.packed) {
      // Kept only once complete: a read that fails midway must not leave records looking missing.
      const packed = new PackedRecords()
      for (const index of this.packIndexes()) {
        const path = join(this.packsDir, index.pack)
        const size = lstatSync(path, { throwIfNoEntry: false })?.size
        let lost = 0
        packed.add(index, (i) => {
          if (size !== undefined && index.offsets[i]! + index.lengths[i]! <= size) return true
          lost++
          return false
        })
        if (lost > 0) this.noteUnreadable(new CorruptFileError(path, size === undefined ? `missing (its index lists ${plural(lost, 'record')})` : `${size} bytes, shorter than its index says: ${plural(lost, 'record')} lost`))
      }
      this.packed = packed
    }
    return this.packed
  }

  private noteUnreadable(error: CorruptFileError): void {
    if (this.damagedFiles.has(error.path)) return
    this.damagedFiles.set(error.path, error.reason)
    this.repairs.damaged(error)
  }
}

/** `<blob>.<language>` → its key. */
export function parseKey(key: string): BlobKey {
  const dot = key.indexOf('.')
  return { blob: key.slice(0, dot), language: key.slice(dot + 1) as LanguageId }
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
  /** Set by abort(): a job still in flight when its build failed must not start another pack. */
  private aborted = false

  constructor(
    private readonly store: BlobStore,
    private readonly limits: PackLimits,
  ) {}

  /** Appends the record stored under `key` (see keyOf). A failed write (a full disk) throws an EnvironmentFault; abort() removes the pack. */
  add(key: string, encoded: Uint8Array): void {
    if (this.aborted) throw new Error('the pack writer was aborted')
    if (this.fd === undefined) this.start()
    try {
      for (let written = 0; written < encoded.length; ) written += writeSync(this.fd!, encoded, written)
    } catch (error) {
      throw faultOr(error, this.temp)
    }
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
    try {
      renameSync(this.temp, join(dir, this.id + PACK_SUFFIX))
    } catch (error) {
      this.removeTemp()
      throw faultOr(error, this.temp)
    }
    const index: PackIndex = { pack: this.id + PACK_SUFFIX, keys: this.pending, offsets: Float64Array.from(this.offsets), lengths: Uint32Array.from(this.lengths) }
    try {
      writeRecordSync(join(dir, this.id + INDEX_SUFFIX), PACK_INDEX_KIND, PACK_INDEX_VERSION, index, { durable: false })
    } catch (error) {
      // A pack without its index is never read: removed now rather than by gc an hour later (a full disk needs the room).
      removeConfinedSync(join(dir, this.id + PACK_SUFFIX))
      throw error
    }
    this.store.registerPack(index)
    this.packs.add(index.pack)
    for (const key of this.pending) this.keys.add(key)
    this.pending = []
    this.offsets = []
    this.lengths = []
  }

  /** Drops the pack in progress (a failed build); finished packs stay. */
  abort(): void {
    this.aborted = true
    if (this.fd === undefined) return
    closeSync(this.fd)
    this.fd = undefined
    this.removeTemp()
  }

  private removeTemp(): void {
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
    try {
      this.fd = openSync(this.temp, 'wx')
    } catch (error) {
      throw faultOr(error, this.temp)
    }
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
    return readAtSync(fd, offset, length)
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
