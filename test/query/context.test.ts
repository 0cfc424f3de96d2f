import { strict as assert } from 'node:assert'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { openQueryContext } from '../../src/core/query/context.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const warn = (): void => {}

describe('query context', function () {
  this.timeout(60_000)
  let repo: GitFixture
  afterEach(() => repo?.cleanup())

  it('builds the index on first use and lays uncommitted edits over HEAD', async () => {
    repo = createGitRepo({ files: { 'app/a.py': 'def first():\n    return 1\n', 'app/b.py': 'from app.a import first\n\ndef caller():\n    return first()\n' } })
    assert.equal(existsSync(join(repo.dir, '.vlt')), false)
    const clean = await openQueryContext(repo.dir, { warn })
    assert.equal(clean.freshness.treeHash, repo.git('rev-parse', 'HEAD^{tree}'))
    assert.equal(clean.freshness.stale, false)
    assert.equal(clean.freshness.overlayFiles, 0)
    assert.deepEqual(clean.aggregates.symbols.byName('first').map((s) => s.path), ['app/a.py'])

    repo.write({ 'app/a.py': 'def second():\n    return 2\n', 'app/c.py': 'def third():\n    return 3\n' })
    const dirty = await openQueryContext(repo.dir, { warn })
    assert.equal(dirty.freshness.overlayFiles, 2)
    assert.deepEqual(dirty.aggregates.symbols.byName('first'), [])
    assert.deepEqual(dirty.aggregates.symbols.byName('second').map((s) => s.path), ['app/a.py'])
    assert.deepEqual(dirty.aggregates.symbols.byName('third').map((s) => s.path), ['app/c.py'])
    assert.equal(dirty.files.get('app/a.py')!.dirty, true)
    assert.match(dirty.artifact('app/a.py')!.chunks[0]!.body, /def second/)
    assert.equal(dirty.manifest.treeHash, clean.manifest.treeHash, 'the committed tree is unchanged')
  })
})
