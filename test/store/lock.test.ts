import { strict as assert } from 'node:assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { acquireLock } from '../../src/core/store/index.js'

describe('lock: announcing a wait', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-lock-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  /** Holds the lock for `holdMs` while another acquirer waits; returns how often that one was told. */
  async function waitBehind(holdMs: number, notifyAfterMs: number): Promise<string[]> {
    const held = await acquireLock(dir)
    const told: string[] = []
    const waiting = acquireLock(dir, { notifyAfterMs, onWait: (description) => told.push(description) })
    await sleep(holdMs)
    held.release()
    ;(await waiting).release()
    return told
  }

  it('stays silent about a wait shorter than notifyAfterMs, and speaks once about a longer one', async () => {
    assert.deepEqual(await waitBehind(150, 1_000), [])
    const told = await waitBehind(1_300, 1_000)
    assert.equal(told.length, 1)
    assert.match(told[0]!, new RegExp(`pid ${process.pid}`))
    assert.equal((await waitBehind(150, 0)).length, 1, 'by default at once')
  })
})
