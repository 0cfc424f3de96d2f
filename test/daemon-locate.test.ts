import { strict as assert } from 'node:assert'
import { chownSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { plainRepoLocation } from '../src/core/daemon/locate.js'
import { locateRepo } from '../src/core/git/repo.js'
import { createGitRepo, type GitFixture } from './helpers/git-fixture.js'

describe('daemon: locating a plain repository without git', () => {
  let repo: GitFixture
  beforeEach(() => {
    repo = createGitRepo({ files: { 'src/deep/a.py': 'def alpha():\n    return 1\n' } })
  })
  afterEach(() => repo.cleanup())

  it('finds what git finds, from the top level and from below it', async () => {
    for (const cwd of [repo.dir, join(repo.dir, 'src', 'deep')]) {
      const { root, gitDir, vltDir } = await locateRepo(cwd)
      assert.deepEqual(plainRepoLocation(cwd, {}), { root, gitDir, vltDir }, cwd)
    }
  })

  it('leaves to git what git might find elsewhere or refuse', () => {
    assert.equal(plainRepoLocation(repo.dir, { GIT_DIR: join(repo.dir, '.git') }), undefined, 'GIT_DIR')
    assert.equal(plainRepoLocation(repo.dir, { GIT_CONFIG_PARAMETERS: "'core.worktree'='/elsewhere'" }), undefined, 'git -c')
    assert.equal(plainRepoLocation(join(repo.dir, '.git', 'refs'), {}), undefined, 'inside the git directory')
    // A linked worktree or a submodule: its git directory is named in a file.
    const linked = join(repo.dir, 'linked')
    mkdirSync(linked)
    writeFileSync(join(linked, '.git'), `gitdir: ${join(repo.dir, '.git')}\n`)
    assert.equal(plainRepoLocation(linked, {}), undefined, 'a .git file')
    // Not a repository: git walks on past it.
    const hollow = join(repo.dir, 'src', 'hollow')
    mkdirSync(join(hollow, '.git'), { recursive: true })
    assert.equal(plainRepoLocation(hollow, {}), undefined, 'a .git directory without HEAD')
  })

  it("leaves to git a repository whose .git directory is another user's", function () {
    // Only root can give a directory away.
    if (process.getuid?.() !== 0) this.skip()
    assert.notEqual(plainRepoLocation(repo.dir, {}), undefined)
    chownSync(join(repo.dir, '.git'), 4321, 4321)
    assert.equal(plainRepoLocation(repo.dir, {}), undefined)
  })
})
