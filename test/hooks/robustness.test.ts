import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { installHooks } from '../../src/core/hooks/index.js'
import { readQueue, writeIndexerState } from '../../src/core/queue/index.js'
import { ensureVltDir } from '../../src/core/store/index.js'
import { createGitRepo, FIXTURE_GIT_ENV, type GitFixture } from '../helpers/git-fixture.js'

const gitEnv = { ...process.env, ...FIXTURE_GIT_ENV }

/** A commit as a user makes one, with stdout and stderr kept to check that hooks say nothing. */
function commit(dir: string, file: string, content: string) {
  writeFileSync(join(dir, file), content)
  spawnSync('git', ['add', file], { cwd: dir, env: gitEnv })
  return spawnSync('git', ['commit', '-q', '-m', `change ${file}`], { cwd: dir, env: gitEnv, encoding: 'utf8' })
}

function commitAsync(dir: string, file: string, content: string): Promise<number | null> {
  writeFileSync(join(dir, file), content)
  return new Promise((resolve) => {
    spawn('sh', ['-c', `git add "$1" && git commit -q -m "change $1"`, 'sh', file], { cwd: dir, env: gitEnv, stdio: 'ignore' }).on('close', resolve)
  })
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function waitFor(path: string, ms = 10_000): Promise<string> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8')
      if (text.endsWith('\n')) return text
    }
    await sleep(20)
  }
  throw new Error(`${path} did not appear within ${ms} ms`)
}

