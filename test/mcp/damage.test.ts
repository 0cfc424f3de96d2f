import { strict as assert } from 'node:assert'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { GitFixture } from '../helpers/git-fixture.js'
import { connect, shopRepo, type McpSession } from './mcp-helpers.js'

describe('git vlt mcp: damage found by a tool call', function () {
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
})
