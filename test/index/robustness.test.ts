import { strict as assert } from 'node:assert'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { crc32 } from 'node:zlib'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { GRAPH_VERSION } from '../../src/core/graph/index.js'
import { EXTRACTOR_VERSION } from '../../src/core/parse/version.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { vlt, vltJson, vltSpawn } from '../helpers/cli.js'

/** Enough real work that a kill lands mid-run: a few thousand small Python modules. */
function largeRepo(files: number): GitFixture {
  const content: Record<string, string> = {}
  for (let i = 0; i < files; i++) {
    content[`pkg${i % 20}/mod${i}.py`] = [
      `"""Module ${i}."""`,
      `from pkg${(i + 1) % 20} import mod${i + 1}`,
      '',
      `class Thing${i}:`,
      `    def run(self, value):`,
      `        return mod${i + 1}.helper(value) + ${i}`,
      '',
      `def helper(value):`,
      `    return Thing${i}().run(value)`,
      '',
    ].join('\n')
  }
  return createGitRepo({ files: content })
}

describe('index robustness', function () {
  this.timeout(180_000)
  let repo: GitFixture
  afterEach(() => repo?.cleanup())

  it('a SIGKILLed init leaves no half-built index behind, and the next run completes, keeping the finished packs', async () => {
    repo = largeRepo(3000)
    const child = vltSpawn(repo.dir, ['coderag', 'init', '--json'])
    const exited = new Promise((resolve) => child.on('exit', resolve))
    const packs = join(repo.dir, '.vlt', 'objects', String(EXTRACTOR_VERSION), 'packs')
    const packIndexes = (): number => (existsSync(packs) ? readdirSync(packs).filter((name) => name.endsWith('.idx')).length : 0)
    const deadline = Date.now() + 60_000
    while (packIndexes() === 0 && Date.now() < deadline) await sleep(20)
    assert.ok(packIndexes() > 0, 'init finished a pack')
    child.kill('SIGKILL')
    await exited

    const tree = repo.git('rev-parse', 'HEAD^{tree}')
    assert.equal(existsSync(join(repo.dir, '.vlt', 'trees', tree, 'manifest.mpk')), false, 'killed before the manifest')
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.indexed, false)

    // The killed run's lock is stale (its pid is dead): the next run must not wait for it.
    const started = Date.now()
    const init = vltJson(repo.dir, ['coderag', 'init'])
    assert.equal(init.files, 3000)
    assert.ok(init.extracted <= 2000, `the killed run's finished pack (1,000 records) is reused: ${init.extracted} extracted`)
    assert.ok(Date.now() - started < 60_000)
    const after = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(after.indexed, true)
    assert.equal(after.stale, false)
    assert.equal(after.files, 3000)
  })

  it('an init ended by SIGTERM (or Ctrl-C) releases its lock, and the next run clears the temp files it left', async () => {
    repo = largeRepo(3000)
    const vltDir = join(repo.dir, '.vlt')
    const temps = (): string[] => (existsSync(vltDir) ? (readdirSync(vltDir, { recursive: true }) as string[]).filter((name) => name.endsWith('.vlt-tmp')) : [])
    const packs = join(vltDir, 'objects', String(EXTRACTOR_VERSION), 'packs')
    const packTemp = (): boolean => existsSync(packs) && readdirSync(packs).some((name) => name.endsWith('.vlt-tmp'))
    const child = vltSpawn(repo.dir, ['coderag', 'init'])
    const exited = new Promise((resolve) => child.on('exit', resolve))
    // A pack is written through a temp file for the ~1,000 records it holds: end the run while the
    // first one is. The run is stopped while that is checked, so the temp cannot be renamed between
    // the check and the signal (a short-lived temp seen and gone by then made this test flaky).
    const deadline = Date.now() + 60_000
    for (;;) {
      assert.ok(Date.now() < deadline, 'init wrote a pack through a temp file')
      if (packTemp()) {
        child.kill('SIGSTOP')
        if (packTemp()) break
        child.kill('SIGCONT')
      }
      await sleep(5)
    }
    child.kill('SIGTERM')
    child.kill('SIGCONT')
    await exited
    const left = temps()
    assert.ok(left.length > 0, 'the run ended with no temp file in flight')
    assert.equal(existsSync(join(vltDir, 'locks', 'index.lock')), false, 'the lock is released on the way out')

    const sync = vlt(repo.dir, ['coderag', 'sync', '--json'])
    assert.equal(sync.status, 0, sync.stderr)
    assert.deepEqual(temps(), [], `left by the interrupted run: ${left.join(', ')}`)
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).files, 3000)
  })

  it('a stale lock left by a dead process does not block', () => {
    repo = createGitRepo({ files: { 'a.py': 'def a():\n    pass\n' } })
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)'])
    assert.ok(dead.pid)
    const locks = join(repo.dir, '.vlt', 'locks')
    mkdirSync(locks, { recursive: true })
    writeFileSync(
      join(locks, 'index.lock'),
      JSON.stringify({ pid: dead.pid, hostname: hostname(), startedAt: new Date(Date.now() - 60_000).toISOString(), command: 'git-vlt coderag init', token: 'dead' }),
    )
    const run = vlt(repo.dir, ['coderag', 'init', '--json'])
    assert.equal(run.status, 0, run.stderr)
    assert.equal(JSON.parse(run.stdout).files, 1)
    assert.equal(existsSync(join(locks, 'index.lock')), false, 'the lock is released after the run')
  })

  it('init rebuilds an aggregate an older build stored in another format, reporting it in one line', () => {
    repo = createGitRepo({ files: { 'a.py': 'def a():\n    return b()\n', 'b.py': 'def b():\n    return 1\n' } })
    assert.equal(vlt(repo.dir, ['coderag', 'init']).status, 0)
    const graph = join(repo.dir, '.vlt', 'trees', repo.git('rev-parse', 'HEAD^{tree}'), 'graph.mpk')
    // The record as the previous format version wrote it: its header's version one lower, its checksum whole.
    const bytes = readFileSync(graph)
    const versionAt = 5 + bytes[4]!
    bytes.writeUInt32LE(GRAPH_VERSION - 1, versionAt)
    bytes.writeUInt32LE(crc32(bytes.subarray(0, bytes.length - 4)), bytes.length - 4)
    writeFileSync(graph, bytes)

    const run = vlt(repo.dir, ['coderag', 'init', '--json'])
    assert.equal(run.status, 0, run.stderr)
    const { edges, warnings } = JSON.parse(run.stdout) as { edges: number; warnings: string[] }
    assert.equal(edges, 1)
    assert.equal(warnings.length, 1, run.stdout)
    assert.match(warnings[0]!, /graph\.mpk: unknown version: 'graph' format version \d+ is older than .*rebuilt the index of tree/)
    const verify = vlt(repo.dir, ['coderag', 'verify'])
    assert.equal(verify.status, 0, verify.stderr)
    assert.equal(verify.stderr, '')
  })

  it('concurrent runs serialise on the lock and both succeed', async () => {
    repo = largeRepo(400)
    const runs = [vltSpawn(repo.dir, ['coderag', 'init', '--json']), vltSpawn(repo.dir, ['coderag', 'sync', '--json'])]
    const results = await Promise.all(
      runs.map(
        (child) =>
          new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
            let stdout = ''
            let stderr = ''
            child.stdout!.on('data', (chunk) => (stdout += chunk))
            child.stderr!.on('data', (chunk) => (stderr += chunk))
            child.on('exit', (code) => resolve({ code, stdout, stderr }))
          }),
      ),
    )
    for (const result of results) assert.equal(result.code, 0, result.stderr)
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).files, 400)
  })
})
