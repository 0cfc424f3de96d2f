import { strict as assert } from 'node:assert'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { vltJson } from '../helpers/cli.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { connect, shopRepo, textOf, type McpSession } from './mcp-helpers.js'

describe('git vlt mcp: a call meeting the index damaged or still being built', function () {
  this.timeout(120_000)
  let repo: GitFixture | undefined
  let mcp: McpSession | undefined
  afterEach(async () => {
    await mcp?.close()
    repo?.cleanup()
  })

  it('rebuilds a stored symbol table whose block a call finds damaged, answers, and says so in one warning line', async () => {
    repo = shopRepo()
    mcp = await connect(repo.dir)
    // The server's context is open (the table opened, not read) before the damage.
    const before = await mcp.call('read_file_range', { path: 'src/db.py', start_line: 1, end_line: 2 })
    assert.equal(before.isError, undefined)
    const symbols = join(repo.dir, '.vlt', 'trees', repo.git('rev-parse', 'HEAD^{tree}'), 'symbols.mpk')
    const bytes = readFileSync(symbols)
    // A table this small has one bucket: the last block, before the record's own checksum.
    bytes[bytes.length - 8]! ^= 0xff
    writeFileSync(symbols, bytes)

    const result = await mcp.call('find_definition', { symbol: 'UserService' })
    assert.equal(result.isError, undefined, JSON.stringify(result.content))
    assert.deepEqual(result.structuredContent.definitions.map((d: { path: string; line: number }) => `${d.path}:${d.line}`), ['src/user_service.py:4'])
    const warnings = mcp.stderr().split('\n').filter((line) => /symbols\.mpk/.test(line))
    assert.equal(warnings.length, 1, mcp.stderr())
    assert.match(warnings[0]!, /checksum mismatch.*rebuilt the index of tree [0-9a-f]{12} from the blob records/)
  })

  it('warms up before the first call: a damaged BM25 index is met and rebuilt while the agent has asked nothing yet', async () => {
    repo = shopRepo()
    vltJson(repo.dir, ['coderag', 'init'])
    const bm25 = join(repo.dir, '.vlt', 'trees', repo.git('rev-parse', 'HEAD^{tree}'), 'bm25.mpk')
    const bytes = readFileSync(bm25)
    // In the BM25 header, checked when the index is opened: by a search, never by loading the tree.
    bytes[30]! ^= 0xff
    writeFileSync(bm25, bytes)
    mcp = await connect(repo.dir)
    const rebuilt = /bm25\.mpk: header checksum mismatch; rebuilt the BM25 index/
    for (const started = Date.now(); !rebuilt.test(mcp.stderr()) && Date.now() - started < 30_000; ) await sleep(50)
    assert.match(mcp.stderr(), rebuilt)
    const result = await mcp.call('search_code', { query: 'authenticate user' })
    assert.equal(result.isError, undefined, textOf(result))
    assert.equal(mcp.stderr().split('\n').filter((line) => /bm25\.mpk/.test(line)).length, 1, mcp.stderr())
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
