import { strict as assert } from 'node:assert'
import { WorkerPool } from '../../src/core/index/pool.js'
import { ANSWER_BATCH } from '../../src/core/index/task-server.js'

const ENTRY = new URL('../helpers/echo-worker.ts', import.meta.url)
type Task = { value: number; fail?: boolean; die?: boolean }

describe('WorkerPool with batched answers', function () {
  this.timeout(20_000)

  it('answers every task of a deep queue with its own result, across batches and workers', async () => {
    const pool = new WorkerPool<Task, Uint8Array>(ENTRY, 2)
    try {
      const count = ANSWER_BATCH * 12 + 5
      const results = await Promise.all(Array.from({ length: count }, (_, value) => pool.run({ value: value % 100 })))
      assert.deepEqual(results.map((r) => r[0]), Array.from({ length: count }, (_, value) => (value % 100) * 2))
    } finally {
      await pool.close()
    }
  })

  it('rejects only the task that threw; the others in its batch are answered', async () => {
    const pool = new WorkerPool<Task, Uint8Array>(ENTRY, 1)
    try {
      const settled = await Promise.allSettled([1, 2, 3, 4].map((value) => pool.run({ value, fail: value === 3 })))
      assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
      assert.match(String((settled[2] as PromiseRejectedResult).reason), /task 3 failed/)
    } finally {
      await pool.close()
    }
  })

  it('replaces a worker that died, rejecting only what it held', async () => {
    const pool = new WorkerPool<Task, Uint8Array>(ENTRY, 1)
    try {
      await assert.rejects(pool.run({ value: 1, die: true }), /exited with code 3/)
      assert.equal((await pool.run({ value: 21 }))[0], 42)
    } finally {
      await pool.close()
    }
  })
})
