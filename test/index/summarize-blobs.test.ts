import { strict as assert } from 'node:assert'
import { openIndexContext } from '../../src/core/index/context.js'
import { summarizeBlobs } from '../../src/core/index/build.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('summarizeBlobs', function () {
  this.timeout(60_000)
  let repo: GitFixture
  beforeEach(() => {
    repo = createGitRepo()
    repo.write(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`src/m${i}.py`, `def f${i}():\n    return ${i}\n`])))
    repo.commit('files')
  })
  afterEach(() => repo.cleanup())

  it('fails with the read error of a file that vanished, and leaves no rejection unhandled', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason)
    // Mocha's own listener would fail the test on its own; collecting here lets the test say what happened.
    const mochaListeners = process.listeners('unhandledRejection')
    process.removeAllListeners('unhandledRejection')
    process.on('unhandledRejection', onUnhandled)
    try {
      const ctx = await openIndexContext(repo.dir)
      // Distinct content per item (the same content would be read once for all).
      const items = Array.from({ length: 12 }, (_, i) => ({ path: `src/m${i}.py`, blob: `${String(i).padStart(2, '0')}${'a'.repeat(38)}`, language: 'python' as const }))
      const read = async (item: { path: string }): Promise<Buffer> => {
        if (item.path === 'src/m3.py') throw new Error(`ENOENT: no such file or directory, open '${item.path}'`)
        return Buffer.from('def f():\n    return 1\n')
      }
      await assert.rejects(summarizeBlobs(ctx, items, { force: true, warn: () => {} }, () => {}, { readBytes: read }), /ENOENT.*src\/m3\.py/)
      // Unhandled rejections are reported after the microtask queue drains.
      await new Promise((resolve) => setTimeout(resolve, 50))
      assert.deepEqual(unhandled, [])
    } finally {
      process.off('unhandledRejection', onUnhandled)
      for (const listener of mochaListeners) process.on('unhandledRejection', listener)
    }
  })
})
