import { strict as assert } from 'node:assert'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { GitFixture } from '../helpers/git-fixture.js'
import { connect, shopRepo, textOf } from './mcp-helpers.js'

describe('git vlt mcp conversation context', function () {
  this.timeout(120_000)
  let repo: GitFixture
  before(() => {
    repo = shopRepo()
  })
  after(() => repo?.cleanup())

  const contextState = (): any => {
    const dir = join(repo.dir, '.vlt', 'mcp', 'contexts')
    const files = readdirSync(dir).filter((f) => f.startsWith('compressor-'))
    assert.equal(files.length, 1)
    return JSON.parse(readFileSync(join(dir, files[0]!), 'utf8'))
  }

  it('compresses older exchanges at 80 % of the budget and still uses their facts, across a restart', async () => {
    const env = { VLT_MCP_CONTEXT_BUDGET: '4000', VLT_MCP_CLIENT_ID: 'compressor' }
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

    // A new server, same client: the compressed fact still resolves "it".
    const again = await connect(repo.dir, env)
    try {
      const refs = await again.call('find_references', { symbol: 'it' })
      assert.equal(refs.structuredContent.symbol, 'UserService')
      assert.equal(refs.structuredContent.resolved, 'it → UserService')
    } finally {
      await again.close()
    }
  })

  it('keeps one context per client id (from the MCP client name when no env var is set)', async () => {
    const other = await connect(repo.dir, {}, 'other-agent')
    try {
      const result = await other.call('find_references', { symbol: 'it' })
      assert.equal(result.isError, true, 'nothing was discussed with this client yet')
      assert.match(textOf(result), /^No definition of or reference to it/)
    } finally {
      await other.close()
    }
    const names = readdirSync(join(repo.dir, '.vlt', 'mcp', 'contexts')).sort()
    assert.deepEqual(names.map((n) => n.replace(/-[0-9a-f]{8}\.json$/, '')), ['compressor', 'other-agent'])
  })
})
