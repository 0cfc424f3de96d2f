import assert from 'node:assert/strict'
import { createEmbeddingProvider, type EmbeddingConfig, type EmbeddingProvider } from '../../src/core/embed/provider.js'
import { EmbeddingUnavailableError } from '../../src/core/embed/errors.js'
import { VltError } from '../../src/core/errors.js'
import { fakeEmbedding, fakeTokenCount, startFakeEmbeddingsServer, type FakeEmbeddingsServer } from '../helpers/fake-embeddings-server.js'

const FAST_RETRY = { attempts: 3, baseDelayMs: 10, maxDelayMs: 5_000 }

function config(server: FakeEmbeddingsServer, overrides: Partial<EmbeddingConfig> = {}): EmbeddingConfig {
  return { provider: 'openai', baseUrl: server.baseUrl, model: 'test/embed-small', apiKeyEnv: 'TEST_EMBED_KEY', batchSize: 4, concurrency: 2, timeoutMs: 2_000, ...overrides }
}

function provider(server: FakeEmbeddingsServer, overrides: Partial<EmbeddingConfig> = {}, env: NodeJS.ProcessEnv = {}): EmbeddingProvider {
  return createEmbeddingProvider(config(server, overrides), env, { retry: FAST_RETRY })!
}

async function rejection(promise: Promise<unknown>): Promise<EmbeddingUnavailableError> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof EmbeddingUnavailableError, `expected EmbeddingUnavailableError, got ${String(error)}`)
    assert.doesNotMatch(error.message, /\n/)
    return error
  }
  assert.fail('expected a rejection')
}

const texts = (n: number): string[] => Array.from({ length: n }, (_, i) => `def f${i}(): return ${i}`)

