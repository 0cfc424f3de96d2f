import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { defaultLauncher } from '../../src/core/queue/index.js'
import { vlt, vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('git vlt hooks install|status|uninstall', () => {
  let repo: GitFixture
  beforeEach(() => {
    repo = createGitRepo({ files: { 'a.txt': 'a\n' } })
  })
  afterEach(() => repo.cleanup())

  it('round-trips through the CLI with --json, from a subdirectory, recording this installation as the launcher', () => {
    repo.write({ 'sub/b.txt': 'b\n' })
    const sub = join(repo.dir, 'sub')
    const hooks = join(repo.dir, '.git', 'hooks')
    assert.deepEqual(vltJson(sub, ['hooks', 'status']).hooks.map((hook: { state: string }) => hook.state), ['missing', 'missing', 'missing', 'missing'])

    const install = vltJson(sub, ['hooks', 'install'])
    assert.deepEqual([install.dir, install.hooksPath], [hooks, null])
    assert.deepEqual(install.hooks.map((hook: { action: string }) => hook.action), ['installed', 'installed', 'installed', 'installed'])
    const { node, cli } = defaultLauncher()
    assert.ok(readFileSync(join(hooks, 'post-commit'), 'utf8').includes(`node='${node}' cli='${cli}'`))

    const status = vltJson(sub, ['hooks', 'status'])
    assert.deepEqual(status.hooks[0], { hook: 'post-commit', path: join(hooks, 'post-commit'), state: 'installed', chainedTo: null, upToDate: true })

    const text = vlt(repo.dir, ['hooks', 'status'])
    assert.equal(text.status, 0)
    assert.equal(text.stdout, `hooks in ${hooks}\n  post-commit    installed\n  post-merge     installed\n  post-checkout  installed\n  post-rewrite   installed\n`)

    assert.deepEqual(vltJson(repo.dir, ['hooks', 'uninstall']).hooks.map((hook: { action: string }) => hook.action), ['removed', 'removed', 'removed', 'removed'])
  })

  it('fails with a usage error outside a repository', () => {
    const run = vlt('/', ['hooks', 'install'])
    assert.equal(run.status, 2)
    assert.match(run.stderr, /^git vlt: not a git repository/)
  })
})
