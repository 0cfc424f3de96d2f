import { strict as assert } from 'node:assert'
import type { GitFixture } from '../helpers/git-fixture.js'
import { connect, shopRepo, textOf, type McpSession } from './mcp-helpers.js'

describe('git vlt mcp: a question asked while the server builds the index', function () {
  this.timeout(120_000)
  let repo: GitFixture | undefined
  let mcp: McpSession | undefined
  afterEach(async () => {
    await mcp?.close()
    repo?.cleanup()
  })

  it('ask_oracle waits for the build the server started instead of for the index lock', async () => {
    repo = shopRepo()
    // No waiting for a held lock: a question opening its own context fails at once while the warm-up builds.
    repo.write({ 'vlt.toml': '[query]\nlock_wait_ms = 0\n' })
    repo.commit('no lock wait')
    mcp = await connect(repo.dir)
    const result = await mcp.call('ask_oracle', { question: 'where is authenticate_user defined', sources: ['code'] })
    assert.equal(result.isError, undefined, textOf(result))
    assert.match(result.structuredContent.answer, /src\/user_service\.py:15/)
  })
})
