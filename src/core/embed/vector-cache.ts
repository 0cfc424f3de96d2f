/**
 * Vectors already paid for, keyed by (provider id, chunk hash), shared by every commit and branch.
 *
 *   .vlt/vectors/<sha1(provider id), 16 hex>/
 *     index.mpk              which segment holds which hashes (20-byte SHA-1s); rebuilt from the
 *                            segments if it is damaged
 *     <time>-<rand>.seg.mpk  a segment: up to ~64 MB of (hash, float32 vector) rows, never modified
 *
 * A segment is one checksummed record, so a damaged one is detected whole and dropped (its chunks
 * are embedded again). Writers take the 'vectors' lock and write segment then index, each by
 * atomic rename; readers take no lock and, should a compaction remove a segment under them,
 * re-read the index once.
 */
import { createHash, randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { CorruptFileError, VltError } from '../errors.js'
import { listDirConfined, readRecord, removeConfined, withLock, writeRecord, type VltPaths } from '../store/index.js'

const SEGMENT_KIND = 'vector-segment'
const SEGMENT_VERSION = 1
const INDEX_KIND = 'vector-cache-index'
const INDEX_VERSION = 1
const HASH_BYTES = 20
const SEGMENT_NAME = /^[0-9a-z]+-[0-9a-f]+\.seg\.mpk$/
/** Large enough that 200k vectors make tens of files, small enough to rewrite during compaction. */
const MAX_SEGMENT_BYTES = 64 * 1024 * 1024
/** Beyond this many segments, small ones are merged. */
const MAX_SEGMENTS = 64

interface SegmentRecord {
  dimensions: number
  /** Row i's chunk hash: bytes [20i, 20i+20). */
  hashes: Uint8Array
  /** Row i's vector: [dimensions·i, dimensions·(i+1)). */
  vectors: Float32Array
}

interface IndexRecord {
  providerId: string
  dimensions: number
  segments: SegmentEntry[]
}

interface SegmentEntry {
  name: string
  hashes: Uint8Array
}

/** `.vlt/vectors/<16 hex>`: the provider id is hashed because it holds URLs and slashes. */
export function vectorCacheDir(paths: VltPaths, providerId: string): string {
  return join(paths.root, 'vectors', providerKey(providerId))
}

/** Short stable name for a provider id, for directory and file names. */
export function providerKey(providerId: string): string {
  return createHash('sha1').update(providerId).digest('hex').slice(0, 16)
}

export class VectorCache {
  readonly dir: string
  /** Segments found damaged by getMany; the next putMany removes them. */
  private readonly damaged = new Set<string>()

  constructor(private readonly paths: VltPaths, readonly providerId: string) {
    this.dir = vectorCacheDir(paths, providerId)
  }

  /** The cached vectors among `hashes` (hex SHA-1); absent ones are simply missing from the map. */
  async getMany(hashes: Iterable<string>): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>()
    let wanted = new Set(hashes)
    // A second pass only when a concurrent compaction removed a segment between index and read.
    for (let pass = 0; pass < 2 && wanted.size > 0; pass++) {
      const index = await this.readIndex()
      if (!index) break
      const vanished = await this.collect(index, wanted, found)
      if (!vanished) break
      wanted = new Set([...wanted].filter((hash) => !found.has(hash)))
    }
    return found
  }

  /** Adds vectors not cached yet. All vectors of a provider must have one length. */
  async putMany(entries: Iterable<readonly [string, Float32Array]>): Promise<void> {
    const fresh = new Map(entries)
    if (fresh.size === 0 && this.damaged.size === 0) return
    await withLock(this.paths.root, () => this.putLocked(fresh), { name: 'vectors' })
  }

  private async putLocked(fresh: Map<string, Float32Array>): Promise<void> {
    const index = (await this.readIndex()) ?? { providerId: this.providerId, dimensions: 0, segments: [] }
    const listed = index.segments.length
    index.segments = index.segments.filter((segment) => !this.damaged.has(segment.name))
    const droppedDamaged = index.segments.length < listed
    this.damaged.clear()

    const present = new Set<string>()
    for (const segment of index.segments) forEachHash(segment.hashes, (hash) => present.add(hash))
    const rows: Array<[string, Float32Array]> = []
    for (const [hash, vector] of fresh) {
      if (present.has(hash)) continue
      if (!/^[0-9a-f]{40}$/.test(hash)) throw new Error(`vector cache keys are SHA-1 hex strings: ${JSON.stringify(hash)}`)
      if (index.segments.length === 0 && rows.length === 0) index.dimensions = vector.length
      if (vector.length !== index.dimensions) {
        throw new VltError(`vector of length ${vector.length} for a cache of ${index.dimensions}-dimensional vectors (${this.providerId})`)
      }
      rows.push([hash, vector])
    }
    if (rows.length === 0 && !droppedDamaged) return

    const rowsPerSegment = Math.max(1, Math.floor(MAX_SEGMENT_BYTES / (index.dimensions * 4)))
    for (let start = 0; start < rows.length; start += rowsPerSegment) {
      index.segments.push(await this.writeSegment(index.dimensions, rows.slice(start, start + rowsPerSegment)))
    }
    await this.compact(index)
    await writeRecord(join(this.dir, 'index.mpk'), INDEX_KIND, INDEX_VERSION, index)
    await this.removeUnlisted(index)
  }

  /** Reads the segments holding wanted hashes into `found`. Returns true if a listed segment no longer exists. */
  private async collect(index: IndexRecord, wanted: Set<string>, found: Map<string, Float32Array>): Promise<boolean> {
    let vanished = false
    for (const segment of index.segments) {
      const rows: Array<[number, string]> = []
      forEachHash(segment.hashes, (hash, row) => {
        if (wanted.has(hash) && !found.has(hash)) rows.push([row, hash])
      })
      if (rows.length === 0) continue
      const record = await this.readSegment(segment)
      if (record === 'missing') {
        vanished = true
        continue
      }
      if (!record) continue
      const d = record.dimensions
      // A fully used segment is handed out as views; otherwise copies, so unused rows can be freed.
      const share = rows.length === segment.hashes.length / HASH_BYTES
      for (const [row, hash] of rows) {
        found.set(hash, share ? record.vectors.subarray(row * d, (row + 1) * d) : record.vectors.slice(row * d, (row + 1) * d))
      }
    }
    return vanished
  }

  /** The segment, 'missing' if it is gone, undefined (and noted for removal) if it cannot be trusted. */
  private async readSegment(segment: SegmentEntry): Promise<SegmentRecord | 'missing' | undefined> {
    const path = join(this.dir, segment.name)
    try {
      const record = await readRecord<SegmentRecord>(path, SEGMENT_KIND, SEGMENT_VERSION)
      if (!record) return 'missing'
      if (!Buffer.from(record.hashes).equals(Buffer.from(segment.hashes)) || record.vectors.length !== (record.hashes.length / HASH_BYTES) * record.dimensions) {
        throw new CorruptFileError(path, 'segment contents disagree with the cache index')
      }
      return record
    } catch (error) {
      if (!(error instanceof CorruptFileError)) throw error
      this.damaged.add(segment.name)
      return undefined
    }
  }

  /** The index, rebuilt from the segment files when it is damaged; undefined when the cache is empty. */
  private async readIndex(): Promise<IndexRecord | undefined> {
    try {
      const index = await readRecord<IndexRecord>(join(this.dir, 'index.mpk'), INDEX_KIND, INDEX_VERSION)
      if (!index || index.providerId === this.providerId) return index
    } catch (error) {
      if (!(error instanceof CorruptFileError)) throw error
    }
    return this.rebuildIndex()
  }

  private async rebuildIndex(): Promise<IndexRecord | undefined> {
    const index: IndexRecord = { providerId: this.providerId, dimensions: 0, segments: [] }
    for (const name of await this.segmentFiles()) {
      try {
        const record = await readRecord<SegmentRecord>(join(this.dir, name), SEGMENT_KIND, SEGMENT_VERSION)
        if (!record || (index.segments.length > 0 && record.dimensions !== index.dimensions)) continue
        index.dimensions = record.dimensions
        index.segments.push({ name, hashes: record.hashes })
      } catch (error) {
        if (!(error instanceof CorruptFileError)) throw error
      }
    }
    return index.segments.length > 0 ? index : undefined
  }

  private async writeSegment(dimensions: number, rows: Array<[string, Float32Array]>): Promise<SegmentEntry> {
    const hashes = Buffer.allocUnsafe(rows.length * HASH_BYTES)
    const vectors = new Float32Array(rows.length * dimensions)
    rows.forEach(([hash, vector], row) => {
      hashes.write(hash, row * HASH_BYTES, 'hex')
      vectors.set(vector, row * dimensions)
    })
    const name = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}.seg.mpk`
    await writeRecord(join(this.dir, name), SEGMENT_KIND, SEGMENT_VERSION, { dimensions, hashes, vectors } satisfies SegmentRecord)
    return { name, hashes }
  }

  /**
   * Every run that embeds a few new chunks adds a small segment; past MAX_SEGMENTS, the smallest are
   * merged into one so that reads stay few and large. The merged files are deleted once the new
   * index is written (removeUnlisted).
   */
  private async compact(index: IndexRecord): Promise<void> {
    if (index.segments.length <= MAX_SEGMENTS) return
    const rowBytes = index.dimensions * 4
    const small = index.segments
      .filter((segment) => (segment.hashes.length / HASH_BYTES) * rowBytes < MAX_SEGMENT_BYTES / 4)
      .sort((a, b) => a.hashes.length - b.hashes.length)
    const chosen: SegmentEntry[] = []
    let bytes = 0
    for (const segment of small) {
      const size = (segment.hashes.length / HASH_BYTES) * rowBytes
      if (bytes + size > MAX_SEGMENT_BYTES) break
      chosen.push(segment)
      bytes += size
    }
    if (chosen.length < 2) return
    const rows: Array<[string, Float32Array]> = []
    for (const segment of chosen) {
      const record = await this.readSegment(segment)
      if (!record || record === 'missing') continue
      forEachHash(record.hashes, (hash, row) => rows.push([hash, record.vectors.subarray(row * index.dimensions, (row + 1) * index.dimensions)]))
    }
    const merged = await this.writeSegment(index.dimensions, rows)
    const gone = new Set(chosen.map((segment) => segment.name))
    index.segments = [...index.segments.filter((segment) => !gone.has(segment.name)), merged]
    this.damaged.clear()
  }

  /** Under the lock every listed segment is complete, so an unlisted one is debris: merged away, damaged, or left by a killed writer. */
  private async removeUnlisted(index: IndexRecord): Promise<void> {
    const listed = new Set(index.segments.map((segment) => segment.name))
    for (const name of await this.segmentFiles()) {
      if (listed.has(name)) continue
      await removeConfined(join(this.dir, name))
    }
  }

  private async segmentFiles(): Promise<string[]> {
    return (await listDirConfined(this.dir)).filter((name) => SEGMENT_NAME.test(name)).sort()
  }
}

function forEachHash(hashes: Uint8Array, fn: (hash: string, row: number) => void): void {
  const bytes = Buffer.from(hashes.buffer, hashes.byteOffset, hashes.byteLength)
  for (let row = 0, at = 0; at < bytes.length; row++, at += HASH_BYTES) fn(bytes.toString('hex', at, at + HASH_BYTES), row)
}
