import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chunkHash } from '../../src/core/embed/text.js'
import { VectorIndex, vectorIndexPath, type VectorIndexEntry } from '../../bench/vector-index.js'
import { CorruptFileError } from '../../src/core/errors.js'
import { confineTo, vltPaths } from '../../src/core/store/index.js'
import { fakeEmbedding } from '../helpers/fake-embeddings-server.js'

const SPACE = { providerId: 'openai:127.0.0.1:1:m:native', dimensions: 16 }

/** 200 deterministic unit vectors with keys 1000, 1001, … */
const entries: VectorIndexEntry[] = Array.from({ length: 200 }, (_, i) => ({ key: 1000 + i, hash: chunkHash(`text ${i}`), vector: fakeEmbedding(`text ${i}`, 16) }))

/** Brute-force cosine neighbours, the ground truth. */
function exact(query: Float32Array, k: number): number[] {
  const scored = entries.map((entry) => ({ key: entry.key, score: entry.vector.reduce((sum, v, i) => sum + v * query[i]!, 0) }))
  return scored.sort((a, b) => b.score - a.score).slice(0, k).map((hit) => hit.key)
}

function nudged(vector: Float32Array, seed: number): Float32Array {
  return vector.map((v, i) => v + 0.05 * Math.sin(seed + i))
}

describe('VectorIndex', () => {
  let root: string
  let path: string
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'vlt-vindex-'))
    confineTo(root)
    path = join(root, 'vectors.usearch')
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  it('finds the true nearest neighbours (f32)', () => {
    const index = VectorIndex.build(entries, SPACE, 'f32')
    for (let q = 0; q < 20; q++) {
      const query = nudged(entries[q * 7]!.vector, q)
      const hits = index.search(query, 5)
      assert.deepEqual(hits.map((hit) => hit.key), exact(query, 5))
      assert.equal(hits[0]!.key, entries[q * 7]!.key)
      assert.ok(hits[0]!.score > 0.95 && hits[0]!.score <= 1.0001, `score ${hits[0]!.score}`)
      assert.ok(hits.every((hit, i) => i === 0 || hit.score <= hits[i - 1]!.score))
    }
  })

  it('keeps the nearest neighbour and nearly all of the top 5 in f16', () => {
    const index = VectorIndex.build(entries, SPACE, 'f16')
    let found = 0
    for (let q = 0; q < 20; q++) {
      const query = nudged(entries[q * 7]!.vector, q)
      const hits = index.search(query, 5).map((hit) => hit.key)
      assert.equal(hits[0], entries[q * 7]!.key)
      const truth = new Set(exact(query, 5))
      found += hits.filter((key) => truth.has(key)).length
    }
    // Half-precision rounding may swap near-ties at the edge of the top 5.
    assert.ok(found >= 95, `recall@5 ${found}/100`)
  })

  it('round-trips through save and load with its key mapping', async () => {
    const built = VectorIndex.build(entries, SPACE)
    await built.save(path)
    const loaded = await VectorIndex.load(path, SPACE)
    assert.ok(loaded)
    assert.equal(loaded.size, 200)
    const query = entries[42]!.vector
    assert.deepEqual(loaded.search(query, 3), built.search(query, 3))
    assert.equal(loaded.search(query, 1)[0]!.key, 1042)
    assert.equal(loaded.hashOf(1042), chunkHash('text 42'))
    assert.equal(loaded.hashOf(7), undefined)
  })

  it('is absent when missing or saved for another provider or dimension', async () => {
    assert.equal(await VectorIndex.load(path, SPACE), undefined)
    await VectorIndex.build(entries, SPACE).save(path)
    assert.equal(await VectorIndex.load(path, { ...SPACE, providerId: 'other' }), undefined)
    assert.equal(await VectorIndex.load(path, { ...SPACE, dimensions: 32 }), undefined)
  })

  it('detects a corrupt sidecar', async () => {
    await VectorIndex.build(entries, SPACE).save(path)
    const sidecar = `${path}.meta.mpk`
    const bytes = readFileSync(sidecar)
    bytes[20]! ^= 0x01
    writeFileSync(sidecar, bytes)
    await assert.rejects(VectorIndex.load(path, SPACE), (error: Error) => error instanceof CorruptFileError && /checksum mismatch/.test(error.message))
  })

  it('detects an index file that does not match its sidecar', async () => {
    await VectorIndex.build(entries, SPACE).save(path)
    const bytes = readFileSync(path)
    writeFileSync(path, bytes.subarray(0, bytes.length - 100))
    await assert.rejects(VectorIndex.load(path, SPACE), (error: Error) => error instanceof CorruptFileError && /does not match its sidecar/.test(error.message))
    await VectorIndex.build(entries.slice(0, 50), SPACE).save(join(root, 'other.usearch'))
    writeFileSync(path, readFileSync(join(root, 'other.usearch')))
    await assert.rejects(VectorIndex.load(path, SPACE), CorruptFileError)
  })

  it('handles an empty index and rejects a query of the wrong length', () => {
    assert.deepEqual(VectorIndex.build([], SPACE).search(entries[0]!.vector, 3), [])
    assert.throws(() => VectorIndex.build(entries, SPACE).search(new Float32Array(8), 3), /query has 8 dimensions, the index 16/)
  })

  it('stores per tree under .vlt/trees/<tree>/', () => {
    const paths = vltPaths('/repo/.vlt')
    const tree = 'a'.repeat(40)
    assert.match(vectorIndexPath(paths, tree, SPACE.providerId), new RegExp(`^/repo/\\.vlt/trees/${tree}/vectors-[0-9a-f]{16}\\.usearch$`))
  })
})
