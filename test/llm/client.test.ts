import assert from 'node:assert/strict'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { DEFAULT_CONFIG } from '../../src/core/config/index.js'
import type { VltConfig } from '../../src/core/config/types.js'
import { VltError } from '../../src/core/errors.js'
import { createLlmClient, LlmUnavailableError, type LlmClient, type LlmClientOverrides, type LlmRequest } from '../../src/core/llm/index.js'
import { fakeTokenCount, startFakeOpenAIServer, type FakeOpenAIServer } from '../helpers/fake-openai-server.js'

type LlmConfig = VltConfig['llm']

const FAST_RETRY = { attempts: 3, baseDelayMs: 10, maxDelayMs: 5_000 }
const KEY = 'test-llm-key'

function config(server: FakeOpenAIServer, overrides: Partial<LlmConfig> = {}): LlmConfig {
  return { ...DEFAULT_CONFIG.llm, provider: 'openai', baseUrl: server.baseUrl, model: 'test/chat-small', apiKeyEnv: 'TEST_LLM_KEY', timeoutMs: 2_000, ...overrides }
}

function client(server: FakeOpenAIServer, overrides: Partial<LlmConfig> = {}, options: LlmClientOverrides = {}): LlmClient {
  return createLlmClient(config(server, overrides), { env: { TEST_LLM_KEY: KEY }, retry: FAST_RETRY, ...options })!
}

const ask = (content: string, extra: Partial<LlmRequest> = {}): LlmRequest => ({
  messages: [
    { role: 'system', content: 'You answer questions about code.' },
    { role: 'user', content },
  ],
  ...extra,
})

async function rejection(promise: Promise<unknown>): Promise<LlmUnavailableError> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof LlmUnavailableError, `expected LlmUnavailableError, got ${String(error)}`)
    assert.doesNotMatch(error.message, /\n/)
    return error
  }
  assert.fail('expected a rejection')
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

