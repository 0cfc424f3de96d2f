import assert from 'node:assert/strict'
import { readFileSync, statSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { openRepo, workingTreeChanges } from '../../src/core/git/index.js'
import { vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/** A repository whose index has stale stat data for src/a.c (same content, new mtime), and src/b.c modified. */
function staleIndex(): { fixture: GitFixture; index: () => { bytes: Buffer; mtimeMs: number } } {
  const fixture = createGitRepo({ files: { 'src/a.c': 'int a;\n', 'src/b.c': 'int b;\n' } })
  // Same content, new mtime: a git status taking its optional lock refreshes the entry and writes .git/index back.
  const later = new Date(Date.now() + 60_000)
  utimesSync(join(fixture.dir, 'src', 'a.c'), later, later)
  fixture.write({ 'src/b.c': 'int b = 2;\n' })
  const path = join(fixture.dir, '.git', 'index')
  return { fixture, index: () => ({ bytes: readFileSync(path), mtimeMs: statSync(path).mtimeMs }) }
}

describe('workingTreeChanges', () => {
  let fixture: GitFixture | undefined
  afterEach(() => fixture?.cleanup())

  it("leaves git's index alone, though its stat data is stale: a user's git command beside it never meets our index.lock", async () => {
    const stale = staleIndex()
    fixture = stale.fixture
    const before = stale.index()
    const changes = await workingTreeChanges(await openRepo(fixture.dir))
    assert.deepEqual(changes.map((change) => [change.path, change.status]), [['src/b.c', 'modified']])
    assert.deepEqual(stale.index(), before)
  })

  it("refreshes git's index when asked (init), with the same changes", async () => {
    const stale = staleIndex()
    fixture = stale.fixture
    const before = stale.index()
    const changes = await workingTreeChanges(await openRepo(fixture.dir), { refreshIndex: true })
    assert.deepEqual(changes.map((change) => [change.path, change.status]), [['src/b.c', 'modified']])
    assert.notDeepEqual(stale.index(), before)
  })

  it("coderag init refreshes git's index once; a sync after it does not write it", () => {
    const stale = staleIndex()
    fixture = stale.fixture
    const before = stale.index()
    vltJson(fixture.dir, ['coderag', 'init'])
    const refreshed = stale.index()
    assert.notDeepEqual(refreshed, before)
    const later = new Date(Date.now() + 120_000)
    utimesSync(join(fixture.dir, 'src', 'a.c'), later, later)
    vltJson(fixture.dir, ['coderag', 'sync'])
    assert.deepEqual(stale.index(), refreshed)
  })
})