describe('hooks never get in the way of git', () => {
  let repo: GitFixture
  let vltDir: string
  beforeEach(async () => {
    repo = createGitRepo({ files: { 'a.txt': 'a\n' } })
    vltDir = join(repo.dir, '.vlt')
    await ensureVltDir(vltDir)
  })
  afterEach(() => repo.cleanup())

  it('still enqueues, silently, when node and git-vlt are gone', async () => {
    await installHooks(repo.dir, { launcher: { node: '/nonexistent/node', cli: '/nonexistent/run.js' } })
    const run = commit(repo.dir, 'a.txt', 'b\n')
    assert.deepEqual([run.status, run.stdout, run.stderr], [0, '', ''])
    assert.deepEqual((await readQueue(vltDir)).records.map((record) => record.path), ['a.txt'])
    // With no launcher the hook falls back to a git-vlt on PATH (the README's set-up links one);
    // only where there is none must it have started nothing.
    const onPath = spawnSync('sh', ['-c', 'command -v git-vlt'], { env: gitEnv }).status === 0
    if (!onPath) assert.equal(existsSync(join(vltDir, 'logs', 'indexer.log')), false)
  })

  for (const [name, corrupt] of [
    ['.vlt is a file', (dir: string) => { rmSync(dir, { recursive: true }); writeFileSync(dir, 'not a directory') }],
    ['.vlt/queue is a file', (dir: string) => writeFileSync(join(dir, 'queue'), 'not a directory')],
    ['.vlt/queue is not writable', (dir: string) => { mkdirSync(join(dir, 'queue'), { mode: 0o500 }) }],
    ['the index is locked', (dir: string) => { mkdirSync(join(dir, 'locks')); writeFileSync(join(dir, 'locks', 'index.lock'), '{"pid":1}') }],
    ['indexer-state.json is garbage', (dir: string) => { mkdirSync(join(dir, 'queue')); writeFileSync(join(dir, 'queue', 'indexer-state.json'), '{"pid":\0\0\n') }],
  ] as const) {
    it(`lets the commit succeed with no output when ${name}`, async () => {
      await installHooks(repo.dir, { launcher: { node: '/nonexistent/node', cli: '/nonexistent/run.js' } })
      corrupt(vltDir)
      const run = commit(repo.dir, 'a.txt', 'b\n')
      assert.deepEqual([run.status, run.stdout, run.stderr], [0, '', ''])
      assert.equal(repo.git('log', '-1', '--format=%s'), 'change a.txt')
    })
  }

  it('keeps a log past 1 MiB as indexer.log.1 and starts a new one before a launch', async function () {
    this.timeout(30_000)
    const cli = join(repo.dir, '..', `${repo.dir.split('/').pop()}-log-cli.mjs`)
    writeFileSync(cli, `console.log('indexer says hi')\n`)
    const log = join(vltDir, 'logs', 'indexer.log')
    try {
      await installHooks(repo.dir, { launcher: { node: process.execPath, cli } })
      mkdirSync(join(vltDir, 'logs'), { recursive: true })
      writeFileSync(log, 'x'.repeat(1 << 20))
      assert.equal(commit(repo.dir, 'a.txt', 'b\n').status, 0)
      // Exactly 1 MiB is kept: the run appends to it.
      assert.equal(await waitFor(log), `${'x'.repeat(1 << 20)}indexer says hi\n`)
      assert.equal(existsSync(`${log}.1`), false)

      // Until it has exited, the indexer just started stands in the way of a second launch.
      const launched = Number(readFileSync(join(vltDir, 'queue', 'indexer.pid'), 'utf8'))
      while (isAlive(launched)) await sleep(20)
      assert.equal(commit(repo.dir, 'a.txt', 'c\n').status, 0)
      assert.equal(await waitFor(log), 'indexer says hi\n')
      assert.equal(readFileSync(`${log}.1`, 'utf8'), `${'x'.repeat(1 << 20)}indexer says hi\n`)
    } finally {
      rmSync(cli, { force: true })
    }
  })

  it('starts no second indexer while the one it just started has not recorded itself yet', async function () {
    this.timeout(30_000)
    // A stand-in for an indexer in its first moments: alive, counted, but not in indexer-state.json yet.
    const cli = join(repo.dir, '..', `${repo.dir.split('/').pop()}-slow-cli.mjs`)
    writeFileSync(cli, `import { appendFileSync } from 'node:fs'\nappendFileSync('.vlt/launches', process.pid + '\\n')\nsetTimeout(() => {}, 3000)\n`)
    const launches = (): string[] => (existsSync(join(vltDir, 'launches')) ? readFileSync(join(vltDir, 'launches'), 'utf8').split('\n').filter(Boolean) : [])
    try {
      await installHooks(repo.dir, { launcher: { node: process.execPath, cli } })
      assert.equal(commit(repo.dir, 'a.txt', 'b\n').status, 0)
      assert.equal(commit(repo.dir, 'a.txt', 'c\n').status, 0)
      await waitFor(join(vltDir, 'launches'))
      await sleep(500)
      assert.equal(launches().length, 1)
      assert.equal((await readQueue(vltDir)).batches.length, 2)

      // Once it has recorded itself and finished, the state file decides again: the next commit starts one.
      await writeIndexerState(vltDir, { pid: Number(launches()[0]), startedAt: new Date().toISOString(), finishedAt: new Date().toISOString(), lastResult: 'ok', lastError: null })
      assert.equal(commit(repo.dir, 'a.txt', 'd\n').status, 0)
      const deadline = Date.now() + 10_000
      while (launches().length < 2 && Date.now() < deadline) await sleep(20)
      assert.equal(launches().length, 2)
    } finally {
      rmSync(cli, { force: true })
    }
  })

  it('starts the background indexer detached, with its output in .vlt/logs/indexer.log, and only if none is alive', async () => {
    // A stand-in CLI that reports how it was started, then stays alive a moment like a real indexer.
    const cli = join(repo.dir, '..', `${repo.dir.split('/').pop()}-fake-cli.mjs`)
    writeFileSync(cli, `import { writeFileSync } from 'node:fs'\nconsole.log('indexer says hi')\nwriteFileSync('.vlt/launched', JSON.stringify({ args: process.argv.slice(2), cwd: process.cwd(), index: process.env.GIT_INDEX_FILE ?? null }) + '\\n')\n`)
    try {
      await installHooks(repo.dir, { launcher: { node: process.execPath, cli } })
      const started = Date.now()
      const run = commit(repo.dir, 'a.txt', 'b\n')
      assert.deepEqual([run.status, run.stdout, run.stderr], [0, '', ''])
      assert.ok(Date.now() - started < 2000)
      const launched = JSON.parse(await waitFor(join(vltDir, 'launched')))
      assert.deepEqual(launched, { args: ['coderag', 'sync', '--queued'], cwd: repo.dir, index: null })
      assert.equal(await waitFor(join(vltDir, 'logs', 'indexer.log')), 'indexer says hi\n')

      // An indexer that is alive (this test process stands in for it) will see the new batch itself.
      rmSync(join(vltDir, 'launched'))
      await writeIndexerState(vltDir, { pid: process.pid, startedAt: new Date().toISOString(), finishedAt: null, lastResult: null, lastError: null })
      assert.equal(commit(repo.dir, 'a.txt', 'c\n').status, 0)
      await sleep(500)
      assert.equal(existsSync(join(vltDir, 'launched')), false)
      assert.equal((await readQueue(vltDir)).batches.length, 2)
    } finally {
      rmSync(cli, { force: true })
    }
  })

  it('loses no batch when commits run concurrently in two worktrees and hooks run in parallel on one queue', async () => {
    await installHooks(repo.dir, { launcher: null })
    const other = `${repo.dir}-wt`
    repo.git('worktree', 'add', '-q', '-b', 'wt', other)
    try {
      await ensureVltDir(join(other, '.vlt'))
      const rounds = 12
      for (let i = 0; i < rounds; i++) {
        const statuses = await Promise.all([commitAsync(repo.dir, `main-${i}.txt`, `${i}\n`), commitAsync(other, `wt-${i}.txt`, `${i}\n`)])
        assert.deepEqual(statuses, [0, 0])
      }
      const paths = async (dir: string) => (await readQueue(join(dir, '.vlt'))).records.map((record) => record.path).sort()
      const expected = (prefix: string) => Array.from({ length: rounds }, (_, i) => `${prefix}-${i}.txt`).sort()
      assert.deepEqual(await paths(repo.dir), expected('main'))
      assert.deepEqual(await paths(other), expected('wt'))

      // The same hook fired 16 times at once into one queue (as scripts driving git in parallel would).
      const before = (await readQueue(vltDir)).batches.length
      const hook = join(repo.dir, '.git', 'hooks', 'post-commit')
      const runs = await Promise.all(
        Array.from({ length: 16 }, () => new Promise<number | null>((resolve) => spawn('sh', [hook], { cwd: repo.dir, env: gitEnv, stdio: 'ignore' }).on('close', resolve))),
      )
      assert.deepEqual(new Set(runs), new Set([0]))
      const queue = await readQueue(vltDir)
      assert.equal(queue.batches.length, before + 16)
      assert.ok(queue.batches.every((batch) => !batch.torn && batch.records.length === 1))
    } finally {
      repo.git('worktree', 'remove', '--force', other)
    }
  })
})
