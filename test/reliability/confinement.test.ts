/**
 * A cloned repository is untrusted input: it can commit `.vlt` itself, or any path under it, as a
 * symlink (git mode 120000) aimed at an absolute path or out through `..`, and it can commit
 * regular files where git-vlt keeps its own records. Each case here plants that in a real
 * repository, with a canary directory beside it standing for the rest of the machine, runs the
 * commands that write, delete or read there, and checks that the canary is byte for byte what it
 * was and that each command refused (or skipped) with one clear line.
 */
import { strict as assert } from 'node:assert'
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { installHooks } from '../../src/core/hooks/index.js'
import { EXTRACTOR_VERSION } from '../../src/core/parse/version.js'
import { vltPaths } from '../../src/core/store/index.js'
import { renderEntry, renderHeader } from '../../src/core/threads/format.js'
import { CLI, cliEnv, vlt, type CliRun } from '../helpers/cli.js'
import { createGitRepo, FIXTURE_GIT_ENV, type GitFixture } from '../helpers/git-fixture.js'
import { connect, textOf } from '../mcp/mcp-helpers.js'

const SECRET = 'canary-key-material'
const CANARY_THREAD_TEXT = 'CANARY_THREAD_TEXT'
const APP = 'def real_function():\n    """Returns one."""\n    return 1\n'

/** A thread file as git-vlt writes it, so that code following a link would happily read and append to it. */
const canaryThread = (text = CANARY_THREAD_TEXT): string =>
  renderHeader({ title: 't', created: '2024-01-01T00:00:00.000Z', description: '' }) +
  renderEntry({ id: '0lqz0a000-0123abcd', timestamp: '2024-01-01T00:00:00.000Z', author: 'user', type: 'thought', text })

/** What lives outside the repository: files a follow-the-link write, delete or read would touch. */
function plantCanary(dir: string): void {
  mkdirSync(join(dir, 'threads'), { recursive: true })
  mkdirSync(join(dir, 'keep'), { recursive: true })
  writeFileSync(join(dir, 'secret.txt'), 'TOP SECRET canary\n')
  writeFileSync(join(dir, 'id_rsa'), `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRET}\n-----END OPENSSH PRIVATE KEY-----\n`)
  writeFileSync(join(dir, 't.md'), canaryThread())
  writeFileSync(join(dir, 'threads', 't.md'), canaryThread())
  writeFileSync(join(dir, 'keep', 'nested.txt'), 'nested\n')
  // Named like a temp file abandoned by a dead writer: a sweep that followed a link would remove it.
  writeFileSync(join(dir, 'keep', 'x.mpk.999999-0-abcdef01.vlt-tmp'), 'not ours\n')
  execFileSync('mkfifo', [join(dir, 'pipe')])
}

/** Every entry under `dir`: type, and content for files, so any creation, change or deletion shows. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (sub: string): void => {
    for (const name of readdirSync(join(dir, sub)).sort()) {
      const path = join(sub, name)
      const info = lstatSync(join(dir, path))
      if (info.isSymbolicLink()) out[path] = `link ${readlinkSync(join(dir, path))}`
      else if (info.isDirectory()) {
        out[path] = 'dir'
        walk(path)
      } else if (info.isFile()) out[path] = `file ${(info.mode & 0o777).toString(8)} ${readFileSync(join(dir, path), 'utf8')}`
      else out[path] = 'other'
    }
  }
  walk('')
  return out
}

/** Commits `link` (relative to the repository) as a symlink to `target`, the way a hostile repository ships it. */
function commitLink(repo: GitFixture, link: string, target: string): void {
  mkdirSync(dirname(join(repo.dir, link)), { recursive: true })
  symlinkSync(target, join(repo.dir, link))
  repo.git('add', '-f', link)
  repo.git('commit', '-q', '-m', `plant ${link}`)
  assert.match(repo.git('ls-files', '-s', link), /^120000 /)
}

/** One line on stderr, exit 1, naming the offending path (relative to the repository) and saying why. */
function assertRefused(run: CliRun, offending: string, what = /symbolic link/): void {
  const why = `exit ${run.status}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`
  assert.equal(run.status, 1, why)
  const lines = run.stderr.trim().split('\n')
  assert.equal(lines.length, 1, why)
  assert.ok(lines[0]!.includes(offending), `should name ${offending}: ${why}`)
  assert.match(lines[0]!, what, why)
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
}

function assertNoLeak(text: string): void {
  assert.ok(!text.includes(SECRET) && !text.includes(CANARY_THREAD_TEXT) && !text.includes('TOP SECRET'), `leaked canary content: ${text}`)
}

