import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { VectorCache, vectorCacheDir } from '../../src/core/embed/vector-cache.js'
import { chunkHash } from '../../src/core/embed/text.js'
import { vltPaths, type VltPaths } from '../../src/core/store/index.js'
import { fakeEmbedding } from '../helpers/fake-embeddings-server.js'

const PROVIDER = 'openai:127.0.0.1:1:test-model:native'

function rows(texts: string[], d = 6): Array<[string, Float32Array]> {
  return texts.map((text) => [chunkHash(text), fakeEmbedding(text, d)])
}

describe('VectorCache', () => {
  let root: string
  let paths: VltPaths
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'vlt-vectors-'))
    paths = vltPaths(join(root, '.vlt'))
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  const segments = (cache: VectorCache): string[] => readdirSync(cache.dir).filter((name) => name.endsWith('.seg.mpk')).sort()

  it('lives under .vlt/vectors/<16 hex of the provider id>', () => {
    assert.match(new VectorCache(paths, PROVIDER).dir, new RegExp(`^${join(root, '.vlt', 'vectors')}/[0-9a-f]{16}$`))
    assert.notEqual(vectorCacheDir(paths, PROVIDER), vectorCacheDir(paths, `${PROVIDER}x`))
  })

  it('returns what was put, across instances, and nothing for unknown hashes', async () => {
    const written = rows(['a', 'b', 'c'])
    await new VectorCache(paths, PROVIDER).putMany(written)
    const cache = new VectorCache(paths, PROVIDER)
    const got = await cache.getMany([...written.map(([hash]) => hash), chunkHash('unknown')])
    assert.deepEqual([...got.entries()].sort(), [...written].sort())
    assert.equal((await new VectorCache(paths, 'other-provider').getMany([written[0]![0]])).size, 0)
  })

  it('appends one segment per put and skips hashes already cached', async () => {
    const cache = new VectorCache(paths, PROVIDER)
    await cache.putMany(rows(['a', 'b']))
    await cache.putMany(rows(['b', 'c']))
    await cache.putMany(rows(['a', 'c']))
    assert.equal(segments(cache).length, 2)
    assert.equal((await cache.getMany(rows(['a', 'b', 'c']).map(([hash]) => hash))).size, 3)
  })

  it('refuses vectors of another length than the cached ones', async () => {
    const cache = new VectorCache(paths, PROVIDER)
    await cache.putMany(rows(['a'], 6))
    await assert.rejects(cache.putMany(rows(['b'], 7)), /length 7 for a cache of 6-dimensional vectors/)
  })

  it('drops a damaged segment: its vectors read as misses and are re-cached', async () => {
    const cache = new VectorCache(paths, PROVIDER)
    await cache.putMany(rows(['a', 'b']))
    await cache.putMany(rows(['c']))
    const [first] = segments(cache)
    const path = join(cache.dir, first!)
    const bytes = readFileSync(path)
    bytes[bytes.length - 10]! ^= 0xff
    writeFileSync(path, bytes)

    const hashes = rows(['a', 'b', 'c']).map(([hash]) => hash)
    const got = await cache.getMany(hashes)
    assert.deepEqual([...got.keys()], [chunkHash('c')])
    await cache.putMany(rows(['a', 'b']))
    assert.ok(!segments(cache).includes(first!), 'damaged segment removed')
    assert.equal((await new VectorCache(paths, PROVIDER).getMany(hashes)).size, 3)
  })

  it('rebuilds a damaged index from the segments', async () => {
    const cache = new VectorCache(paths, PROVIDER)
    await cache.putMany(rows(['a', 'b']))
    await cache.putMany(rows(['c']))
    writeFileSync(join(cache.dir, 'index.mpk'), 'garbage')
    const got = await new VectorCache(paths, PROVIDER).getMany(rows(['a', 'b', 'c']).map(([hash]) => hash))
    assert.deepEqual([...got.entries()].sort(), rows(['a', 'b', 'c']).sort())
  })

  it('keeps every vector when writers race', async () => {
    const texts = Array.from({ length: 8 }, (_, i) => `chunk ${i}`)
    await Promise.all(texts.map((text) => new VectorCache(paths, PROVIDER).putMany(rows([text, 'shared']))))
    const got = await new VectorCache(paths, PROVIDER).getMany(rows([...texts, 'shared']).map(([hash]) => hash))
    assert.equal(got.size, 9)
  })

  it('merges small segments once there are too many', async () => {
    const cache = new VectorCache(paths, PROVIDER)
    const texts = Array.from({ length: 70 }, (_, i) => `chunk ${i}`)
    for (const text of texts) await cache.putMany(rows([text]))
    assert.ok(segments(cache).length <= 64, `${segments(cache).length} segments`)
    const got = await new VectorCache(paths, PROVIDER).getMany(rows(texts).map(([hash]) => hash))
    assert.deepEqual([...got.entries()].sort(), rows(texts).sort())
  })
})
