import assert from 'node:assert/strict'
import { readFileSync, statSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { openRepo, workingTreeChanges } from '../../src/core/git/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('workingTreeChanges', () => {
  let fixture: GitFixture
  afterEach(() => fixture?.cleanup())

  it("leaves git's index alone, though its stat data is stale: a user's git command beside it never meets our index.lock", async () => {
    fixture = createGitRepo({ files: { 'src/a.c': 'int a;\n', 'src/b.c': 'int b;\n' } })
    // Same content, new mtime: git status would refresh the entry and write .git/index back.
    const later = new Date(Date.now() + 60_000)
    utimesSync(join(fixture.dir, 'src', 'a.c'), later, later)
    fixture.write({ 'src/b.c': 'int b = 2;\n' })
    const index = join(fixture.dir, '.git', 'index')
    const before = { bytes: readFileSync(index), mtimeMs: statSync(index).mtimeMs }
    const changes = await workingTreeChanges(await openRepo(fixture.dir))
    assert.deepEqual(changes.map((change) => [change.path, change.status]), [['src/b.c', 'modified']])
    assert.deepEqual({ bytes: readFileSync(index), mtimeMs: statSync(index).mtimeMs }, before)
  })
})
