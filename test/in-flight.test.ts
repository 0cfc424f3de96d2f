import { strict as assert } from 'node:assert'
import { setTimeout as sleep } from 'node:timers/promises'
import { InFlightLimit } from '../src/core/in-flight.js'

describe('InFlightLimit', () => {
  it('never runs more than its limit at once, however many producers wait, and drains only when all finished', async () => {
    const limit = new InFlightLimit(8)
    let running = 0
    let most = 0
    let finished = 0
    const work = async (): Promise<void> => {
      running++
      most = Math.max(most, running)
      // Slower than the producers: the case where waking every waiter at once let the count drift up.
      await sleep(1 + (finished % 3))
      running--
      finished++
    }
    const producer = async (): Promise<void> => {
      for (let piece = 0; piece < 40; piece++) {
        await limit.start(work)
        assert.ok(limit.size <= 8, `${limit.size} running after a start`)
      }
    }
    await Promise.all(Array.from({ length: 48 }, producer))
    await limit.drain()
    assert.equal(finished, 48 * 40)
    assert.equal(running, 0)
    assert.equal(limit.size, 0)
    assert.equal(most, 8, 'the limit is reached, not only respected')
  })

  it('drain resolves at once when nothing was started', async () => {
    await new InFlightLimit(2).drain()
  })
})
