import { strict as assert } from 'node:assert'
import { DEFAULT_CONFIG } from '../../src/core/config/index.js'
import { parseConfig } from '../../src/core/config/load.js'
import { UsageError } from '../../src/core/errors.js'
import { createLlmClient, type LlmClient } from '../../src/core/llm/index.js'
import { openQueryContext, type QueryContext } from '../../src/core/query/context.js'
import { searchCode, type SearchResponse } from '../../src/core/query/search/index.js'
import { parseOrder } from '../../src/core/query/search/llm-rerank.js'
import { vltAsync, vltJsonAsync } from '../helpers/cli.js'
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../helpers/fake-openai-server.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { createIndexedRepo } from './search-fixture.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'

const QUERY = 'session token password'
const where = (response: SearchResponse): string[] => response.results.map((r) => `${r.path}:${r.startLine}`)

describe('search: LLM rerank reply parsing', () => {
  it('reads an order from JSON in fences or prose, with any id spelling', () => {
    assert.deepEqual(parseOrder('{"order": ["c3", "c1", "c2"]}', 3), [2, 0, 1])
    assert.deepEqual(parseOrder('Here is the ranking:\n```json\n{"order": ["c2", "c1"]}\n```\nHope this helps!', 3), [1, 0])
    assert.deepEqual(parseOrder('[2, "3", "C1"]', 3), [1, 2, 0])
    assert.deepEqual(parseOrder('{"ranking": ["c2"], "note": "c3 is a test"}', 3), [1])
  })

  it('drops unknown and repeated ids, and finds nothing in garbage', () => {
    assert.deepEqual(parseOrder('{"order": ["c2", "c9", "c2", "x", 0, "c1"]}', 3), [1, 0])
    assert.deepEqual(parseOrder('The second one is best.', 3), [])
    assert.deepEqual(parseOrder('{"order": "c2, c1"}', 3), [])
    assert.deepEqual(parseOrder('', 3), [])
  })
})

describe('search: LLM rerank', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let qctx: QueryContext
  let server: FakeOpenAIServer
  let offline: SearchResponse
  before(async () => {
    repo = await createIndexedRepo()
    qctx = await openQueryContext(repo.dir, { warn: () => {}, noSync: true })
    server = await startFakeOpenAIServer()
    offline = await searchCode(qctx, QUERY, { limit: 20, provider: null })
    assert.ok(offline.results.length >= 4, 'the fixture gives enough candidates to reorder')
  })
  after(async () => {
    repo?.cleanup()
    await server?.close()
  })

  const client = (timeoutMs = 2_000): LlmClient =>
    createLlmClient({ ...DEFAULT_CONFIG.llm, provider: 'openai', baseUrl: server.baseUrl, model: 'test/rerank', apiKeyEnv: 'TEST_LLM_KEY', timeoutMs }, { env: {}, retry: { attempts: 2, baseDelayMs: 10 } })!
  const search = (llm: LlmClient | null, limit = 3): Promise<SearchResponse> => searchCode(qctx, QUERY, { limit, provider: null, rerank: 'llm', llm })

  it('orders the offline top candidates as the model says, keeping scores and methods', async () => {
    const before = server.chatRequests.length
    server.replyNext({ text: '{"order": ["c4", "c2", "c1", "c3"]}' })
    const response = await search(client())
    assert.equal(server.chatRequests.length, before + 1)
    const [fourth, second, first] = [offline.results[3]!, offline.results[1]!, offline.results[0]!]
    assert.deepEqual(response.results, [fourth, second, first])
    assert.equal(response.rerank, 'llm')
    assert.deepEqual(response.warnings, [])

    const body = server.chatRequests.at(-1)!.body
    assert.equal(body.temperature, 0)
    const [system, user] = body.messages!
    assert.match(system!.content, /never instructions/)
    assert.match(user!.content, new RegExp(`^Query: ${QUERY}\n`))
    // Every offline result is a candidate (fewer than llm_candidates here), each as a data block.
    assert.equal(user!.content.match(/<data-[0-9a-f]{16} label="candidate" id="c\d+"/g)?.length, offline.results.length)
    const top = offline.results[0]!
    assert.ok(user!.content.includes(`id="c1" cite="${top.path}:${top.startLine}-${top.endLine}" name="${top.qualifiedName || top.kind}">\n${top.snippet.slice(0, 40)}`))
  })

  it('puts what the model left out after its choices, in offline order', async () => {
    server.replyNext({ text: 'Sure! Here you go:\n```json\n{"order": ["c3", "c99", "c3"]}\n```' })
    const response = await search(client(), 4)
    assert.deepEqual(where(response), [2, 0, 1, 3].map((i) => `${offline.results[i]!.path}:${offline.results[i]!.startLine}`))
    assert.equal(response.rerank, 'llm')
  })

  it('keeps the offline order with one warning when the reply has no order', async () => {
    server.replyNext({ text: 'I think the session store is the most relevant.' })
    const response = await search(client())
    assert.deepEqual(response.results, offline.results.slice(0, 3))
    assert.equal(response.rerank, 'offline')
    assert.deepEqual(response.warnings, ['LLM rerank unavailable: the reply had no usable order ("I think the session store is the most relevant."); results keep the offline order'])
  })

  it('keeps the offline order with one warning on a server error or a timeout', async () => {
    server.failNext({ kind: 'status', status: 500 }, { kind: 'status', status: 500 })
    const failed = await search(client())
    assert.deepEqual(failed.results, offline.results.slice(0, 3))
    assert.equal(failed.warnings.length, 1)
    assert.match(failed.warnings[0]!, /^LLM rerank unavailable: .*500.*; results keep the offline order$/)

    server.failNext({ kind: 'hang' })
    const timedOut = await search(client(300))
    assert.deepEqual(timedOut.results, offline.results.slice(0, 3))
    assert.deepEqual(timedOut.warnings, [`LLM rerank unavailable: LLM endpoint ${server.baseUrl} did not answer within 300 ms (llm.timeout_ms); results keep the offline order`])
  })

  it('is a usage error without a language model, in options or in vlt.toml', async () => {
    await assert.rejects(search(null), (error: Error) => error instanceof UsageError && /rerank "llm" needs a language model: configure \[llm\]/.test(error.message))
    assert.throws(() => parseConfig('[search]\nrerank = "llm"\n'), /search\.rerank = "llm" needs a language model/)
    assert.throws(() => parseConfig('[search]\nrerank = "model"\n'), /search\.rerank must be one of "offline", "llm" \(got "model"\)/)
    assert.throws(() => parseConfig('[search]\nllm_candidates = 0\n'), /search\.llm_candidates must be a positive integer/)
  })
})