describe('embedding provider', () => {
  let server: FakeEmbeddingsServer
  beforeEach(async () => {
    server = await startFakeEmbeddingsServer({ dimensions: 8, delayMs: 20 })
  })
  afterEach(async () => {
    await server.close()
  })

  describe('createEmbeddingProvider', () => {
    it('returns null when embeddings are off', () => {
      assert.equal(createEmbeddingProvider({ ...config(server), provider: 'none' }, {}), null)
    })

    it('names the missing key variable for a remote endpoint', () => {
      assert.throws(
        () => createEmbeddingProvider({ ...config(server), baseUrl: 'https://openrouter.ai/api/v1' }, {}),
        (error: Error) => error instanceof VltError && /TEST_EMBED_KEY/.test(error.message),
      )
    })

    it('needs no key on localhost and builds an id from host, model and dimensions', () => {
      const p = createEmbeddingProvider({ ...config(server), baseUrl: 'http://localhost:11434/v1', model: 'nomic-embed-text', dimensions: 256 }, {})!
      assert.equal(p.id, 'openai:localhost:11434:nomic-embed-text:256')
      const remote = createEmbeddingProvider({ ...config(server), baseUrl: 'https://openrouter.ai/api/v1', model: 'qwen/qwen3-embedding-8b' }, { TEST_EMBED_KEY: 'k' })!
      assert.equal(remote.id, 'openai:openrouter.ai:qwen/qwen3-embedding-8b:native')
    })
  })

  it('embeds in batches of batchSize and returns vectors in input order', async () => {
    const p = provider(server, { batchSize: 4 }, { TEST_EMBED_KEY: 'secret' })
    const input = texts(10)
    const vectors = await p.embed(input)
    assert.deepEqual(server.requests.map((r) => r.input.length).sort(), [2, 4, 4])
    assert.deepEqual(server.requests.flatMap((r) => r.input).sort(), [...input].sort())
    assert.equal(server.requests[0]!.model, 'test/embed-small')
    assert.equal(server.requests[0]!.authorization, 'Bearer secret')
    assert.equal(server.requests[0]!.encodingFormat, 'float')
    assert.deepEqual(vectors, input.map((t) => fakeEmbedding(t, 8)))
    assert.deepEqual(p.usage, { requests: 3, inputTokens: input.reduce((s, t) => s + fakeTokenCount(t), 0) })
  })

  it('counts cost when the server reports it', async () => {
    await server.close()
    server = await startFakeEmbeddingsServer({ dimensions: 8, costPerToken: 0.5 })
    const p = provider(server)
    await p.embed(['abcd', 'abcdefgh'])
    assert.deepEqual(p.usage, { requests: 1, inputTokens: 3, cost: 1.5 })
  })

  it('reports each finished batch through onBatch', async () => {
    const p = provider(server, { batchSize: 3, concurrency: 1 })
    const seen: Array<[number, number]> = []
    await p.embed(texts(7), undefined, (offset, vectors) => seen.push([offset, vectors.length]))
    assert.deepEqual(seen, [[0, 3], [3, 3], [6, 1]])
  })

  it('keeps at most `concurrency` requests in flight', async () => {
    const p = provider(server, { batchSize: 1, concurrency: 3 })
    await p.embed(texts(12))
    assert.equal(server.requests.length, 12)
    assert.equal(server.maxInFlight, 3)
  })

  it('sends the configured dimensions and accepts matching vectors', async () => {
    const p = provider(server, { dimensions: 16 })
    const [vector] = await p.embed(['x'])
    assert.equal(server.requests[0]!.dimensions, 16)
    assert.equal(vector!.length, 16)
  })

  it('waits for Retry-After on 429, then succeeds', async () => {
    server.failNext({ kind: 'status', status: 429, retryAfter: '1' })
    const p = provider(server, { concurrency: 1 })
    const started = Date.now()
    const vectors = await p.embed(['a', 'b'])
    assert.ok(Date.now() - started >= 950, `retried after ${Date.now() - started} ms`)
    assert.equal(server.requests.length, 2)
    assert.deepEqual(vectors, [fakeEmbedding('a', 8), fakeEmbedding('b', 8)])
    assert.equal(p.usage.requests, 2)
  })

  it('gives up on a Retry-After longer than the longest wait', async () => {
    server.failNext({ kind: 'status', status: 429, retryAfter: '3600' })
    const error = await rejection(provider(server).embed(['a']))
    assert.equal(error.kind, 'rate-limit')
    assert.match(error.message, /wait 3600 s/)
    assert.equal(server.requests.length, 1)
  })

  it('reports a server error after the retries run out', async () => {
    server.failNext(...Array.from({ length: 3 }, () => ({ kind: 'status' as const, status: 500, message: 'model crashed' })))
    const error = await rejection(provider(server).embed(['a']))
    assert.equal(error.kind, 'server')
    assert.equal(error.message, `embedding API at ${new URL(server.baseUrl).host} failed after 3 attempts (HTTP 500: model crashed)`)
    assert.equal(server.requests.length, 3)
  })

  it('reports a rejected key at once, naming its variable', async () => {
    await server.close()
    server = await startFakeEmbeddingsServer({ apiKey: 'right' })
    const error = await rejection(provider(server, {}, { TEST_EMBED_KEY: 'wrong' }).embed(['a']))
    assert.equal(error.kind, 'auth')
    assert.match(error.message, /TEST_EMBED_KEY/)
    assert.match(error.message, /HTTP 401: Incorrect API key provided/)
    assert.equal(server.requests.length, 1)
  })

  it('times out a request that never answers', async () => {
    server.failNext({ kind: 'hang' })
    const started = Date.now()
    const error = await rejection(provider(server, { timeoutMs: 300 }).embed(['a']))
    assert.equal(error.kind, 'timeout')
    assert.match(error.message, /300 ms/)
    assert.ok(Date.now() - started < 2_000)
  })

  it('reports an unreachable endpoint', async () => {
    const baseUrl = server.baseUrl
    await server.close()
    const p = createEmbeddingProvider({ ...config(server), baseUrl }, {}, { retry: FAST_RETRY })!
    const error = await rejection(p.embed(['a']))
    assert.equal(error.kind, 'unreachable')
    assert.match(error.message, /ECONNREFUSED/)
    server = await startFakeEmbeddingsServer()
  })

  it('rejects vectors whose length differs from embedding.dimensions', async () => {
    server.failNext({ kind: 'dimensions', dimensions: 12 })
    const error = await rejection(provider(server, { dimensions: 16 }).embed(['a']))
    assert.equal(error.kind, 'bad-response')
    assert.match(error.message, /12-dimensional vectors where embedding\.dimensions in .*git-vlt\/config\.toml says 16/)
  })

  it('rejects vectors whose length changes between batches', async () => {
    server.script = (n) => (n === 1 ? { kind: 'dimensions', dimensions: 4 } : undefined)
    const error = await rejection(provider(server, { batchSize: 1, concurrency: 1 }).embed(['a', 'b']))
    assert.equal(error.kind, 'bad-response')
    assert.match(error.message, /4-dimensional vectors where earlier vectors from the same model have 8/)
  })

  it('reports a malformed body as a bad response', async () => {
    server.failNext({ kind: 'malformed' })
    const error = await rejection(provider(server).embed(['a']))
    assert.equal(error.kind, 'bad-response')
    assert.equal(server.requests.length, 1)
  })

  it('stops the other batches after a fatal failure', async () => {
    server.script = (n) => (n === 1 ? { kind: 'status', status: 401 } : undefined)
    const done: number[] = []
    const error = await rejection(provider(server, { batchSize: 2, concurrency: 1 }).embed(texts(8), undefined, (offset) => done.push(offset)))
    assert.equal(error.kind, 'auth')
    assert.deepEqual(done, [0])
    assert.equal(server.requests.length, 2)
  })

  it('passes a caller abort through unclassified', async () => {
    server.failNext({ kind: 'hang' })
    const controller = new AbortController()
    const pending = provider(server).embed(['a'], controller.signal)
    setTimeout(() => controller.abort(new Error('user cancelled')), 50)
    await assert.rejects(pending, /user cancelled/)
  })
})