describe('LLM client', () => {
  let server: FakeOpenAIServer
  beforeEach(async () => {
    server = await startFakeOpenAIServer({ apiKey: KEY })
  })
  afterEach(async () => {
    await server.close()
  })

  describe('createLlmClient', () => {
    it('returns null when no LLM is configured', () => {
      assert.equal(createLlmClient({ ...config(server), provider: 'none' }, { env: {} }), null)
    })

    it('names the missing key variable for a remote endpoint', () => {
      assert.throws(
        () => createLlmClient({ ...config(server), baseUrl: 'https://openrouter.ai/api/v1' }, { env: {} }),
        (error: Error) =>
          error instanceof VltError &&
          error.message === `LLM provider openrouter.ai needs an API key: set the environment variable TEST_LLM_KEY (llm.api_key_env in ${join(process.env.XDG_CONFIG_HOME!, 'git-vlt', 'config.toml')})`,
      )
    })

    it('needs no key for a local server, and takes the model override', async () => {
      const keyless = await startFakeOpenAIServer()
      try {
        const llm = createLlmClient(config(keyless), { env: {}, model: 'llama3.2' })!
        assert.equal(llm.model, 'llama3.2')
        assert.equal((await llm.complete(ask('hi'))).text, 'ok')
        assert.equal(keyless.chatRequests[0]!.body.model, 'llama3.2')
      } finally {
        await keyless.close()
      }
      assert.ok(createLlmClient({ ...config(server), baseUrl: 'http://localhost:11434/v1' }, { env: {} }))
    })
  })

  it('completes a chat: text, finish reason, usage, and the request it sent', async () => {
    server.replyNext({ text: 'parseConfig is defined in src/config.ts:12-40.', usage: { prompt_tokens: 57, completion_tokens: 11 } })
    const llm = client(server)
    const result = await llm.complete(ask('Where is parseConfig defined?', { maxTokens: 300, temperature: 0.2 }))
    assert.deepEqual(result, {
      text: 'parseConfig is defined in src/config.ts:12-40.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 57, outputTokens: 11 },
      costCents: null,
      redactions: 0,
    })
    const [request] = server.chatRequests
    assert.equal(request!.headers.authorization, `Bearer ${KEY}`)
    assert.deepEqual(request!.body, {
      model: 'test/chat-small',
      messages: ask('Where is parseConfig defined?').messages,
      max_tokens: 300,
      temperature: 0.2,
      stream: false,
    })
  })

  it('streams deltas that concatenate to the text, with usage from the last chunk', async () => {
    server.replyNext({ chunks: ['The ', 'answer ', 'is ', '42.'], usage: { prompt_tokens: 20, completion_tokens: 4 }, cost: 0.0015 })
    const llm = client(server)
    const deltas: string[] = []
    const result = await llm.stream(ask('What is the answer?'), (delta) => deltas.push(delta))
    assert.deepEqual(deltas, ['The ', 'answer ', 'is ', '42.'])
    assert.equal(result.text, 'The answer is 42.')
    assert.equal(result.finishReason, 'stop')
    assert.deepEqual(result.usage, { inputTokens: 20, outputTokens: 4 })
    assert.equal(result.costCents, 0.15)
    const body = server.chatRequests[0]!.body
    assert.equal(body.stream, true)
    assert.deepEqual(body.stream_options, { include_usage: true })
  })

  it('passes an error thrown by onText through unchanged, without retrying', async () => {
    const llm = client(server)
    const bug = new TypeError('terminal closed')
    await assert.rejects(
      llm.stream(ask('q'), () => {
        throw bug
      }),
      (error) => error === bug,
    )
    assert.equal(server.chatRequests.length, 1)
  })

  it('parses tool calls, complete and streamed', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'find_symbol', description: 'Look a symbol up', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      },
    ]
    const calls = [
      { id: 'call_a', name: 'find_symbol', arguments: { name: 'parseConfig' } },
      { id: 'call_b', name: 'find_symbol', arguments: '{"name": "load' },
    ]
    server.replyNext({ toolCalls: calls }, { toolCalls: calls })
    const llm = client(server)
    const expected = [
      { id: 'call_a', name: 'find_symbol', arguments: { name: 'parseConfig' } },
      // Invalid JSON from the model is kept raw for the caller's validation.
      { id: 'call_b', name: 'find_symbol', arguments: '{"name": "load' },
    ]
    const complete = await llm.complete(ask('Find parseConfig', { tools }))
    assert.deepEqual(complete.toolCalls, expected)
    assert.equal(complete.text, '')
    assert.equal(complete.finishReason, 'tool_calls')
    const deltas: string[] = []
    const streamed = await llm.stream(ask('Find parseConfig', { tools }), (delta) => deltas.push(delta))
    assert.deepEqual(streamed.toolCalls, expected)
    assert.equal(streamed.finishReason, 'tool_calls')
    assert.deepEqual(deltas, [])
    assert.deepEqual(server.chatRequests[0]!.body.tools, tools)
  })

  it('redacts secrets in every outgoing message and counts them', async () => {
    // Not AWS's documented example key: the rules (rightly) leave that one alone.
    const awsKey = 'AKIA' + 'Z7Q2R4XB6N3M5K7J'
    const githubToken = `ghp_${'a1B2c3D4e5'.repeat(4).slice(0, 36)}`
    const llm = client(server)
    const result = await llm.stream(
      {
        messages: [
          { role: 'system', content: 'Answer from the data.' },
          { role: 'user', content: `config.py:\naws_key = "${awsKey}"\nclone with ${githubToken}` },
          { role: 'assistant', content: `I saw ${awsKey}.` },
        ],
      },
      () => {},
    )
    assert.equal(result.redactions, 3)
    assert.equal(llm.usage.redactions, 3)
    const sent = JSON.stringify(server.chatRequests[0]!.body)
    assert.ok(!sent.includes(awsKey) && !sent.includes(githubToken), sent)
    assert.deepEqual(
      server.chatRequests[0]!.body.messages!.map((m) => m.content),
      [
        'Answer from the data.',
        'config.py:\naws_key = "[REDACTED:aws-access-token]"\nclone with [REDACTED:github-pat]',
        'I saw [REDACTED:aws-access-token].',
      ],
    )
  })

  it('counts requests, tokens and cost across calls', async () => {
    server.replyNext(
      { text: 'one', usage: { prompt_tokens: 100, completion_tokens: 10 }, cost: 0.002 },
      { text: 'two', usage: { prompt_tokens: 200, completion_tokens: 20 }, cost: 0.003 },
    )
    server.failNext({ kind: 'status', status: 503 })
    const llm = client(server)
    assert.deepEqual(llm.usage, { requests: 0, inputTokens: 0, outputTokens: 0, costCents: null, redactions: 0 })
    assert.equal((await llm.complete(ask('first'))).costCents, 0.2)
    await llm.stream(ask('second'), () => {})
    // The 503 was a request too.
    assert.equal(llm.usage.requests, 3)
    assert.equal(llm.usage.inputTokens, 300)
    assert.equal(llm.usage.outputTokens, 30)
    assert.ok(Math.abs(llm.usage.costCents! - 0.5) < 1e-9, String(llm.usage.costCents))
  })

  it('reports default token counts from the server and no cost when the server has none', async () => {
    const llm = client(server)
    const result = await llm.complete(ask('hello there'))
    const prompt = fakeTokenCount('You answer questions about code.') + fakeTokenCount('hello there')
    assert.deepEqual(result.usage, { inputTokens: prompt, outputTokens: fakeTokenCount('ok') })
    assert.equal(result.costCents, null)
    assert.equal(llm.usage.costCents, null)
  })

  it('retries a 429 after the Retry-After the server asked for', async () => {
    server.failNext({ kind: 'status', status: 429, retryAfter: '0.3', message: 'slow down' })
    server.replyNext({ text: 'after the wait' })
    const llm = client(server, {}, { retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5_000 } })
    const started = Date.now()
    const result = await llm.complete(ask('q'))
    const elapsed = Date.now() - started
    assert.equal(result.text, 'after the wait')
    assert.equal(server.chatRequests.length, 2)
    assert.ok(elapsed >= 280 && elapsed < 1_500, `waited ${elapsed} ms`)
  })

  it('gives up at once when Retry-After exceeds the longest wait', async () => {
    server.failNext({ kind: 'status', status: 429, retryAfter: '120', message: 'quota exhausted' })
    const error = await rejection(client(server).complete(ask('q')))
    assert.equal(error.kind, 'rate-limit')
    assert.equal(error.message, `LLM endpoint ${server.baseUrl} is rate limiting (HTTP 429: quota exhausted); the server asks to wait 120 s`)
    assert.equal(server.chatRequests.length, 1)
  })

  it('fails as server after retrying 5xx up to the attempt limit', async () => {
    server.failNext(...Array.from({ length: 5 }, () => ({ kind: 'status' as const, status: 500, message: 'upstream exploded' })))
    const error = await rejection(client(server).complete(ask('q')))
    assert.equal(error.kind, 'server')
    assert.equal(error.message, `LLM endpoint ${server.baseUrl} failed after 3 attempts (HTTP 500: upstream exploded)`)
    assert.equal(server.chatRequests.length, 3)
  })

  it('fails as auth on 401 without retrying', async () => {
    const llm = createLlmClient(config(server), { env: { TEST_LLM_KEY: 'wrong-key' }, retry: FAST_RETRY })!
    const error = await rejection(llm.complete(ask('q')))
    assert.equal(error.kind, 'auth')
    assert.equal(error.message, `LLM endpoint ${server.baseUrl} rejected the API key from TEST_LLM_KEY (HTTP 401: Incorrect API key provided)`)
    assert.equal(server.chatRequests.length, 1)
  })

  it('fails as bad-response on a refused request or a body that is not JSON, without retrying', async () => {
    server.failNext({ kind: 'status', status: 404, message: 'model test/chat-small not found' }, { kind: 'malformed' })
    const llm = client(server)
    const refused = await rejection(llm.complete(ask('q')))
    assert.equal(refused.kind, 'bad-response')
    assert.equal(refused.message, `LLM endpoint ${server.baseUrl} refused the request for model test/chat-small (HTTP 404: model test/chat-small not found)`)
    const malformed = await rejection(llm.complete(ask('q')))
    assert.equal(malformed.kind, 'bad-response')
    assert.match(malformed.message, /^LLM endpoint http:\/\/127\.0\.0\.1:\d+\/v1 sent an unreadable response \(/)
    assert.equal(server.chatRequests.length, 2)
  })

  it('times out a request that never answers within timeoutMs', async () => {
    server.failNext({ kind: 'hang' }, { kind: 'hang' })
    const llm = client(server, { timeoutMs: 300 })
    const started = Date.now()
    const error = await rejection(llm.complete(ask('q')))
    const elapsed = Date.now() - started
    assert.equal(error.kind, 'timeout')
    assert.equal(error.message, `LLM endpoint ${server.baseUrl} did not answer within 300 ms (llm.timeout_ms)`)
    assert.ok(elapsed >= 290 && elapsed < 800, `took ${elapsed} ms`)
    assert.equal(server.chatRequests.length, 1)
    const streamError = await rejection(llm.stream(ask('q'), () => {}))
    assert.equal(streamError.kind, 'timeout')
  })

  it('times out a stream that stalls after some text, keeping what was shown', async () => {
    server.replyNext({ chunks: ['partial ', 'answer ', 'never finished'] })
    server.failNext({ kind: 'hang', afterChunks: 3 })
    const llm = client(server, { timeoutMs: 300 })
    const deltas: string[] = []
    const started = Date.now()
    const error = await rejection(llm.stream(ask('q'), (delta) => deltas.push(delta)))
    const elapsed = Date.now() - started
    assert.equal(error.kind, 'timeout')
    assert.equal(error.message, `LLM endpoint ${server.baseUrl} stopped sending its answer for 300 ms (llm.timeout_ms)`)
    assert.deepEqual(deltas, ['partial ', 'answer '])
    assert.ok(elapsed >= 290 && elapsed < 800, `took ${elapsed} ms`)
    // Text was already shown: a retry would repeat it.
    assert.equal(server.chatRequests.length, 1)
  })

  it('lets a slow stream run past timeoutMs as long as chunks keep arriving', async () => {
    // A stream whose chunks arrive every 100 ms for 600 ms under a 300 ms limit.
    const slow = await startSlowStreamServer(100, 6)
    try {
      const llm = createLlmClient(config(server, { baseUrl: slow.baseUrl, timeoutMs: 300 }), { env: {} })!
      const deltas: string[] = []
      const result = await llm.stream(ask('q'), (delta) => deltas.push(delta))
      assert.equal(result.text, 'w0 w1 w2 w3 w4 w5 ')
      assert.equal(deltas.length, 6)
    } finally {
      await slow.close()
    }
  })

  it('retries a stream dropped before any text, but not one dropped mid-answer', async () => {
    server.failNext({ kind: 'drop', afterChunks: 0 })
    server.replyNext({ text: 'lost' }, { text: 'second try works' })
    const llm = client(server)
    const result = await llm.stream(ask('q'), () => {})
    assert.equal(result.text, 'second try works')
    assert.equal(server.chatRequests.length, 2)

    server.failNext({ kind: 'drop', afterChunks: 2 })
    server.replyNext({ chunks: ['half ', 'of it'] })
    const deltas: string[] = []
    const error = await rejection(llm.stream(ask('q'), (delta) => deltas.push(delta)))
    assert.equal(error.kind, 'server')
    assert.match(error.message, /^LLM endpoint http:\/\/127\.0\.0\.1:\d+\/v1 dropped the connection mid-answer \(\w+\)$/)
    assert.deepEqual(deltas, ['half '])
    assert.equal(server.chatRequests.length, 3)
  })

  it('fails as server on an error event inside a stream, retrying only before any text', async () => {
    server.failNext({ kind: 'stream-error', afterChunks: 1, message: 'provider overloaded' })
    server.replyNext({ text: 'unused' }, { text: 'recovered' })
    const llm = client(server)
    assert.equal((await llm.stream(ask('q'), () => {})).text, 'recovered')

    server.failNext({ kind: 'stream-error', afterChunks: 2, message: 'provider overloaded' })
    server.replyNext({ chunks: ['some ', 'text'] })
    const error = await rejection(llm.stream(ask('q'), () => {}))
    assert.equal(error.kind, 'server')
    assert.equal(error.message, `LLM endpoint ${server.baseUrl} failed mid-answer (provider overloaded)`)
    assert.equal(server.chatRequests.length, 3)
  })

  it('retries a connection closed without an answer', async () => {
    server.failNext({ kind: 'drop' }, { kind: 'drop' })
    server.replyNext({ text: 'third time lucky' })
    const llm = client(server)
    assert.equal((await llm.complete(ask('q'))).text, 'third time lucky')
    assert.equal(server.chatRequests.length, 3)
    server.failNext({ kind: 'drop' }, { kind: 'drop' }, { kind: 'drop' })
    const error = await rejection(llm.complete(ask('q')))
    assert.equal(error.kind, 'server')
    assert.match(error.message, /^LLM endpoint http:\/\/127\.0\.0\.1:\d+\/v1 closed the connection without answering after 3 attempts \((UND_ERR_SOCKET|ECONNRESET)\)$/)
  })

  it('fails as unreachable when nothing listens', async () => {
    const port = await closedPort()
    const llm = createLlmClient(config(server, { baseUrl: `http://127.0.0.1:${port}/v1` }), { env: {}, retry: FAST_RETRY })!
    const error = await rejection(llm.complete(ask('q')))
    assert.equal(error.kind, 'unreachable')
    assert.equal(error.message, `LLM endpoint http://127.0.0.1:${port}/v1 unreachable (ECONNREFUSED)`)
  })

  it('rejects with the caller abort reason, during a request and during a backoff', async () => {
    const llm = client(server)
    server.failNext({ kind: 'hang' })
    const controller = new AbortController()
    const pending = llm.complete(ask('q', { signal: controller.signal }))
    setTimeout(() => controller.abort(new Error('user pressed Ctrl-C')), 50)
    await assert.rejects(pending, /user pressed Ctrl-C/)

    server.failNext({ kind: 'status', status: 429, retryAfter: '3' })
    const second = new AbortController()
    const started = Date.now()
    const waiting = llm.complete(ask('q', { signal: second.signal }))
    setTimeout(() => second.abort(new Error('cancelled')), 100)
    await assert.rejects(waiting, /cancelled/)
    assert.ok(Date.now() - started < 1_000)
  })
})

/** A server streaming `count` words, one every `intervalMs`. */
async function startSlowStreamServer(intervalMs: number, count: number): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const http = createHttpServer((req, res) => {
    req.resume()
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const chunk = (delta: object, finish: string | null = null): string =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
      for (let i = 0; i < count; i++) {
        await new Promise((resolve) => setTimeout(resolve, intervalMs))
        res.write(chunk({ content: `w${i} ` }))
      }
      res.write(chunk({}, 'stop'))
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as { port: number }
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => {
      http.closeAllConnections()
      return new Promise((resolve) => http.close(() => resolve()))
    },
  }
}