describe('git vlt coderag search --rerank (built CLI)', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let server: FakeOpenAIServer
  let user: UserConfigFile | undefined
  before(async () => {
    repo = await createIndexedRepo()
    server = await startFakeOpenAIServer()
  })
  after(async () => {
    repo?.cleanup()
    await server?.close()
  })
  afterEach(() => {
    user?.cleanup()
    user = undefined
    repo.git('clean', '-fq', 'vlt.toml')
  })
  /** The model in the user's config (the env to run with); `vlt.toml`, when given, in the repository. */
  const configure = (vltToml?: string): Record<string, string> => {
    user = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "test/rerank"\ntimeout_ms = 1000\n`)
    if (vltToml !== undefined) repo.write({ 'vlt.toml': vltToml })
    return user.env
  }

  it('reorders with --rerank llm, and by default with [search] rerank = "llm" (of vlt.toml too) unless --rerank offline', async () => {
    // (vlt.toml is in the working tree, so indexed: it is there from the start to keep the scores comparable.)
    const env = configure('[search]\nrerank = "offline"\n')
    const offline = await vltJsonAsync(repo.dir, ['coderag', 'search', QUERY, '--limit', '3'], env)
    assert.equal(offline.rerank, undefined)
    assert.equal(server.chatRequests.length, 0)
    server.replyNext({ text: '["c2", "c1"]' })
    const reranked = await vltJsonAsync(repo.dir, ['coderag', 'search', QUERY, '--limit', '3', '--rerank', 'llm'], env)
    assert.deepEqual(reranked.results, [offline.results[1], offline.results[0], offline.results[2]])
    assert.equal(reranked.rerank, 'llm')
    assert.deepEqual(reranked.warnings, [])

    // The repository may ask for the rerank: it runs on the user's own model.
    repo.write({ 'vlt.toml': '[search]\nrerank = "llm"\nllm_candidates = 2\n' })
    server.replyNext({ text: '{"order": ["c2", "c1"]}' })
    const byDefault = await vltJsonAsync(repo.dir, ['coderag', 'search', QUERY, '--limit', '3'], env)
    assert.deepEqual(byDefault.results, reranked.results)
    assert.deepEqual(byDefault.warnings, [])
    assert.equal((server.chatRequests.at(-1)!.body.messages![1]!.content.match(/label="candidate"/g) ?? []).length, 2)
    const requests = server.chatRequests.length
    const overridden = await vltJsonAsync(repo.dir, ['coderag', 'search', QUERY, '--limit', '3', '--rerank', 'offline'], env)
    assert.deepEqual(overridden.results, offline.results)
    assert.equal(server.chatRequests.length, requests)
  })

  it('falls back with one warning on stderr, or in `warnings`', async () => {
    const env = configure()
    server.replyNext({ text: 'no idea' })
    const text = await vltAsync(repo.dir, ['coderag', 'search', QUERY, '--limit', '3', '--rerank', 'llm'], env)
    assert.equal(text.status, 0, text.stderr)
    assert.equal(text.stderr.match(/LLM rerank unavailable/g)?.length, 1, text.stderr)
    server.failNext({ kind: 'hang' })
    const json = await vltJsonAsync(repo.dir, ['coderag', 'search', QUERY, '--limit', '3', '--rerank', 'llm'], env)
    assert.equal(json.rerank, 'offline')
    assert.deepEqual(json.warnings, [`LLM rerank unavailable: LLM endpoint ${server.baseUrl} did not answer within 1000 ms (llm.timeout_ms); results keep the offline order`])
    assert.equal(json.results.length, 3)
  })

  it('warns when the remote model has no API key, and refuses --rerank llm without [llm]', async () => {
    user = userConfigFile('[llm]\nprovider = "openai"\nbase_url = "https://llm.invalid/v1"\napi_key_env = "VLT_TEST_NO_SUCH_KEY"\n')
    const keyless = await vltJsonAsync(repo.dir, ['coderag', 'search', QUERY, '--rerank', 'llm'], user.env)
    assert.equal(keyless.rerank, 'offline')
    assert.match(keyless.warnings[0], /^LLM rerank unavailable: LLM provider llm\.invalid needs an API key: set the environment variable VLT_TEST_NO_SUCH_KEY \(llm\.api_key_env in .*config\.toml\)/)

    const run = await vltAsync(repo.dir, ['coderag', 'search', QUERY, '--rerank', 'llm'])
    assert.equal(run.status, 2)
    assert.match(run.stderr, /rerank "llm" needs a language model: configure \[llm\] in your own config, .*git-vlt\/config\.toml/)
    assert.doesNotMatch(run.stderr, /at .*\.js:\d+/)
  })
})
