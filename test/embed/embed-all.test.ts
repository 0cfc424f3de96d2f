import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { embedAll, type EmbedItem } from '../../src/core/embed/embed-all.js'
import { EmbeddingUnavailableError } from '../../src/core/embed/errors.js'
import { createEmbeddingProvider, type EmbeddingConfig, type EmbeddingProvider } from '../../src/core/embed/provider.js'
import { chunkHash } from '../../src/core/embed/text.js'
import { VectorCache } from '../../src/core/embed/vector-cache.js'
import { vltPaths, type VltPaths } from '../../src/core/store/index.js'
import type { Progress } from '../../src/core/cli/progress.js'
import { fakeEmbedding, startFakeEmbeddingsServer, type FakeEmbeddingsServer } from '../helpers/fake-embeddings-server.js'

const items = (texts: string[]): EmbedItem[] => texts.map((text) => ({ hash: chunkHash(text), text }))

describe('embedAll', () => {
  let root: string
  let paths: VltPaths
  let server: FakeEmbeddingsServer
  let provider: EmbeddingProvider
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'vlt-embed-all-'))
    paths = vltPaths(join(root, '.vlt'))
    server = await startFakeEmbeddingsServer({ dimensions: 8 })
    const config: EmbeddingConfig = { provider: 'openai', baseUrl: server.baseUrl, model: 'm', apiKeyEnv: 'K', batchSize: 2, concurrency: 1, timeoutMs: 2_000 }
    provider = createEmbeddingProvider(config, {}, { retry: { attempts: 1 } })!
  })
  afterEach(async () => {
    await server.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('embeds only what the cache lacks, each distinct text once', async () => {
    const first = ['def a(): pass', 'def b(): pass', 'def c(): pass']
    const got = await embedAll(items([...first, first[0]!]), provider, new VectorCache(paths, provider.id))
    assert.deepEqual([...got.entries()].sort(), first.map((t) => [chunkHash(t), fakeEmbedding(t, 8)]).sort())
    assert.deepEqual(server.requests.map((r) => r.input), [first.slice(0, 2), first.slice(2)])

    server.requests.length = 0
    const again = await embedAll(items(first), provider, new VectorCache(paths, provider.id))
    assert.equal(again.size, 3)
    assert.equal(server.requests.length, 0, 'a second run sends nothing')

    const next = await embedAll(items([...first, 'def d(): pass']), provider, new VectorCache(paths, provider.id))
    assert.equal(next.size, 4)
    assert.deepEqual(server.requests.map((r) => r.input), [['def d(): pass']])
  })

  it('keeps the batches embedded before a failure', async () => {
    server.script = (n) => (n === 2 ? { kind: 'status', status: 401 } : undefined)
    const texts = Array.from({ length: 6 }, (_, i) => `chunk ${i}`)
    await assert.rejects(embedAll(items(texts), provider, new VectorCache(paths, provider.id), undefined, { flushEvery: 1 }), (error: Error) => {
      return error instanceof EmbeddingUnavailableError && error.kind === 'auth'
    })
    const cached = await new VectorCache(paths, provider.id).getMany(items(texts).map((item) => item.hash))
    assert.deepEqual([...cached.keys()].sort(), items(texts.slice(0, 4)).map((item) => item.hash).sort())

    server.script = undefined
    server.requests.length = 0
    await embedAll(items(texts), provider, new VectorCache(paths, provider.id))
    assert.deepEqual(server.requests.map((r) => r.input), [texts.slice(4)])
  })

  it('reports progress over the misses only', async () => {
    await embedAll(items(['x']), provider, new VectorCache(paths, provider.id))
    const events: string[] = []
    const progress: Progress = { start: (n, label, unit) => events.push(`start ${n} ${label} ${unit}`), tick: (n) => events.push(`tick ${n}`), stop: () => events.push('stop') }
    await embedAll(items(['x', 'y', 'z']), provider, new VectorCache(paths, provider.id), progress)
    assert.deepEqual(events, ['start 2 Embedding chunks', 'tick 2', 'stop'])
  })
})
