import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { UsageError, VltError } from '../../src/core/errors.js'
import { openRepo } from '../../src/core/git/index.js'
import { locateRepo } from '../../src/core/git/repo.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const EMPTY_TREE_SHA1 = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'
const EMPTY_TREE_SHA256 = '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321'

/** Runs `body` with process.env changed, restoring it afterwards. */
async function withEnv<T>(vars: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]))
  Object.assign(process.env, vars)
  try {
    return await body()
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
}

describe('openRepo', () => {
  const fixtures: GitFixture[] = []
  const track = (fixture: GitFixture) => (fixtures.push(fixture), fixture)
  after(() => fixtures.forEach((fixture) => fixture.cleanup()))

  it('finds the repository from a subdirectory', async () => {
    const repo = track(createGitRepo({ files: { 'src/deep/a.c': 'int a;\n' } }))
    const found = await openRepo(join(repo.dir, 'src', 'deep'))
    assert.deepEqual(found, {
      root: repo.dir,
      gitDir: join(repo.dir, '.git'),
      commonDir: join(repo.dir, '.git'),
      isBare: false,
      isWorktree: false,
      vltDir: join(repo.dir, '.vlt'),
      head: { commit: repo.git('rev-parse', 'HEAD'), tree: repo.git('rev-parse', 'HEAD^{tree}'), branch: 'main', detached: false },
      objectFormat: 'sha1',
    })
  })

  it('opens a bare repository, keeping .vlt inside the git dir', async () => {
    const source = track(createGitRepo({ files: { 'a.txt': 'a\n' } }))
    const bare = track(createGitRepo({ bare: true }))
    source.git('push', '-q', bare.dir, 'main')
    const found = await openRepo(bare.dir)
    assert.equal(found.root, null)
    assert.equal(found.isBare, true)
    assert.equal(found.gitDir, bare.dir)
    assert.equal(found.vltDir, join(bare.dir, 'vlt'))
    assert.equal(found.head.commit, source.git('rev-parse', 'HEAD'))
    assert.equal(found.head.branch, 'main')
  })

  it('opens an empty repository: no commit, the empty tree', async () => {
    const repo = track(createGitRepo())
    const found = await openRepo(repo.dir)
    assert.deepEqual(found.head, { commit: null, tree: EMPTY_TREE_SHA1, branch: 'main', detached: false })
  })

  it('computes the empty tree of a SHA-256 repository', async () => {
    const repo = track(createGitRepo({ initArgs: ['--object-format=sha256'] }))
    const found = await openRepo(repo.dir)
    assert.equal(found.objectFormat, 'sha256')
    assert.equal(found.head.tree, EMPTY_TREE_SHA256)
  })

  it('reports a detached HEAD', async () => {
    const repo = track(createGitRepo({ files: { 'a.txt': 'a\n' } }))
    const first = repo.git('rev-parse', 'HEAD')
    repo.write({ 'b.txt': 'b\n' })
    repo.commit()
    repo.git('checkout', '-q', '--detach', first)
    const found = await openRepo(repo.dir)
    assert.deepEqual(found.head, { commit: first, tree: repo.git('rev-parse', 'HEAD^{tree}'), branch: null, detached: true })
  })

  it('gives a linked worktree its own root and .vlt, sharing the common dir', async () => {
    const repo = track(createGitRepo({ files: { 'a.txt': 'a\n' } }))
    const worktree = `${repo.dir}-wt`
    repo.git('worktree', 'add', '-q', '-b', 'feature', worktree)
    fixtures.push({ ...repo, cleanup: () => rmSync(worktree, { recursive: true, force: true }) })
    const found = await openRepo(worktree)
    assert.equal(found.root, worktree)
    assert.equal(found.isWorktree, true)
    assert.equal(found.isBare, false)
    assert.equal(found.gitDir, join(repo.dir, '.git', 'worktrees', basename(worktree)))
    assert.equal(found.commonDir, join(repo.dir, '.git'))
    assert.equal(found.vltDir, join(worktree, '.vlt'))
    assert.equal(found.head.branch, 'feature')
    assert.equal(found.head.commit, repo.git('rev-parse', 'HEAD'))
  })

  it('locates the same folders without HEAD (the daemon client\'s lookup): subdirectory, bare, linked worktree, empty', async () => {
    const repo = track(createGitRepo({ files: { 'src/a.txt': 'a\n' } }))
    const bare = track(createGitRepo({ bare: true }))
    repo.git('push', '-q', bare.dir, 'main')
    const worktree = `${repo.dir}-located`
    repo.git('worktree', 'add', '-q', '-b', 'located', worktree)
    fixtures.push({ ...repo, cleanup: () => rmSync(worktree, { recursive: true, force: true }) })
    const empty = track(createGitRepo())
    for (const dir of [join(repo.dir, 'src'), bare.dir, worktree, empty.dir]) {
      const { head: _head, ...folders } = await openRepo(dir)
      assert.deepEqual(await locateRepo(dir), folders, dir)
    }
    await assert.rejects(locateRepo(join(repo.dir, 'missing')), UsageError)
  })

  it('follows GIT_DIR from the environment', async () => {
    const repo = track(createGitRepo({ files: { 'a.txt': 'a\n' } }))
    const bare = track(createGitRepo({ bare: true }))
    repo.git('push', '-q', bare.dir, 'main')
    const elsewhere = track(createGitRepo())
    const found = await withEnv({ GIT_DIR: bare.dir }, () => openRepo(elsewhere.dir))
    assert.equal(found.gitDir, bare.dir)
    assert.equal(found.isBare, true)
    assert.equal(found.head.commit, repo.git('rev-parse', 'HEAD'))
  })

  it('refuses a GIT_DIR that is not a repository, naming the variable', async () => {
    const repo = track(createGitRepo())
    await assert.rejects(
      withEnv({ GIT_DIR: join(repo.dir, 'nope') }, () => openRepo(repo.dir)),
      (error: unknown) => error instanceof UsageError && /GIT_DIR=/.test(error.message),
    )
  })

  it('refuses a folder outside any repository with one clear line and exit code 2', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vlt-nogit-')))
    mkdirSync(join(dir, 'sub'))
    try {
      await withEnv({ GIT_CEILING_DIRECTORIES: dir }, async () => {
        await assert.rejects(openRepo(join(dir, 'sub')), (error: unknown) => {
          assert.ok(error instanceof UsageError)
          assert.equal(error.exitCode, 2)
          assert.equal(error.message, `not a git repository (or any parent up to /): ${join(dir, 'sub')} — run git vlt inside a git repository`)
          return true
        })
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses a directory that does not exist', async () => {
    await assert.rejects(openRepo('/nonexistent/vlt/dir'), (error: unknown) => error instanceof UsageError && /not a directory/.test(error.message))
  })

  it('says clearly when git is not installed', async () => {
    const repo = track(createGitRepo())
    await assert.rejects(
      withEnv({ PATH: '/nonexistent' }, () => openRepo(repo.dir)),
      (error: unknown) => error instanceof VltError && !(error instanceof UsageError) && /git was not found on PATH/.test(error.message),
    )
  })
})
