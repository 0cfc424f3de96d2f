import { strict as assert } from 'node:assert'
import { join } from 'node:path'
import { readState, writeState } from '../../src/core/index/state.js'
import { Repairs } from '../../src/core/index/repairs.js'
import { vltPaths } from '../../src/core/store/index.js'
import { vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

// HEAD has not moved, but what the index was built with has: sync must not answer "unchanged".
describe('re-indexing when the settings change under an unchanged HEAD', () => {
  let repo: GitFixture
  beforeEach(() => {
    repo = createGitRepo({ files: { 'a.py': 'def a():\n    return 1\n', 'gen/b.py': 'def b():\n    return 2\n' } })
  })
  afterEach(() => repo.cleanup())

  it('applies a vlt.toml edit at the next sync, and its revert too', () => {
    assert.equal(vltJson(repo.dir, ['coderag', 'init']).files, 2)
    repo.write({ 'vlt.toml': '[index]\nexclude = ["gen/"]\n' })
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).stale, true)
    const sync = vltJson(repo.dir, ['coderag', 'sync'])
    assert.notEqual(sync.mode, 'unchanged')
    assert.ok(!sync.extracted.includes('a.py'), 'a.py is reused from the blob cache')
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.files, 1)
    assert.equal(status.stale, false)
    assert.equal(vltJson(repo.dir, ['coderag', 'sync']).mode, 'unchanged')

    // One index per tree: the revert rebuilds the aggregates, from cached blob artifacts.
    repo.write({ 'vlt.toml': '' })
    const reverted = vltJson(repo.dir, ['coderag', 'sync'])
    assert.notEqual(reverted.mode, 'unchanged')
    assert.deepEqual(reverted.extracted.filter((path: string) => path !== 'vlt.toml'), [])
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).files, 2)
  })

  it('re-checks an index whose state predates the extractor stamp (an upgrade)', async () => {
    vltJson(repo.dir, ['coderag', 'init'])
    const paths = vltPaths(join(repo.dir, '.vlt'))
    const { indexedWith, ...older } = await readState(paths, new Repairs())
    assert.ok(indexedWith)
    await writeState(paths, older)
    assert.equal(vltJson(repo.dir, ['coderag', 'sync']).mode, 'reused')
    assert.equal((await readState(paths, new Repairs())).indexedWith, indexedWith)
  })
})
