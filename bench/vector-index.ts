/**
 * Approximate nearest neighbours (usearch HNSW, cosine) over one tree's chunk vectors: kept for
 * bench/vectors-bench.ts, which measures it against the exact scan that search uses
 * (src/core/query/search/vector-path.ts), so usearch is a dev dependency only.
 *
 * Stored as two files: `<path>` is usearch's own serialisation, `<path>.meta.mpk` a small record
 * naming the vector space (provider id, dimensions, scalar type) and fingerprinting the usearch
 * file (size, CRC-32), with the key → chunk hash mapping. usearch trusts its file blindly, so the
 * fingerprint is what turns a torn or foreign file into a CorruptFileError instead of a crash or
 * wrong answers.
 */
import { crc32 } from 'node:zlib'
import { readFile, rename, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Index, MetricKind, ScalarKind } from 'usearch'
import { CorruptFileError } from '../src/core/errors.js'
import { ensureDirSync, readFileConfined, readRecord, tempPathFor, writeRecord, type VltPaths } from '../src/core/store/index.js'
import { providerKey } from '../src/core/embed/vector-cache.js'

const META_KIND = 'vector-index-meta'
const META_VERSION = 1
const HASH_BYTES = 20

/** f16 halves memory and file size; see bench/vectors-bench.ts for its effect on recall. */
export type Quantization = 'f32' | 'f16'

export interface VectorIndexEntry {
  /** The caller's id for the vector (e.g. a chunk's ordinal in the tree); a safe integer ≥ 0. */
  key: number
  /** chunkHash of the embedded text. */
  hash: string
  vector: Float32Array
}

export interface VectorSpace {
  providerId: string
  dimensions: number
}

export interface VectorHit {
  key: number
  /** Cosine similarity, 1 = same direction. */
  score: number
}

interface MetaRecord extends VectorSpace {
  quantization: Quantization
  count: number
  fileBytes: number
  fileCrc: number
  keys: Float64Array
  /** keys[i]'s chunk hash: bytes [20i, 20i+20). */
  hashes: Uint8Array
}

/** Where a tree's index lives: `.vlt/trees/<tree>/vectors-<provider key>.usearch`. */
export function vectorIndexPath(paths: VltPaths, treeHash: string, providerId: string): string {
  return join(paths.treeDir(treeHash), `vectors-${providerKey(providerId)}.usearch`)
}

/** Below this many vectors the index is built on one thread (deterministic). */
const SERIAL_BUILD = 20_000

export class VectorIndex {
  private hashByKey: Map<number, string> | undefined

  private constructor(private readonly index: Index, private readonly meta: Omit<MetaRecord, 'fileBytes' | 'fileCrc'>) {}

  static build(entries: readonly VectorIndexEntry[], space: VectorSpace, quantization: Quantization = 'f16'): VectorIndex {
    const d = space.dimensions
    const keys = new Float64Array(entries.length)
    const hashes = Buffer.allocUnsafe(entries.length * HASH_BYTES)
    const matrix = new Float32Array(entries.length * d)
    entries.forEach((entry, i) => {
      if (!Number.isSafeInteger(entry.key) || entry.key < 0) throw new Error(`vector index keys are safe non-negative integers: ${entry.key}`)
      if (entry.vector.length !== d) throw new Error(`vector for key ${entry.key} has ${entry.vector.length} dimensions, the index ${d}`)
      keys[i] = entry.key
      hashes.write(entry.hash, i * HASH_BYTES, 'hex')
      matrix.set(entry.vector, i * d)
    })
    const index = newIndex(d, quantization)
    // Parallel insertion makes the graph depend on thread timing, so the same vectors could answer
    // differently from one build to the next; below SERIAL_BUILD one thread is fast enough.
    if (entries.length > 0) index.add(BigUint64Array.from(keys, (key) => BigInt(key)), matrix, entries.length < SERIAL_BUILD ? 1 : 0)
    return new VectorIndex(index, { ...space, quantization, count: entries.length, keys, hashes })
  }

  get size(): number {
    return this.meta.count
  }

