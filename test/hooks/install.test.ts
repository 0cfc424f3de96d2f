import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hooksStatus, installHooks, uninstallHooks, HOOK_NAMES } from '../../src/core/hooks/index.js'
import { readQueue } from '../../src/core/queue/index.js'
import { ensureVltDir } from '../../src/core/store/index.js'
import { createGitRepo, FIXTURE_GIT_ENV, type GitFixture } from '../helpers/git-fixture.js'

/** Every file of a directory with its bytes, mode and symlink target: what "restored exactly" compares. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    const info = lstatSync(path)
    out[name] = info.isSymbolicLink()
      ? `link ${readlinkSync(path)}`
      : `${(info.mode & 0o7777).toString(8)} ${readFileSync(path).toString('base64')}`
  }
  return out
}

function gitRun(dir: string, args: string[]) {
  return spawnSync('git', args, { cwd: dir, env: { ...process.env, ...FIXTURE_GIT_ENV }, encoding: 'utf8' })
}

const states = async (dir: string) => (await hooksStatus(dir, null)).hooks.map((hook) => `${hook.hook}:${hook.state}`)

describe('hooks install/uninstall', () => {
  let repo: GitFixture
  beforeEach(async () => {
    repo = createGitRepo({ files: { 'a.txt': 'a\n' } })
    await ensureVltDir(join(repo.dir, '.vlt'))
  })
  afterEach(() => repo.cleanup())

  it('installs four hooks into .git/hooks, idempotently, and removes them leaving the directory as it was', async () => {
    const hooks = join(repo.dir, '.git', 'hooks')
    const before = snapshot(hooks)
    assert.deepEqual(await states(repo.dir), HOOK_NAMES.map((hook) => `${hook}:missing`))

    const first = await installHooks(repo.dir, { launcher: null })
    assert.equal(first.dir, hooks)
    assert.equal(first.hooksPath, null)
    assert.deepEqual(first.hooks.map((change) => change.action), ['installed', 'installed', 'installed', 'installed'])
    for (const hook of HOOK_NAMES) assert.equal(statSync(join(hooks, hook)).mode & 0o777, 0o755)
    assert.deepEqual(await states(repo.dir), HOOK_NAMES.map((hook) => `${hook}:installed`))
    assert.ok((await hooksStatus(repo.dir, null)).hooks.every((hook) => hook.upToDate))

    const installed = snapshot(hooks)
    const again = await installHooks(repo.dir, { launcher: null })
    assert.deepEqual(again.hooks.map((change) => change.action), ['unchanged', 'unchanged', 'unchanged', 'unchanged'])
    assert.deepEqual(snapshot(hooks), installed)

    // A different launcher is a refresh of the block, not a second block.
    const refreshed = await installHooks(repo.dir, { launcher: { node: '/opt/node', cli: "/opt/it's/run.js" } })
    assert.deepEqual(refreshed.hooks.map((change) => change.action), ['updated', 'updated', 'updated', 'updated'])
    assert.equal(readFileSync(join(hooks, 'post-commit'), 'utf8').split('>>> git-vlt post-commit').length, 2)
    assert.ok(readFileSync(join(hooks, 'post-commit'), 'utf8').includes(`cli='/opt/it'\\''s/run.js'`))
    assert.ok((await hooksStatus(repo.dir, null)).hooks.every((hook) => !hook.upToDate))

    const removed = await uninstallHooks(repo.dir)
    assert.deepEqual(removed.hooks.map((change) => change.action), ['removed', 'removed', 'removed', 'removed'])
    assert.deepEqual(snapshot(hooks), before)
    const twice = await uninstallHooks(repo.dir)
    assert.deepEqual(twice.hooks.map((change) => change.action), ['absent', 'absent', 'absent', 'absent'])
  })

  it('inserts a block into an existing shell hook, both run, and uninstall restores its bytes and mode', async () => {
    const hooks = join(repo.dir, '.git', 'hooks')
    const original = '#!/bin/bash\n# team hook\necho "post-commit ran with $# args" >> "$(git rev-parse --git-dir)/team.log"\nexit 0\n'
    writeFileSync(join(hooks, 'post-commit'), original)
    chmodSync(join(hooks, 'post-commit'), 0o750)
    const before = snapshot(hooks)
    assert.deepEqual((await states(repo.dir))[0], 'post-commit:foreign')

    const install = await installHooks(repo.dir, { launcher: null })
    assert.deepEqual(install.hooks[0], { hook: 'post-commit', path: join(hooks, 'post-commit'), action: 'chained', chainedTo: join(hooks, 'post-commit') })
    const text = readFileSync(join(hooks, 'post-commit'), 'utf8')
    assert.ok(text.startsWith('#!/bin/bash\n# >>> git-vlt post-commit (inserted) >>>\n'))
    assert.ok(text.endsWith('# <<< git-vlt post-commit <<<\n# team hook\necho "post-commit ran with $# args" >> "$(git rev-parse --git-dir)/team.log"\nexit 0\n'))
    assert.equal(statSync(join(hooks, 'post-commit')).mode & 0o777, 0o750)
    assert.deepEqual(await states(repo.dir), ['post-commit:chained', 'post-merge:installed', 'post-checkout:installed', 'post-rewrite:installed'])
    assert.deepEqual((await installHooks(repo.dir, { launcher: null })).hooks.map((change) => change.action), ['unchanged', 'unchanged', 'unchanged', 'unchanged'])

    repo.write({ 'a.txt': 'a\nb\n' })
    repo.commit('second')
    assert.equal(readFileSync(join(repo.dir, '.git', 'team.log'), 'utf8'), 'post-commit ran with 0 args\n')
    assert.deepEqual((await readQueue(join(repo.dir, '.vlt'))).records.map((record) => record.path), ['a.txt'])

    const removed = await uninstallHooks(repo.dir)
    assert.deepEqual(removed.hooks.map((change) => change.action), ['restored', 'removed', 'removed', 'removed'])
    assert.deepEqual(snapshot(hooks), before)
  })

  it('moves a non-shell, non-executable or symlinked hook aside, calls it with the same args and stdin, and puts it back', async () => {
    const hooks = join(repo.dir, '.git', 'hooks')
    // A node hook records its arguments and stdin; a non-executable one must stay inactive; a symlink stays a symlink.
    writeFileSync(join(hooks, 'post-rewrite'), `#!${process.execPath}\nconst fs = require('fs')\nfs.writeFileSync('.git/rewrite.log', process.argv.slice(2).join(' ') + '|' + fs.readFileSync(0, 'utf8'))\n`)
    chmodSync(join(hooks, 'post-rewrite'), 0o755)
    writeFileSync(join(hooks, 'post-merge'), '#!/bin/sh\ntouch .git/inactive-ran\n')
    chmodSync(join(hooks, 'post-merge'), 0o644)
    writeFileSync(join(repo.dir, 'checkout-hook.sh'), '#!/bin/sh\necho "$3" >> .git/checkout.log\nexit 3\n')
    chmodSync(join(repo.dir, 'checkout-hook.sh'), 0o755)
    symlinkSync(join(repo.dir, 'checkout-hook.sh'), join(hooks, 'post-checkout'))
    repo.commit('hook script')
    const before = snapshot(hooks)
    // A failing post-checkout fails `git checkout`: chaining must keep that as it was.
    const failing = gitRun(repo.dir, ['checkout', '-q', '-b', 'side']).status
    assert.notEqual(failing, 0)

    const install = await installHooks(repo.dir, { launcher: null })
    assert.deepEqual(
      install.hooks.map((change) => [change.hook, change.action, change.chainedTo]),
      [
        ['post-commit', 'installed', null],
        ['post-merge', 'chained', join(hooks, 'post-merge.vlt-chained')],
        ['post-checkout', 'chained', join(hooks, 'post-checkout.vlt-chained')],
        ['post-rewrite', 'chained', join(hooks, 'post-rewrite.vlt-chained')],
      ],
    )
    assert.deepEqual(await states(repo.dir), ['post-commit:installed', 'post-merge:chained', 'post-checkout:chained', 'post-rewrite:chained'])

    repo.write({ 'a.txt': 'amended\n' })
    const old = repo.git('rev-parse', 'HEAD')
    repo.git('commit', '-q', '-a', '--amend', '-m', 'amended')
    const amended = repo.git('rev-parse', 'HEAD')
    assert.equal(readFileSync(join(repo.dir, '.git', 'rewrite.log'), 'utf8'), `amend|${old} ${amended}\n`)
    const rewrite = (await readQueue(join(repo.dir, '.vlt'))).batches.find((batch) => batch.hook === 'post-rewrite')!
    assert.deepEqual([rewrite.from, rewrite.to, rewrite.records.map((record) => record.path)], [old, amended, ['a.txt']])

    const checkout = gitRun(repo.dir, ['checkout', '-q', 'main'])
    assert.deepEqual([checkout.status, checkout.stdout, checkout.stderr], [failing, '', ''])
    assert.equal(readFileSync(join(repo.dir, '.git', 'checkout.log'), 'utf8'), '1\n1\n')
    gitRun(repo.dir, ['merge', '-q', '--no-edit', 'side'])
    assert.equal(existsSync(join(repo.dir, '.git', 'inactive-ran')), false)

    const removed = await uninstallHooks(repo.dir)
    assert.deepEqual(removed.hooks.map((change) => change.action), ['removed', 'restored', 'restored', 'restored'])
    assert.deepEqual(snapshot(hooks), before)
  })

  it('follows core.hooksPath (husky layout), keeps the husky runner working and restores it exactly', async () => {
    // husky 9: core.hooksPath = .husky/_, whose hooks source `h`, which runs .husky/<basename "$0">.
    repo.write({
      '.husky/_/h': '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n',
      '.husky/_/post-commit': '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n',
      '.husky/post-commit': 'echo husky >> .git/husky.log\n',
    })
    chmodSync(join(repo.dir, '.husky/_/post-commit'), 0o755)
    repo.git('config', 'core.hooksPath', '.husky/_')
    const husky = join(repo.dir, '.husky', '_')
    const gitHooks = snapshot(join(repo.dir, '.git', 'hooks'))
    const before = snapshot(husky)

    const install = await installHooks(join(repo.dir, '.husky'), { launcher: null })
    assert.deepEqual([install.dir, install.hooksPath], [husky, '.husky/_'])
    assert.deepEqual(install.hooks.map((change) => change.action), ['chained', 'installed', 'installed', 'installed'])
    assert.deepEqual(snapshot(join(repo.dir, '.git', 'hooks')), gitHooks)

    repo.write({ 'a.txt': 'changed\n' })
    repo.git('commit', '-q', '-am', 'with husky')
    assert.equal(readFileSync(join(repo.dir, '.git', 'husky.log'), 'utf8'), 'husky\n')
    assert.deepEqual((await readQueue(join(repo.dir, '.vlt'))).records.map((record) => `${record.change} ${record.path}`), ['M a.txt'])

    await uninstallHooks(repo.dir)
    assert.deepEqual(snapshot(husky), before)
  })

  it('creates a configured hooks directory that does not exist yet', async () => {
    repo.git('config', 'core.hooksPath', 'tools/hooks')
    const install = await installHooks(repo.dir, { launcher: null })
    assert.equal(install.dir, join(repo.dir, 'tools', 'hooks'))
    assert.deepEqual(readdirSync(install.dir).sort(), ['post-checkout', 'post-commit', 'post-merge', 'post-rewrite'])
  })

  it('refuses to chain when a moved-aside hook is already in the way, and changes nothing for that hook', async () => {
    const hooks = join(repo.dir, '.git', 'hooks')
    writeFileSync(join(hooks, 'post-merge'), 'binary\0hook')
    chmodSync(join(hooks, 'post-merge'), 0o755)
    writeFileSync(join(hooks, 'post-merge.vlt-chained'), 'left over')
    const before = snapshot(hooks)
    await assert.rejects(installHooks(repo.dir, { launcher: null }), /post-merge\.vlt-chained is in the way/)
    assert.deepEqual(snapshot(hooks)['post-merge'], before['post-merge'])
    assert.deepEqual(snapshot(hooks)['post-merge.vlt-chained'], before['post-merge.vlt-chained'])
  })
})
