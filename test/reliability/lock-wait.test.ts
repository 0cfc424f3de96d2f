/**
 * A sync that hangs or is stopped while it holds the index lock (`coderag sync & kill -STOP $!`)
 * must not block anything for long, on a real repository with the built CLI: every query (search,
 * def, refs, map, oracle, MCP tools, the query daemon) answers from the last complete index within
 * the bound, marked stale in one text line and in `--json` (`freshness.staleReason`), with the
 * answers of that index; status works; writers (sync, init, the hooks' queued sync) fail at once
 * naming the stopped holder (pid, command, since when) instead of hanging; and once the holder is
 * resumed, everything is fresh again. A holder that is alive and running is waited for at most
 * `[query] lock_wait_ms`.
 */
import { strict as assert } from 'node:assert'
import { execFileSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { isProcessAlive } from '../../src/core/store/liveness.js'
import { vlt, vltAsync, vltJson, vltSpawn } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { connect } from '../mcp/mcp-helpers.js'
import { spawnFixture, waitForLine } from '../store/fixtures.js'

/** Enough files that a sync re-extracting all of them runs long enough to be caught holding the lock. */
const MODULES = 600

function moduleText(i: number, version: number): string {
  return [
    `"""Module ${i}, version ${version}."""`,
    `from pkg${(i + 1) % 12} import mod${(i + 1) % MODULES}`,
    '',
    `def tally_${i}(values):`,
    `    return sum(values) + ${i * 10 + version}`,
    '',
    `class Ledger${i}:`,
    `    def settle(self, values):`,
    `        return tally_${i}(values) - mod${(i + 1) % MODULES}.tally_${(i + 1) % MODULES}(values)`,
    '',
  ].join('\n')
}

function repoFiles(version: number): Record<string, string> {
  const files: Record<string, string> = { 'README.md': '# Ledgers\n\nEach ledger settles its tallies.\n' }
  for (let i = 0; i < MODULES; i++) files[`pkg${i % 12}/mod${i}.py`] = moduleText(i, version)
  return files
}

/** The answer without its freshness: what must equal the last complete index's. */
function answer<T extends { freshness?: unknown; warnings?: unknown }>(result: T): Omit<T, 'freshness' | 'warnings'> {
  const { freshness: _freshness, warnings: _warnings, ...rest } = result
  return rest
}

const lockPath = (repo: GitFixture): string => join(repo.dir, '.vlt', 'locks', 'index.lock')

/** The pid the index lock names, if any. */
function lockHolderPid(repo: GitFixture): number | undefined {
  try {
    return (JSON.parse(readFileSync(lockPath(repo), 'utf8')) as { pid: number }).pid
  } catch {
    return undefined
  }
}

interface StoppedSync {
  pid: number
  child: ChildProcess
  /** SIGCONT, then waits for the sync to finish; returns its exit code. */
  resume(): Promise<number | null>
}

/**
 * Commits a change to every module, starts `coderag sync` and stops it (SIGSTOP) once it is seen,
 * from outside, holding the index lock.
 */
async function stopSyncHoldingTheLock(repo: GitFixture, version: number): Promise<StoppedSync> {
  repo.write(repoFiles(version))
  repo.commit(`version ${version}`)
  const child = vltSpawn(repo.dir, ['coderag', 'sync'])
  const exited = once(child, 'exit')
  const deadline = Date.now() + 60_000
  while (lockHolderPid(repo) !== child.pid) {
    assert.ok(child.exitCode === null, 'the sync finished before it was seen holding the lock')
    assert.ok(Date.now() < deadline, 'the sync never took the lock')
    await sleep(5)
  }
  process.kill(child.pid!, 'SIGSTOP')
  return {
    pid: child.pid!,
    child,
    async resume() {
      process.kill(child.pid!, 'SIGCONT')
      const [code] = await exited
      return code as number | null
    },
  }
}

/** stderr's lines that are not progress drawing. */
function lines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '')
}

