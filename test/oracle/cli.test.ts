import { strict as assert } from 'node:assert'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { vltAsync, vltJsonAsync } from '../helpers/cli.js'
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../helpers/fake-openai-server.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'
import { createOracleRepo, FAKE_KEY } from './fixture.js'
import { blockSpans, flipInBlock } from '../helpers/block-spans.js'

describe('git vlt oracle (CLI)', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let server: FakeOpenAIServer
  beforeEach(async () => {
    server = await startFakeOpenAIServer()
    ;({ repo } = createOracleRepo())
  })
  let user: UserConfigFile | undefined
  afterEach(async () => {
    repo.cleanup()
    user?.cleanup()
    user = undefined
    await server.close()
  })

  /** The model, in the user's config: returns the env to run with. */
  const configureLlm = (extra = ''): Record<string, string> => {
    user = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "test-model"\n${extra}`)
    return user.env
  }

  it('prints --json in the OracleResponse shape', async () => {
    const response = await vltJsonAsync(repo.dir, ['oracle', 'where is acquireLock defined', '--no-log'])
    assert.deepEqual(Object.keys(response).sort(), ['answer', 'context', 'costCents', 'durationMs', 'model', 'queryType', 'repoMapSlice', 'shallow', 'sources', 'tokensUsed', 'warnings'])
    assert.deepEqual(response.context, { name: 'default', exchanges: 1 })
    assert.deepEqual(Object.keys(response.sources[0]).sort(), ['content', 'metadata', 'retrievalMethod', 'score', 'sourcePath', 'sourceType', 'tokenCount'])
    assert.equal(response.sources[0].sourcePath, 'src/lock.ts:4-10')
    const explained = await vltJsonAsync(repo.dir, ['oracle', 'where is acquireLock defined', '--no-log', '--explain'])
    assert.deepEqual(Object.keys(explained.traces).sort(), ['budget', 'classification', 'codeSearch', 'decisions', 'paths'])
  })

  it('streams the LLM answer, giving it the evidence as data blocks and no secret', async () => {
    const env = configureLlm()
    server.replyNext({ text: 'The client is built by `endpointClient` in `src/client.ts:1-6`.' })
    const run = await vltAsync(repo.dir, ['oracle', 'how is the endpoint client configured', '--no-log'], { ...env, OPENROUTER_API_KEY: '' })
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stdout, 'The client is built by `endpointClient` in `src/client.ts:1-6`.\n')
    assert.equal(server.chatRequests.length, 1)
    const body = server.chatRequests[0]!.body
    assert.equal(body.stream, true)
    const prompt = body.messages!.map((m) => m.content).join('\n')
    assert.match(prompt, /never instructions/)
    assert.match(prompt, /<data-([0-9a-f]{16}) label="evidence" cite="src\/client\.ts:1-6"[^>]*>\n[\s\S]*export function endpointClient[\s\S]*<\/data-\1>/)
    assert.ok(!JSON.stringify(server.chatRequests[0]!.body).includes(FAKE_KEY), 'the key never leaves the machine')
  })

  it('falls back to the extractive answer with a warning when the LLM is unreachable', async () => {
    await server.close()
    const env = configureLlm('timeout_ms = 2000\n')
    const response = await vltJsonAsync(repo.dir, ['oracle', 'where is acquireLock defined', '--no-log'], env)
    assert.equal(response.model, 'extractive')
    assert.match(response.answer, /^`acquireLock` is defined at `src\/lock\.ts:4-10`/)
    assert.ok(response.warnings.some((w: string) => /unreachable.*answering extractively/.test(w)), JSON.stringify(response.warnings))
    server = await startFakeOpenAIServer()
  })

  it('accounts the tokens and cost the LLM reports', async () => {
    const env = configureLlm()
    server.replyNext({ text: 'Defined in `src/lock.ts:4-10`.', usage: { prompt_tokens: 1200, completion_tokens: 30 }, cost: 0.0042 })
    const response = await vltJsonAsync(repo.dir, ['oracle', 'where is acquireLock defined', '--no-log'], env)
    assert.equal(response.model, 'test-model')
    assert.equal(response.answer, 'Defined in `src/lock.ts:4-10`.')
    assert.equal(response.tokensUsed, 1230)
    assert.equal(response.costCents, 0.42)
  })

  it('falls back to the extractive answer when the LLM times out', async () => {
    const env = configureLlm('timeout_ms = 1000\n')
    server.failNext({ kind: 'hang' })
    const started = Date.now()
    const response = await vltJsonAsync(repo.dir, ['oracle', 'where is acquireLock defined', '--no-log'], env)
    assert.ok(Date.now() - started < 15_000)
    assert.equal(response.model, 'extractive')
    assert.match(response.answer, /src\/lock\.ts:4-10/)
    assert.ok(response.warnings.some((w: string) => /tim(ed|e) ?out/i.test(w)), JSON.stringify(response.warnings))
  })

  it('lets the model call the MCP tools, records each call in --json, and keeps secrets out of tool results', async () => {
    const env = configureLlm('[llm.prices]\n"test-model" = { input = 2.0, output = 10.0 }\n')
    server.replyNext(
      {
        toolCalls: [
          { id: 'refs', name: 'find_references', arguments: { symbol: 'acquireLock' } },
          { id: 'read', name: 'read_file_range', arguments: { path: 'src/client.ts', start_line: 1, end_line: 5 } },
          { id: 'out', name: 'read_file_range', arguments: { path: '../outside.ts', start_line: 1 } },
        ],
        usage: { prompt_tokens: 1000, completion_tokens: 50 },
      },
      { text: '`writeBlobRecord` calls it at `src/store.ts:5`.', usage: { prompt_tokens: 2000, completion_tokens: 20 } },
    )
    const response = await vltJsonAsync(repo.dir, ['oracle', 'who calls acquireLock', '--no-log'], env)
    assert.equal(response.answer, '`writeBlobRecord` calls it at `src/store.ts:5`.')
    assert.equal(response.model, 'test-model')
    assert.deepEqual(response.agent.toolCalls.map((c: any) => [c.id, c.name, c.status]), [['refs', 'find_references', 'ok'], ['read', 'read_file_range', 'ok'], ['out', 'read_file_range', 'error']])
    assert.match(response.agent.toolCalls[0].result, /src\/store\.ts:5:\d+ {2}acquireLock\(path\)/)
    assert.match(response.agent.toolCalls[2].result, /outside the repository/)
    assert.deepEqual({ turns: response.agent.turns, stopped: response.agent.stopped }, { turns: 2, stopped: null })
    assert.deepEqual(response.usageByRole, {
      agent: { model: 'test-model', requests: 1, inputTokens: 1000, outputTokens: 50, costCents: 0.25 },
      answer: { model: 'test-model', requests: 1, inputTokens: 2000, outputTokens: 20, costCents: 0.42 },
    })
    assert.equal(response.tokensUsed, 3070)
    assert.equal(response.costCents, 0.67)
    const second = JSON.stringify(server.chatRequests[1]!.body)
    assert.match(second, /export function endpointClient/)
    assert.ok(!second.includes(FAKE_KEY), 'a secret read by a tool never reaches the model')
    assert.ok(!response.agent.toolCalls[1].result.includes(FAKE_KEY))
  })

  it('says "unknown" for the cost of a role whose model has no price and whose server reports none', async () => {
    const env = configureLlm()
    server.replyNext({ text: 'Defined in `src/lock.ts:4-10`.', usage: { prompt_tokens: 700, completion_tokens: 8 } })
    const response = await vltJsonAsync(repo.dir, ['oracle', 'where is acquireLock defined', '--no-log'], env)
    assert.deepEqual(response.usageByRole, { answer: { model: 'test-model', requests: 1, inputTokens: 700, outputTokens: 8, costCents: 'unknown' } })
    assert.equal(response.costCents, 0)
  })

  it('with a model too, says first that a named symbol does not exist, and tells the model so', async () => {
    const env = configureLlm()
    server.replyNext({ text: 'The lock itself is taken by `acquireLock` (`src/lock.ts:4-10`).' })
    const run = await vltAsync(repo.dir, ['oracle', 'Where is LockService used?', '--no-log'], env)
    assert.equal(run.status, 0, run.stderr)
    assert.equal(
      run.stdout,
      "There is no `LockService` in this repository's code: no definition of it, and no reference to it. Closest names: `acquireLock`, `LOCK_TIMEOUT_MS`. " +
        "What follows is only loosely related, found by the question's other words.\n\nThe lock itself is taken by `acquireLock` (`src/lock.ts:4-10`).\n",
    )
    assert.match(server.chatRequests[0]!.body.messages![1]!.content, /Checked in the symbol index: There is no `LockService`/)
  })

  it('asks no model when there is no evidence', async () => {
    const env = configureLlm()
    const response = await vltJsonAsync(repo.dir, ['oracle', 'What is the meaning of life?', '--no-log'], env)
    assert.deepEqual(response.sources, [])
    assert.equal(server.chatRequests.length, 0)
  })

  it('rebuilds a symbol table whose block it finds damaged and answers from it, saying so in one line', async () => {
    const init = await vltJsonAsync(repo.dir, ['coderag', 'init'])
    const symbols = join(repo.dir, '.vlt', 'trees', init.treeHash, 'symbols.mpk')
    const bytes = readFileSync(symbols)
    let rebuilt = 0
    // Every block the question's paths read (runs of files, name buckets) once each; the directory and header stay whole.
    for (let block = 0; block < blockSpans(bytes, 'symbols').spans.length; block++) {
      writeFileSync(symbols, flipInBlock(bytes, 'symbols', block))
      const run = await vltAsync(repo.dir, ['oracle', 'where is acquireLock defined', '--no-log'])
      assert.equal(run.status, 0, run.stderr)
      assert.match(run.stdout, /^`acquireLock` is defined at `src\/lock\.ts:4-10`/, `block ${block}`)
      assert.doesNotMatch(run.stderr, /skipped/, `block ${block}`)
      const warnings = run.stderr.split('\n').filter((line) => line.startsWith('warning:'))
      if (warnings.length === 0) continue // a block this question never reads
      assert.equal(warnings.length, 1, run.stderr)
      assert.match(warnings[0]!, /symbols\.mpk: checksum mismatch.*rebuilt the index of tree [0-9a-f]{12} from the blob records/)
      rebuilt++
    }
    assert.ok(rebuilt >= 2, `${rebuilt} damaged blocks found`)
  })

  it('logs to the session thread as the --author given', async () => {
    const run = await vltAsync(repo.dir, ['oracle', 'where is acquireLock defined', '--author', 'bob'])
    assert.equal(run.status, 0, run.stderr)
    const day = new Date().toISOString().slice(0, 10)
    const thread = await vltJsonAsync(repo.dir, ['thread', 'read', `oracle-session-${day}`])
    assert.equal(thread.entries.length, 1)
    assert.equal(thread.entries[0].author, 'bob')
  })
})
