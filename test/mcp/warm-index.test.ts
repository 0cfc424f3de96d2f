import { strict as assert } from 'node:assert'
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { WarmIndex } from '../../src/core/mcp/warm-index.js'
import { openQueryContext } from '../../src/core/query/context.js'
import { acquireLock } from '../../src/core/store/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('warm index', function () {
  this.timeout(30_000)
  let repo: GitFixture
  beforeEach(async () => {
    // A query waits for a held index lock up to lock_wait_ms: long enough for the test below.
    repo = createGitRepo({ files: { 'a.py': 'def alpha():\n    return 1\n', 'vlt.toml': '[query]\nlock_wait_ms = 30000\n' } })
    await openQueryContext(repo.dir, { warn: () => {} })
  })
  afterEach(() => repo.cleanup())

  it('answers a caller with a refresh that began after it arrived, not with one already under way', async () => {
    const warnings: string[] = []
    const warm = await WarmIndex.open(repo.dir, { warn: (message) => warnings.push(message) })
    // Hold the index lock so that the warm-up reads HEAD, then waits (silently: a query's wait is bounded, not announced).
    const held = await acquireLock(join(repo.dir, '.vlt'), { waitMs: 0 })
    try {
      const warmUp = warm.get()
      await sleep(1_500)
      assert.deepEqual(warnings, [], 'the warm-up is still waiting for the lock')
      repo.write({ 'b.py': 'def beta():\n    return alpha()\n' })
      repo.commit('beta')
      const asked = warm.get()
      held.release()
      assert.notEqual((await warmUp).freshness.treeHash, repo.git('rev-parse', 'HEAD^{tree}'), 'the warm-up read HEAD before the commit')
      const answer = await asked
      assert.equal(answer.freshness.treeHash, repo.git('rev-parse', 'HEAD^{tree}'))
      assert.ok(answer.artifact('b.py'), 'the committed file is in the answer')
    } finally {
      held.release()
      warm.close()
    }
  })

  it('never makes a query wait for the periodic look at a watched tree', async () => {
    // Files older than git's index are not racily clean, so no status rewrites the index (a change
    // under .git/ the watcher would report): one status after a second refreshes it for good.
    await sleep(1_100)
    repo.git('status', '--porcelain')
    const warm = await WarmIndex.open(repo.dir, { warn: () => {}, recheckMs: 200 })
    // A git whose status takes seconds, as it does over a large tree; it leaves a mark when asked.
    const slow = mkdtempSync(join(tmpdir(), 'vlt-slow-git-'))
    const asked = join(slow, 'status-asked')
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
    writeFileSync(join(slow, 'git'), `#!/bin/sh\ncase " $* " in *" status "*) touch '${asked}'; sleep 5;; esac\nexec '${realGit}' "$@"\n`)
    chmodSync(join(slow, 'git'), 0o755)
    const path = process.env.PATH
    try {
      const opened = await warm.get()
      // Asked since the context was opened: the timer's next tick looks again.
      await sleep(50)
      assert.equal(await warm.get(), opened)
      process.env.PATH = `${slow}${delimiter}${path}`
      for (let waited = 0; !existsSync(asked); waited += 50) {
        assert.ok(waited < 10_000, 'the periodic look began')
        await sleep(50)
      }
      const started = performance.now()
      assert.equal(await warm.get(), opened, 'answered from the current context')
      assert.ok(performance.now() - started < 2_000, `waited ${Math.round(performance.now() - started)} ms`)
    } finally {
      process.env.PATH = path
      warm.close()
      rmSync(slow, { recursive: true, force: true })
    }
  })

  it('follows a commit that keeps the tree (an amended message, an empty commit) into the commit history', async () => {
    const warm = await WarmIndex.open(repo.dir, { warn: () => {}, env: { VLT_MCP_CHECK_MS: '0' } })
    try {
      assert.deepEqual((await (await warm.get()).commits()).commits.map((c) => c.subject), ['initial'])
      repo.git('commit', '-q', '--amend', '-m', 'Reword the first commit')
      assert.deepEqual((await (await warm.get()).commits()).commits.map((c) => c.subject), ['Reword the first commit'])
      repo.git('commit', '-q', '--allow-empty', '-m', 'Nothing but words')
      assert.deepEqual((await (await warm.get()).commits()).commits.map((c) => c.subject), ['Nothing but words', 'Reword the first commit'])
    } finally {
      warm.close()
    }
  })
})