  get space(): VectorSpace {
    return { providerId: this.meta.providerId, dimensions: this.meta.dimensions }
  }

  /** The k nearest vectors to `query`, most similar first. */
  search(query: Float32Array, k: number): VectorHit[] {
    if (this.meta.count === 0 || k <= 0) return []
    if (query.length !== this.meta.dimensions) throw new Error(`query has ${query.length} dimensions, the index ${this.meta.dimensions}`)
    const matches = this.index.search(query, Math.min(k, this.meta.count), 0)
    const hits: VectorHit[] = []
    for (let i = 0; i < matches.keys.length; i++) hits.push({ key: Number(matches.keys[i]), score: 1 - matches.distances[i]! })
    return hits
  }

  /** The chunk hash stored with `key`. */
  hashOf(key: number): string | undefined {
    if (!this.hashByKey) {
      const bytes = Buffer.from(this.meta.hashes.buffer, this.meta.hashes.byteOffset, this.meta.hashes.byteLength)
      this.hashByKey = new Map()
      for (let i = 0; i < this.meta.count; i++) this.hashByKey.set(this.meta.keys[i]!, bytes.toString('hex', i * HASH_BYTES, (i + 1) * HASH_BYTES))
    }
    return this.hashByKey.get(key)
  }

  /** Writes the index then its sidecar, each replaced atomically; a crash in between leaves a mismatch that load detects. */
  async save(path: string): Promise<void> {
    // The native writer follows links: its folder is proven real, and the temp name is fresh.
    ensureDirSync(dirname(path))
    const temp = tempPathFor(path)
    try {
      this.index.save(temp)
      const bytes = await readFile(temp)
      await rename(temp, path)
      await writeRecord(metaPath(path), META_KIND, META_VERSION, { ...this.meta, fileBytes: bytes.length, fileCrc: crc32(bytes) } satisfies MetaRecord)
    } catch (error) {
      await unlink(temp).catch(() => {})
      throw error
    }
  }

  /**
   * The index saved at `path` if it is for `space`; undefined when there is none or it belongs to
   * another provider or dimension (rebuild it). Throws CorruptFileError when either file is damaged
   * or they do not belong together (rebuild it too).
   */
  static async load(path: string, space: VectorSpace): Promise<VectorIndex | undefined> {
    const meta = await readRecord<MetaRecord>(metaPath(path), META_KIND, META_VERSION)
    if (!meta || meta.providerId !== space.providerId || meta.dimensions !== space.dimensions) return undefined
    const bytes = await readFileConfined(path)
    if (bytes === undefined) return undefined
    if (bytes.length !== meta.fileBytes || crc32(bytes) !== meta.fileCrc) {
      throw new CorruptFileError(path, `does not match its sidecar (${bytes.length} bytes, sidecar says ${meta.fileBytes}; or checksum mismatch)`)
    }
    if (meta.keys.length !== meta.count || meta.hashes.length !== meta.count * HASH_BYTES) {
      throw new CorruptFileError(metaPath(path), `key mapping has ${meta.keys.length} keys for ${meta.count} vectors`)
    }
    const index = newIndex(meta.dimensions, meta.quantization)
    index.load(path)
    if (index.size() !== meta.count || index.dimensions() !== meta.dimensions) {
      throw new CorruptFileError(path, `holds ${index.size()} vectors of ${index.dimensions()} dimensions, sidecar says ${meta.count} of ${meta.dimensions}`)
    }
    const { fileBytes: _bytes, fileCrc: _crc, ...rest } = meta
    return new VectorIndex(index, rest)
  }
}

function newIndex(dimensions: number, quantization: Quantization): Index {
  return new Index({
    dimensions,
    metric: MetricKind.Cos,
    quantization: quantization === 'f16' ? ScalarKind.F16 : ScalarKind.F32,
    // 0 = usearch's defaults (connectivity 16, expansion 128 / 64).
    connectivity: 0,
    expansion_add: 0,
    expansion_search: 0,
    multi: false,
  })
}

function metaPath(path: string): string {
  return `${path}.meta.mpk`
}
