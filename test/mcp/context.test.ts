import { strict as assert } from 'node:assert'
import { contextNames, readContext } from '../helpers/context.js'
import { vltJson } from '../helpers/cli.js'
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../helpers/fake-openai-server.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'
import { connect, shopRepo, textOf } from './mcp-helpers.js'

describe('git vlt mcp conversation context', function () {
  this.timeout(120_000)
  let repo: GitFixture
  before(() => {
    repo = shopRepo()
  })
  after(() => repo?.cleanup())

  const contextState = (): any => readContext(repo.dir, 'compressor')

  it('compresses older exchanges at 80 % of the budget and still uses their facts, across a restart', async () => {
    const env = { VLT_MCP_CONTEXT_BUDGET: '4000', VLT_MCP_CONTEXT: 'compressor' }
    const mcp = await connect(repo.dir, env)
    try {
      assert.equal((await mcp.call('find_definition', { symbol: 'UserService' })).isError, undefined)
      // Maps mention no symbol: the context fills up while UserService stays the last one discussed.
      for (let i = 0; i < 7; i++) {
        const map = await mcp.call('get_repo_map', { tokens: 1000 + i })
        assert.equal(map.isError, undefined, textOf(map))
      }
      const followUp = await mcp.call('search_code', { query: 'how does it reach the database?' })
      assert.equal(followUp.structuredContent.resolved, 'it → UserService')
    } finally {
      await mcp.close()
    }

    const state = contextState()
    assert.ok(state.compressions >= 1, `compressions ${state.compressions}: ${JSON.stringify({ used: state.used, n: state.exchanges.length, tokens: state.exchanges.map((e: any) => e.tokens) })}`)
    assert.ok(state.exchanges.length <= 5 + 1, `${state.exchanges.length} exchanges kept`)
    assert.equal(state.exchanges.at(-1).tool, 'search_code')
    assert.ok(!state.exchanges.some((e: any) => e.tool === 'find_definition'), 'the find_definition exchange was compressed')
    assert.match(state.summary, /- find_definition\(symbol="UserService"\) → UserService is a class at src\/user_service\.py:4/)
    assert.equal(state.symbols[0], 'UserService')
    assert.ok(state.files.includes('src/user_service.py'))
    assert.equal(state.budget, 4000)
    assert.equal(state.used, Math.ceil(state.summary.length / 4) + state.exchanges.reduce((sum: number, e: any) => sum + e.tokens, 0))

    assert.equal(state.status, 'compressed')
    // A new server, same context: the compressed fact still resolves "it".
    const again = await connect(repo.dir, env)
    try {
      const refs = await again.call('find_references', { symbol: 'it' })
      assert.equal(refs.structuredContent.symbol, 'UserService')
      assert.equal(refs.structuredContent.resolved, 'it → UserService')
    } finally {
      await again.close()
    }
  })

  it('without VLT_MCP_CONTEXT, an MCP client continues the context of git vlt oracle, and the CLI continues what MCP added', async () => {
    // The CLI talks about Database in the current (default) context…
    const asked = vltJson(repo.dir, ['oracle', 'where is Database defined', '--source', 'code', '--no-log', '--json'])
    assert.deepEqual(asked.context, { name: 'default', exchanges: 1 })
    const agent = await connect(repo.dir, {}, 'other-agent')
    try {
      // …so an MCP client's "it" is Database, and what the CLI's answer established is said.
      const refs = await agent.call('find_references', { symbol: 'it' })
      assert.equal(refs.isError, undefined, textOf(refs))
      assert.equal(refs.structuredContent.resolved, 'it → Database')
      assert.match(textOf(refs), /\n\nEstablished earlier in context default:\n- where is Database defined → src\/db\.py:1-/)
      const oracle = await agent.call('ask_oracle', { question: 'where is authenticate_user defined', sources: ['code'] })
      assert.equal(oracle.isError, undefined, textOf(oracle))
      assert.equal(oracle.structuredContent.context.name, 'default')
      assert.equal(oracle.structuredContent.context.exchanges, 3, 'the CLI question, find_references and this one')
    } finally {
      await agent.close()
    }
    // The MCP question is the CLI's "it" now.
    const followUp = vltJson(repo.dir, ['oracle', 'who calls it', '--source', 'code', '--no-log', '--json'])
    assert.match(followUp.context.resolved, /^it → authenticate_user\b/)
    assert.equal(followUp.context.exchanges, 4)
    const state = readContext(repo.dir, 'default')
    assert.deepEqual(state.exchanges.map((e: any) => e.via), ['cli', 'mcp:other-agent', 'mcp:other-agent', 'cli'])
    assert.equal(state.exchanges[2].question, 'where is authenticate_user defined')
    assert.match(state.exchanges[2].answer, /src\/user_service\.py:15/)
    assert.deepEqual(contextNames(repo.dir), ['compressor', 'default'])
  })
})

describe('git vlt mcp ask_oracle with a model', function () {
  this.timeout(120_000)
  let repo: GitFixture
  let server: FakeOpenAIServer
  let user: UserConfigFile
  before(async () => {
    repo = shopRepo()
    server = await startFakeOpenAIServer()
    user = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "test-model"\n`)
  })
  after(async () => {
    user?.cleanup()
    await server?.close()
    repo?.cleanup()
  })

  it('runs the agent loop as the CLI does and reports usageByRole and toolCalls', async () => {
    server.replyNext(
      { toolCalls: [{ id: 'call_1', name: 'find_references', arguments: { symbol: 'authenticate_user' } }] },
      { text: '`UserService.login` calls `authenticate_user` (`src/user_service.py:12`).' },
    )
    const mcp = await connect(repo.dir, user.env)
    try {
      const result = await mcp.call('ask_oracle', { question: 'who calls authenticate_user', sources: ['code'], context: 'agentic' })
      assert.equal(result.isError, undefined, textOf(result))
      const answer = result.structuredContent
      assert.equal(answer.model, 'test-model')
      assert.match(answer.answer, /`UserService\.login` calls `authenticate_user`/)
      assert.deepEqual(answer.toolCalls.map((c: any) => [c.id, c.name, c.arguments, c.status]), [['call_1', 'find_references', { symbol: 'authenticate_user' }, 'ok']])
      assert.equal(answer.usageByRole.agent.requests + (answer.usageByRole.answer?.requests ?? 0), 2)
      assert.equal(answer.usageByRole.agent.model, 'test-model')
      assert.deepEqual(answer.context, { name: 'agentic', exchanges: 1 })
    } finally {
      await mcp.close()
    }
    const state = readContext(repo.dir, 'agentic')
    assert.equal(state.lastModel, 'test-model')
    assert.equal(state.exchanges[0].via, 'mcp:mcp-test')
  })
})
