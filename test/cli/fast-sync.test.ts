import { strict as assert } from 'node:assert'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MANIFEST_KIND, MANIFEST_VERSION, type TreeManifest } from '../../src/core/index/manifest.js'
import { readRecordSync, writeRecordSync } from '../../src/core/store/index.js'
import { CLI, cliEnv, vlt } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

// `coderag sync` and `--json` take bin/run.js's fast path; `--cwd` goes through oclif. Both must
// print the same thing.
describe('coderag sync fast path', () => {
  let repo: GitFixture
  beforeEach(() => {
    repo = createGitRepo({ files: { 'a.py': 'def a():\n    return 1\n' } })
  })
  afterEach(() => repo.cleanup())

  const withoutDuration = (stdout: string) => {
    const result = JSON.parse(stdout)
    return { ...result, durationMs: 0, commits: { ...result.commits, durationMs: 0 } }
  }

  it('prints the same JSON and text as the oclif command', () => {
    const first = vlt(repo.dir, ['coderag', 'sync', '--json'])
    assert.equal(first.status, 0, first.stderr)
    assert.equal(withoutDuration(first.stdout).mode, 'cold')
    const fast = vlt(repo.dir, ['coderag', 'sync', '--json'])
    const oclif = vlt(repo.dir, ['coderag', 'sync', '--json', '--cwd', repo.dir])
    assert.deepEqual(withoutDuration(fast.stdout), withoutDuration(oclif.stdout))
    assert.equal(fast.stdout.replace(/"durationMs": \d+/g, ''), oclif.stdout.replace(/"durationMs": \d+/g, ''))

    repo.write({ 'b.py': 'def b():\n    return 2\n' })
    repo.commit('b')
    const text = vlt(repo.dir, ['coderag', 'sync', '--force'])
    assert.equal(text.status, 0, text.stderr)
    assert.match(text.stdout, /^tree [0-9a-f]{12}: 1 changed path\(s\), incremental; 1 file\(s\) re-processed; 0 uncommitted change\(s\) in the overlay; commits: 1 added, 0 dropped, 2 indexed \(\d+ ms\)\n {2}b\.py\n$/)
  })

  it('fails outside a repository exactly like the oclif command', () => {
    const outside = mkdtempSync(join(tmpdir(), 'vlt-nogit-'))
    try {
      const env = { GIT_CEILING_DIRECTORIES: tmpdir() }
      for (const json of [false, true]) {
        const flags = json ? ['--json'] : []
        const fast = vlt(outside, ['coderag', 'sync', ...flags], env)
        const oclif = vlt(outside, ['coderag', 'sync', ...flags, '--cwd', outside], env)
        assert.equal(fast.status, 2)
        assert.deepEqual([fast.status, fast.stdout, fast.stderr], [oclif.status, oclif.stdout, oclif.stderr])
      }
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })

  it('leaves anything else to oclif', () => {
    const bad = vlt(repo.dir, ['coderag', 'sync', '--bogus'])
    assert.equal(bad.status, 2)
    assert.match(bad.stderr, /Nonexistent flag: --bogus/)
    const help = vlt(repo.dir, ['coderag', 'sync', '--help'])
    assert.equal(help.status, 0)
    assert.match(help.stdout, /EXAMPLES/)
  })

  it('stops quietly when the reader closes the pipe early (`| head`)', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 1200; i++) files[`src/a-rather-long-directory-name-for-the-output/module_${i}.txt`] = `line ${i}\n`
    repo.write(files)
    repo.commit('many files')
    // A real pipeline: `head` exits after one byte while the CLI is still writing.
    const errors = join(repo.dir, '.git', 'sync-stderr')
    const run = spawnSync('sh', ['-c', `"${process.execPath}" "${CLI}" coderag sync --json 2>"${errors}" | head -c 1`], { cwd: repo.dir, env: cliEnv(), encoding: 'utf8' })
    assert.equal(run.stdout, '{')
    assert.equal(readFileSync(errors, 'utf8'), '')
  })

  it('reports a broken invariant in one line saying how to rebuild, the stack trace only under GIT_VLT_DEBUG', () => {
    assert.equal(vlt(repo.dir, ['coderag', 'init']).status, 0)
    // A manifest that passes its checksum but breaks what the code assumes of it: a bug's doing.
    const manifest = join(repo.dir, '.vlt', 'trees', repo.git('rev-parse', 'HEAD^{tree}'), 'manifest.mpk')
    writeRecordSync(manifest, MANIFEST_KIND, MANIFEST_VERSION, { ...readRecordSync<TreeManifest>(manifest, MANIFEST_KIND, MANIFEST_VERSION), files: 42 })
    repo.write({ 'b.py': 'def b():\n    return 2\n' })
    repo.commit('b')
    const line = /^git vlt: coderag sync failed: .+ \(an internal error; `git vlt coderag init --force` rebuilds the index; GIT_VLT_DEBUG=1 prints its stack trace\)\n$/
    for (const oclif of [[], ['--cwd', repo.dir]]) {
      const text = vlt(repo.dir, ['coderag', 'sync', ...oclif])
      assert.deepEqual([text.status, text.stdout], [1, ''], text.stderr)
      assert.match(text.stderr, line)
      const json = vlt(repo.dir, ['coderag', 'sync', '--json', ...oclif])
      assert.equal(json.status, 1)
      assert.equal(json.stderr, '')
      const { error } = JSON.parse(json.stdout)
      assert.deepEqual(Object.keys(error), ['message', 'code'])
      assert.equal(error.code, 'failure')
      assert.equal(`git vlt: ${error.message}\n`, text.stderr)
      const debug = vlt(repo.dir, ['coderag', 'sync', ...oclif], { GIT_VLT_DEBUG: '1' })
      assert.equal(debug.status, 1)
      assert.match(debug.stderr, /\n {4}at buildTree /)
    }
    assert.equal(vlt(repo.dir, ['coderag', 'init', '--force']).status, 0)
    assert.equal(vlt(repo.dir, ['coderag', 'sync']).status, 0)
  })
})
