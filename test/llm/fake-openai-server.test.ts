import assert from 'node:assert/strict'
import OpenAI from 'openai'
import { fakeEmbedding, fakeTokenCount, startFakeOpenAIServer, type FakeOpenAIServer } from '../helpers/fake-openai-server.js'

describe('fake OpenAI server: /embeddings', () => {
  let server: FakeOpenAIServer
  let sdk: OpenAI
  beforeEach(async () => {
    server = await startFakeOpenAIServer({ dimensions: 6, costPerToken: 0.001 })
    sdk = new OpenAI({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 })
  })
  afterEach(async () => {
    await server.close()
  })

  it('answers deterministic vectors per input, with usage and cost, and records the batch', async () => {
    const input = ['alpha', 'a longer text of words']
    const response = await sdk.embeddings.create({ model: 'test/embed', input, encoding_format: 'float' })
    assert.deepEqual(
      response.data.map((item) => item.embedding),
      input.map((text) => Array.from(fakeEmbedding(text, 6))),
    )
    const tokens = fakeTokenCount('alpha') + fakeTokenCount('a longer text of words')
    assert.deepEqual(response.usage, { prompt_tokens: tokens, total_tokens: tokens, cost: tokens * 0.001 })
    assert.equal(server.embeddingRequests.length, 1)
    assert.deepEqual(server.embeddingRequests[0]!.body.input, input)
    assert.equal(server.chatRequests.length, 0)
  })

  it('honours requested dimensions and serves queued faults', async () => {
    const response = await sdk.embeddings.create({ model: 'test/embed', input: 'x', dimensions: 3, encoding_format: 'float' })
    assert.equal(response.data[0]!.embedding.length, 3)
    server.failNext({ kind: 'status', status: 429, retryAfter: '7' })
    await assert.rejects(sdk.embeddings.create({ model: 'test/embed', input: 'x' }), (error: Error & { status?: number; headers?: Headers }) => {
      assert.equal(error.status, 429)
      assert.equal(error.headers?.get('retry-after'), '7')
      return true
    })
  })
})