/** Runs the CLI with a deadline: a read that follows a link to a FIFO or /dev/zero would hang. */
function vltBounded(cwd: string, args: string[]): CliRun {
  const child = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: cliEnv(), timeout: 30_000, maxBuffer: 1 << 26 })
  return { status: child.status, stdout: child.stdout, stderr: child.stderr }
}

describe('confinement: nothing under .vlt/ leads outside the repository', function () {
  this.timeout(120_000)
  let repo: GitFixture
  let canary: string
  let before: Record<string, string>
  beforeEach(() => {
    repo = createGitRepo({ files: { 'src/app.py': APP, 'README.md': '# project\n' } })
    repo.git('config', 'user.name', 'Alice Smith')
    canary = `${repo.dir}-canary`
    plantCanary(canary)
    before = snapshot(canary)
  })
  afterEach(() => {
    repo.cleanup()
    rmSync(canary, { recursive: true, force: true })
  })

  /** A case: whatever it asserts, the canary beside the repository must be untouched afterwards. */
  const it = (title: string, fn: () => void | Promise<void>): Mocha.Test =>
    globalThis.it(title, async () => {
      let failure: unknown
      try {
        await fn()
      } catch (error) {
        failure = error
      }
      const after = snapshot(canary)
      const touched = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((path) => before[path] !== after[path])
      if (failure) throw touched.length > 0 ? new Error(`${(failure as Error).message}\n(and the canary was touched: ${touched.join(', ')})`) : failure
      assert.deepEqual(touched, [], 'the canary beside the repository is untouched')
    })

  /** The symlink's target as a relative path from the link's folder, or absolute. */
  const targets = (link: string, inCanary: string): Array<[string, string]> => [
    ['relative', relative(dirname(join(repo.dir, link)), join(canary, inCanary))],
    ['absolute', join(canary, inCanary)],
  ]

  for (const kind of ['relative', 'absolute'] as const) {
    it(`.vlt itself linked out (${kind}): thread, coderag, gc, oracle and MCP refuse with one line`, async () => {
      commitLink(repo, '.vlt', Object.fromEntries(targets('.vlt', ''))[kind]!)
      assertRefused(vlt(repo.dir, ['thread', 'new', 'fresh']), '.vlt')
      assertRefused(vlt(repo.dir, ['thread', 'push', 't', 'appended']), '.vlt')
      for (const args of [['thread', 'read', 't'], ['thread', 'list'], ['thread', 'search', 'canary']]) {
        const run = vlt(repo.dir, args)
        assertRefused(run, '.vlt')
        assertNoLeak(run.stdout)
      }
      assertRefused(vlt(repo.dir, ['coderag', 'init']), '.vlt')
      assertRefused(vlt(repo.dir, ['coderag', 'sync']), '.vlt')
      assertRefused(vlt(repo.dir, ['gc']), '.vlt')
      assertRefused(vlt(repo.dir, ['oracle', 'where is real_function defined']), '.vlt')

      const mcp = await connect(repo.dir)
      try {
        for (const [tool, args] of [['thread_push', { thread: 't', text: 'from an agent' }], ['thread_read', { thread: 't' }], ['search_code', { query: 'real_function' }]] as const) {
          const answer = await mcp.call(tool, args)
          assert.equal(answer.isError, true, textOf(answer))
          assert.match(textOf(answer), /^\.vlt is a symbolic link/)
          assertNoLeak(textOf(answer))
        }
      } finally {
        await mcp.close()
      }
    })

    it(`.vlt/threads linked out (${kind}): thread writes and reads, the oracle's session log and MCP thread tools refuse`, async () => {
      commitLink(repo, '.vlt/threads', Object.fromEntries(targets('.vlt/threads', 'threads'))[kind]!)
      assertRefused(vlt(repo.dir, ['thread', 'new', 'fresh']), '.vlt/threads')
      assertRefused(vlt(repo.dir, ['thread', 'push', 't', 'appended']), '.vlt/threads')
      for (const args of [['thread', 'read', 't'], ['thread', 'list'], ['thread', 'search', 'canary']]) {
        const run = vlt(repo.dir, args)
        assertRefused(run, '.vlt/threads')
        assertNoLeak(run.stdout)
      }

      // The answer is still given; the session log (a thread write) is refused with one line.
      const asked = vlt(repo.dir, ['oracle', 'where is real_function defined'])
      assert.equal(asked.status, 0, asked.stderr)
      assert.match(asked.stdout, /real_function/)
      assertNoLeak(asked.stdout)
      assert.match(asked.stderr, /session log: .*\.vlt\/threads is a symbolic link/)

      const mcp = await connect(repo.dir)
      try {
        const pushed = await mcp.call('thread_push', { thread: 't', text: 'from an agent' })
        assert.equal(pushed.isError, true, textOf(pushed))
        assert.match(textOf(pushed), /\.vlt\/threads is a symbolic link/)
        const created = await mcp.call('thread_push', { thread: 'brand-new', text: 'from an agent' })
        assert.equal(created.isError, true, textOf(created))
        const read = await mcp.call('thread_read', { thread: 't' })
        assert.equal(read.isError, true, textOf(read))
        assertNoLeak(textOf(read))
      } finally {
        await mcp.close()
      }
    })
  }

  it('a thread file linked to a private key is never read, copied or appended to', async () => {
    commitLink(repo, '.vlt/threads/t.md', join(canary, 'id_rsa'))
    for (const args of [['thread', 'read', 't'], ['thread', 'push', 't', 'appended']]) {
      const run = vlt(repo.dir, args)
      assertRefused(run, '.vlt/threads/t.md')
      assertNoLeak(run.stdout)
    }
    // Listing and searching serve the sound threads and name the linked file in one warning (never read).
    assert.equal(vlt(repo.dir, ['thread', 'new', 'sound', '--title', 'Sound canary notes']).status, 0)
    for (const args of [['thread', 'list'], ['thread', 'search', 'canary']]) {
      const run = vlt(repo.dir, args)
      const why = `exit ${run.status}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`
      assert.equal(run.status, 0, why)
      const lines = run.stderr.trim().split('\n')
      assert.equal(lines.length, 1, why)
      assert.ok(lines[0]!.includes('.vlt/threads/t.md') && /symbolic link/.test(lines[0]!), why)
      assertNoLeak(run.stdout + run.stderr)
    }
    assert.match(vlt(repo.dir, ['thread', 'list']).stdout, /sound/)
    assert.equal(lstatSync(join(repo.dir, '.vlt', 'threads', 't.md')).isSymbolicLink(), true, 'the link is left for the user to remove')
    const mcp = await connect(repo.dir)
    try {
      const read = await mcp.call('thread_read', { thread: 't' })
      assert.equal(read.isError, true)
      assertNoLeak(textOf(read))
      const pushed = await mcp.call('thread_push', { thread: 't', text: 'from an agent' })
      assert.equal(pushed.isError, true)
      assertNoLeak(textOf(pushed))
    } finally {
      await mcp.close()
    }
  })

  it('a thread file or record linked to a FIFO or /dev/zero is refused at once (never hangs, never read)', () => {
    commitLink(repo, '.vlt/threads/t.md', join(canary, 'pipe'))
    commitLink(repo, '.vlt/threads/z.md', '/dev/zero')
    assertRefused(vltBounded(repo.dir, ['thread', 'read', 't']), '.vlt/threads/t.md')
    assertRefused(vltBounded(repo.dir, ['thread', 'read', 'z']), '.vlt/threads/z.md')
    commitLink(repo, '.vlt/state.mpk', join(canary, 'pipe'))
    assertRefused(vltBounded(repo.dir, ['coderag', 'sync']), '.vlt/state.mpk')
  })

  it('a blob records folder linked out: init writes no record there', () => {
    const blob = repo.git('rev-parse', 'HEAD:src/app.py')
    const folder = relative(repo.dir, dirname(vltPaths(join(repo.dir, '.vlt')).blobRecord(blob, EXTRACTOR_VERSION, 'python')))
    commitLink(repo, folder, canary)
    assertRefused(vlt(repo.dir, ['coderag', 'init']), folder)
  })

  for (const folder of ['trees', 'objects'] as const) {
    it(`gc deletes nothing through a linked .vlt/${folder}`, () => {
      commitLink(repo, `.vlt/${folder}`, join(canary, 'keep'))
      assertRefused(vlt(repo.dir, ['gc']), `.vlt/${folder}`)
    })
  }

  it('MCP contexts linked out: the server answers, and writes no context there', async () => {
    commitLink(repo, '.vlt/contexts', canary)
    const mcp = await connect(repo.dir)
    try {
      const found = await mcp.call('search_code', { query: 'real_function' })
      assert.notEqual(found.isError, true, textOf(found))
      const pushed = await mcp.call('thread_push', { thread: 'fine', text: 'threads are real here' })
      assert.notEqual(pushed.isError, true, textOf(pushed))
      await sleep(300)
      assert.match(mcp.stderr(), /\.vlt\/contexts is a symbolic link/)
    } finally {
      await mcp.close()
    }
  })

  it('the daemon run folder linked out: no socket or log there, one line says why', () => {
    commitLink(repo, '.vlt/run', canary)
    try {
      const asked = vlt(repo.dir, ['coderag', 'search', 'real_function'], { GIT_VLT_DAEMON: '1' })
      assert.equal(asked.status, 0, asked.stderr)
      assert.match(asked.stderr, /\.vlt\/run is a symbolic link/)
      assertRefused(vlt(repo.dir, ['daemon', 'start'], { GIT_VLT_DAEMON: '1' }), '.vlt/run')
    } finally {
      // The unfixed code starts a daemon through the link: stop it.
      vlt(repo.dir, ['daemon', 'stop'], { GIT_VLT_DAEMON: '1' })
    }
  })

  describe('git hooks', () => {
    let cli: string
    beforeEach(() => {
      cli = `${repo.dir}-fake-cli.mjs`
      writeFileSync(cli, `console.log('indexer says hi')\n`)
      mkdirSync(join(repo.dir, '.vlt'), { recursive: true })
    })
    afterEach(() => rmSync(cli, { force: true }))

    const commitWithHooks = async (): Promise<void> => {
      await installHooks(repo.dir, { launcher: { node: process.execPath, cli } })
      writeFileSync(join(repo.dir, 'a.txt'), `${Date.now()}\n`)
      repo.git('add', 'a.txt')
      const run = spawnSync('git', ['commit', '-q', '-m', 'with hooks'], { cwd: repo.dir, env: { ...process.env, ...FIXTURE_GIT_ENV }, encoding: 'utf8' })
      assert.deepEqual([run.status, run.stdout, run.stderr], [0, '', ''], 'the commit succeeds, quietly')
      // A launched indexer appends to its log in the background.
      await sleep(700)
    }

    for (const link of ['.vlt/queue', '.vlt/logs']) {
      for (const kind of ['relative', 'absolute'] as const) {
        it(`skip quietly when ${link} is a link (${kind})`, async () => {
          commitLink(repo, link, Object.fromEntries(targets(link, 'keep'))[kind]!)
          await commitWithHooks()
        })
      }
    }

    it('skip quietly when .vlt itself is a link', async () => {
      rmSync(join(repo.dir, '.vlt'), { recursive: true })
      commitLink(repo, '.vlt', `../${basename(canary)}`)
      await commitWithHooks()
    })

    it('never append to a log file that is a link', async () => {
      commitLink(repo, '.vlt/logs/indexer.log', join(canary, 'secret.txt'))
      await commitWithHooks()
    })
  })

  describe('records a repository commits under .vlt/', () => {
    it('are refused: init and queries say why in one line instead of serving them as extracted text', () => {
      // A forged record: extracted from other text, committed under this repository's blob key.
      const forger = createGitRepo({ files: { 'src/app.py': 'def forged_marker_function():\n    """FORGEDMARKER text posing as code."""\n    return 2\n' } })
      try {
        assert.equal(vlt(forger.dir, ['coderag', 'init']).status, 0)
        const forged = vltPaths(join(forger.dir, '.vlt')).blobRecord(forger.git('rev-parse', 'HEAD:src/app.py'), EXTRACTOR_VERSION, 'python')
        const target = vltPaths(join(repo.dir, '.vlt')).blobRecord(repo.git('rev-parse', 'HEAD:src/app.py'), EXTRACTOR_VERSION, 'python')
        mkdirSync(dirname(target), { recursive: true })
        copyFileSync(forged, target)
      } finally {
        forger.cleanup()
      }
      repo.git('add', '-f', '.vlt/objects')
      repo.git('commit', '-q', '-m', 'ship an index')
      const offending = relative(repo.dir, vltPaths(join(repo.dir, '.vlt')).objects)
      assertRefused(vlt(repo.dir, ['coderag', 'init']), offending, /commits/)
      const search = vlt(repo.dir, ['coderag', 'search', 'FORGEDMARKER'])
      assertRefused(search, offending, /commits/)
      assert.ok(!search.stdout.includes('forged_marker_function'))
    })

    it('threads (and the .gitignore git-vlt writes) are the committed part: indexed around, never as code', () => {
      repo.write({ '.vlt/threads/notes.md': canaryThread('committedthreadword'), '.vlt/threads/.gitattributes': '*.md merge=union\n' })
      assert.equal(vlt(repo.dir, ['coderag', 'init']).status, 0)
      repo.git('add', '-f', '.vlt/.gitignore', '.vlt/threads')
      repo.git('commit', '-q', '-m', 'share threads')
      const synced = vlt(repo.dir, ['coderag', 'sync'])
      assert.equal(synced.status, 0, synced.stderr)
      assert.match(vlt(repo.dir, ['coderag', 'search', 'committedthreadword']).stdout, /No results/)
      assert.match(vlt(repo.dir, ['thread', 'search', 'committedthreadword']).stdout, /notes/)
    })
  })
})