describe('a stopped or hung index lock holder (built CLI, real repository)', function () {
  this.timeout(300_000)
  let repo: GitFixture
  let stopped: StoppedSync | undefined
  const complete: Record<string, any> = {}
  let oldTree: string

  before(() => {
    repo = createGitRepo({ files: repoFiles(0) })
    vltJson(repo.dir, ['coderag', 'init'])
    oldTree = repo.git('rev-parse', 'HEAD^{tree}')
    complete.search = vltJson(repo.dir, ['coderag', 'search', 'settle tallies', '--limit', '5'])
    complete.def = vltJson(repo.dir, ['coderag', 'def', 'Ledger7'])
    complete.refs = vltJson(repo.dir, ['coderag', 'refs', 'tally_8'])
    complete.map = vltJson(repo.dir, ['coderag', 'map', '--tokens', '400'])
  })
  afterEach(async () => {
    if (stopped && isProcessAlive(stopped.pid)) {
      stopped.child.kill('SIGKILL')
      process.kill(stopped.pid, 'SIGCONT')
      await once(stopped.child, 'exit').catch(() => {})
    }
    stopped = undefined
  })
  after(() => repo?.cleanup())

  it('queries answer at once from the last complete index, marked stale in one line and in --json; writers name the holder; resuming it makes all fresh', async () => {
    stopped = await stopSyncHoldingTheLock(repo, 1)
    const holder = new RegExp(`pid ${stopped.pid} \\(run\\.js coderag sync\\) since \\d{4}-\\d\\d-\\d\\dT`)

    // Text: the answer, and one line saying why it may be stale.
    let started = Date.now()
    const search = vlt(repo.dir, ['coderag', 'search', 'settle tallies', '--limit', '5'])
    assert.ok(Date.now() - started < 15_000, `search took ${Date.now() - started} ms`)
    assert.equal(search.status, 0, search.stderr)
    assert.match(search.stdout, /pkg\d+\/mod\d+\.py:\d+-\d+/)
    assert.deepEqual(lines(search.stderr).length, 1, search.stderr)
    assert.match(search.stderr, /^warning: another git-vlt run holds the index lock but is stopped \(SIGSTOP or Ctrl-Z\): pid/)
    assert.match(search.stderr, holder)
    assert.match(search.stderr, new RegExp(`answering from the last complete index \\(tree ${oldTree.slice(0, 12)}\\), which may be stale`))

    // JSON: the same answers as the last complete index, marked stale with the reason.
    const stale = { treeHash: oldTree, stale: true, staleReason: 'locked' }
    const json = {
      search: vltJson(repo.dir, ['coderag', 'search', 'settle tallies', '--limit', '5']),
      def: vltJson(repo.dir, ['coderag', 'def', 'Ledger7']),
      refs: vltJson(repo.dir, ['coderag', 'refs', 'tally_8']),
      map: vltJson(repo.dir, ['coderag', 'map', '--tokens', '400']),
    }
    assert.deepEqual(json.search.freshness, stale)
    assert.equal(json.search.warnings.length, 1)
    assert.match(json.search.warnings[0], holder)
    for (const name of ['def', 'refs', 'map'] as const) assert.deepEqual(json[name].freshness, { ...stale, overlayFiles: 0 }, name)
    for (const name of ['search', 'def', 'refs', 'map'] as const) assert.deepEqual(answer(json[name]), answer(complete[name]), name)

    const oracle = vlt(repo.dir, ['oracle', 'where is Ledger7 defined', '--no-log'])
    assert.equal(oracle.status, 0, oracle.stderr)
    assert.match(oracle.stdout, /pkg7\/mod7\.py/)
    assert.equal(lines(oracle.stderr).filter((line) => /stale/.test(line)).length, 1, oracle.stderr)

    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.treeHash, oldTree)
    assert.equal(status.stale, true)

    // Writers: at once, one line naming the holder and what to do.
    for (const command of [['coderag', 'sync'], ['coderag', 'init']]) {
      started = Date.now()
      const run = vlt(repo.dir, command)
      assert.ok(Date.now() - started < 15_000, `${command.join(' ')} took ${Date.now() - started} ms`)
      assert.equal(run.status, 1, run.stderr)
      assert.equal(lines(run.stderr).length, 1, run.stderr)
      assert.match(run.stderr, holder)
      assert.match(run.stderr, new RegExp(`stopped .*kill -CONT ${stopped.pid}`))
    }

    assert.equal(await stopped.resume(), 0)
    const fresh = vltJson(repo.dir, ['coderag', 'def', 'Ledger7'])
    assert.deepEqual(fresh.freshness, { treeHash: repo.git('rev-parse', 'HEAD^{tree}'), stale: false, overlayFiles: 0 })
    assert.equal(existsSync(lockPath(repo)), false)
  })

  it('the query daemon and the MCP server answer stale rather than wait', async () => {
    const env = { GIT_VLT_DAEMON: '1' }
    vltJson(repo.dir, ['coderag', 'def', 'Ledger7'], env)
    const deadline = Date.now() + 30_000
    while (vltJson(repo.dir, ['daemon', 'status'], env).daemon === null) {
      assert.ok(Date.now() < deadline, 'the daemon did not start')
      await sleep(100)
    }
    const mcp = await connect(repo.dir)
    try {
      await mcp.call('find_definition', { symbol: 'Ledger7' })
      stopped = await stopSyncHoldingTheLock(repo, 2)
      const lastTree = vltJson(repo.dir, ['coderag', 'status']).treeHash

      const served = await vltAsync(repo.dir, ['coderag', 'def', 'Ledger7', '--json'], env)
      assert.equal(served.status, 0, served.stderr)
      assert.deepEqual(JSON.parse(served.stdout).freshness, { treeHash: lastTree, stale: true, staleReason: 'locked', overlayFiles: 0 })
      assert.equal(vltJson(repo.dir, ['daemon', 'status'], env).daemon.served >= 1, true, 'the daemon answered it')

      const tool = await mcp.call('find_definition', { symbol: 'Ledger7' })
      assert.equal(tool.isError, undefined)
      assert.deepEqual(tool.structuredContent.freshness, { treeHash: lastTree, stale: true, staleReason: 'locked' })
      assert.equal(tool.structuredContent.definitions[0].path, 'pkg7/mod7.py')
      assert.equal(await stopped.resume(), 0)
    } finally {
      await mcp.close()
      vlt(repo.dir, ['daemon', 'stop'], env)
    }
  })

  it('the hooks\' queued sync fails at once behind a stopped holder and records why (no indexer left waiting)', async () => {
    stopped = await stopSyncHoldingTheLock(repo, 3)
    writeFileSync(join(repo.dir, 'vlt.toml'), '[coderag.delta]\nfile_threshold = 1\n')
    enqueue(repo, 'HEAD~1', 'HEAD')
    const started = Date.now()
    const queued = await vltAsync(repo.dir, ['coderag', 'sync', '--queued'])
    assert.ok(Date.now() - started < 15_000, `sync --queued took ${Date.now() - started} ms`)
    assert.equal(queued.status, 1, queued.stderr)
    const indexer = vltJson(repo.dir, ['coderag', 'status']).indexer
    assert.equal(indexer.running, false)
    assert.equal(indexer.lastResult, 'failed')
    assert.match(indexer.lastError, new RegExp(`pid ${stopped.pid} .*stopped`))
    assert.equal(await stopped.resume(), 0)
  })

  it('a running holder is waited for at most [query] lock_wait_ms, then the query answers stale', async () => {
    writeFileSync(join(repo.dir, 'vlt.toml'), '[query]\nlock_wait_ms = 1500\n')
    const holder = spawnFixture('lock-holder', [join(repo.dir, '.vlt'), '60000'])
    try {
      const pid = Number((await waitForLine(holder, /^acquired \d+$/)).split(' ')[1])
      const started = Date.now()
      const run = await vltAsync(repo.dir, ['coderag', 'def', 'Ledger7', '--json'])
      const took = Date.now() - started
      assert.equal(run.status, 0, run.stderr)
      assert.ok(took >= 1500 && took < 15_000, `took ${took} ms`)
      assert.equal(JSON.parse(run.stdout).freshness.staleReason, 'locked')
      const text = await vltAsync(repo.dir, ['coderag', 'def', 'Ledger7'])
      assert.equal(lines(text.stderr).length, 1, text.stderr)
      assert.match(text.stderr, new RegExp(`^warning: another git-vlt run is updating the index: pid ${pid} \\(lock-holder\\.ts`))
    } finally {
      holder.kill('SIGKILL')
      await once(holder, 'exit')
    }
  })
})

/** A batch as the post-commit hook queues it (see test/index/queued.test.ts). */
function enqueue(repo: GitFixture, from: string, to: string): void {
  const [a, b] = [repo.git('rev-parse', from), repo.git('rev-parse', to)]
  const diff = execFileSync('git', ['diff-tree', '-r', '-z', '--raw', '--numstat', a, b], { cwd: repo.dir })
  mkdirSync(join(repo.dir, '.vlt', 'queue'), { recursive: true })
  writeFileSync(join(repo.dir, '.vlt', 'queue', `${b}-post-commit-1.delta`), Buffer.concat([Buffer.from(`vlt-delta 1 post-commit ${a} ${b}\n`), diff, Buffer.from('end\n')]))
}
