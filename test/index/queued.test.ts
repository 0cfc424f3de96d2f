import { strict as assert } from 'node:assert'
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { runQueuedSync } from '../../src/core/index/index.js'
import { readIndexerState, readQueue } from '../../src/core/queue/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { vlt, vltJson } from '../helpers/cli.js'

const warn = (): void => {}

describe('queued changes: hooks → queue → background sync', function () {
  this.timeout(120_000)
  let repo: GitFixture
  afterEach(() => repo?.cleanup())

  it('waits for the commit policy, then syncs once and drains what it covered', async () => {
    repo = createGitRepo({ files: { 'vlt.toml': '[coderag.delta]\nfile_threshold = 3\ntimeout_seconds = 60\n', 'a.py': 'def a():\n    pass\n' } })
    vltJson(repo.dir, ['coderag', 'init'])
    repo.write({ 'b.py': 'def b():\n    pass\n' })
    repo.commit('b')
    enqueue(repo, 'HEAD~1', 'HEAD')

    let clock = Date.now()
    const waits: number[] = []
    const result = await runQueuedSync(repo.dir, {
      warn,
      now: () => clock,
      wait: async (ms) => {
        waits.push(ms)
        clock += ms
      },
    })
    // One file is below file_threshold = 3: it waited out the 60 s timeout in polls, then synced once.
    assert.equal(waits.reduce((sum, ms) => sum + ms, 0) >= 60_000 - 1_000, true, String(waits))
    assert.ok(waits.every((ms) => ms <= 2_000))
    assert.equal(result.syncs, 1)
    assert.equal(result.drained, 1)
    assert.deepEqual(result.last!.extracted, ['b.py'])
    assert.equal((await readQueue(join(repo.dir, '.vlt'))).batches.length, 0)
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.treeHash, repo.git('rev-parse', 'HEAD^{tree}'))
    assert.equal(status.queue.batches, 0)
    assert.equal(status.indexer.lastResult, 'ok')
    assert.equal(status.indexer.running, false)
  })

  it('a commit with the hooks installed updates the index in the background', async () => {
    repo = createGitRepo({ files: { 'vlt.toml': '[coderag.delta]\nfile_threshold = 1\n', 'a.go': 'package a\n\nfunc A() {}\n' } })
    vltJson(repo.dir, ['coderag', 'init'])
    assert.equal(vlt(repo.dir, ['hooks', 'install']).status, 0)
    repo.write({ 'b.go': 'package a\n\nfunc B() int { return 1 }\n' })
    repo.commit('add b')
    await waitForIndexer(repo.dir)
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.treeHash, repo.git('rev-parse', 'HEAD^{tree}'), JSON.stringify(status.indexer))
    assert.equal(status.stale, false)
    assert.equal(status.files, 3)
    assert.equal(status.queue.batches, 0)
    assert.equal(status.indexer.lastResult, 'ok')
  })

  it('an explicit sync covers and drains the queue', async () => {
    repo = createGitRepo({ files: { 'a.py': 'x = 1\n' } })
    vltJson(repo.dir, ['coderag', 'init'])
    assert.equal(vlt(repo.dir, ['hooks', 'install']).status, 0)
    repo.write({ 'vlt.toml': '[coderag.delta]\nfile_threshold = 100\ntimeout_seconds = 3600\n' })
    repo.commit('policy')
    repo.write({ 'b.py': 'y = 2\n' })
    repo.commit('b')
    // The hooks queued both commits; the indexer they started waits for the policy (an hour).
    const waiting = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(waiting.queue.batches, 2, JSON.stringify(waiting.queue))
    assert.equal(waiting.queue.due, false)
    const sync = vltJson(repo.dir, ['coderag', 'sync', '--force'])
    assert.equal(sync.queueDrained, 2)
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).queue.batches, 0)
    // With nothing left to wait for, the background indexer exits on its next look at the queue.
    await waitForIndexer(repo.dir)
  })
})

/** A queue batch exactly as the post-commit hook writes it (see templates/hooks/vlt-hook.sh). */
function enqueue(repo: GitFixture, from: string, to: string): void {
  const [a, b] = [repo.git('rev-parse', from), repo.git('rev-parse', to)]
  const diff = execFileSync('git', ['diff-tree', '-r', '-z', '--raw', '--numstat', a, b], { cwd: repo.dir })
  mkdirSync(join(repo.dir, '.vlt', 'queue'), { recursive: true })
  writeFileSync(join(repo.dir, '.vlt', 'queue', `${b}-post-commit-1.delta`), Buffer.concat([Buffer.from(`vlt-delta 1 post-commit ${a} ${b}\n`), diff, Buffer.from('end\n')]))
}

/** The hook starts the indexer detached; wait until no indexer is alive. */
async function waitForIndexer(dir: string): Promise<void> {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    // Every caller's hooks started an indexer; on a loaded machine it may not have written its state yet.
    const state = await readIndexerState(join(dir, '.vlt'))
    if (state && state.finishedAt !== null) return
    await sleep(100)
  }
  throw new Error('background indexer did not finish')
}
