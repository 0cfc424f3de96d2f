import { strict as assert } from 'node:assert'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openQueryContext } from '../../src/core/query/context.js'
import { warmUp } from '../../src/core/query/warm-up.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('warm-up (daemon, MCP server)', function () {
  this.timeout(30_000)
  let repo: GitFixture
  afterEach(() => repo.cleanup())

  it('opens what a first search opens (the BM25 index: its damage is met and rebuilt there, not by the first client)', async () => {
    repo = createGitRepo({ files: { 'README.md': '# notes\n', 'a.py': 'def alpha_total():\n    return 1\n', 'b.py': 'def beta():\n    return alpha_total()\n' } })
    const { freshness } = await openQueryContext(repo.dir, { warn: () => {} })
    const bm25 = join(repo.dir, '.vlt', 'trees', freshness.treeHash, 'bm25.mpk')
    const damaged = Buffer.from(readFileSync(bm25))
    // In the BM25 header, checked when the index is opened: by a search, never by def or refs.
    damaged[30] ^= 0xff
    writeFileSync(bm25, damaged)
    const warnings: string[] = []
    const qctx = await openQueryContext(repo.dir, { warn: (message) => warnings.push(message) })
    assert.deepEqual(warnings, [], 'loading the tree leaves the BM25 index closed')
    await warmUp(qctx)
    assert.equal(warnings.length, 1, warnings.join('\n'))
    assert.match(warnings[0]!, /bm25\.mpk: header checksum mismatch; rebuilt the BM25 index/)
  })
})
