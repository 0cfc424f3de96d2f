import { strict as assert } from 'node:assert'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { TaskBoundError, WorkerPool } from '../../src/core/index/pool.js'
import { ANSWER_BATCH } from '../../src/core/index/task-server.js'
import type { EchoTask } from '../helpers/echo-worker.js'

const ENTRY = new URL('../helpers/echo-worker.ts', import.meta.url)

/** What became of each task: its answer, or the bound it was given up for, or its error. */
async function outcomes(pool: WorkerPool<EchoTask, Uint8Array>, tasks: Array<{ task: EchoTask; timeoutMs?: number }>): Promise<Array<number | string>> {
  const settled = await Promise.allSettled(tasks.map(({ task, timeoutMs }) => pool.run(task, { timeoutMs })))
  return settled.map((s) => (s.status === 'fulfilled' ? s.value[0]! : s.reason instanceof TaskBoundError ? `bound:${s.reason.bound}` : `error:${(s.reason as Error).message}`))
}

describe('WorkerPool with batched answers', function () {
  this.timeout(20_000)

  it('answers every task of a deep queue with its own result, across batches and workers', async () => {
    const pool = new WorkerPool<EchoTask, Uint8Array>(ENTRY, 2)
    try {
      const count = ANSWER_BATCH * 12 + 5
      const results = await Promise.all(Array.from({ length: count }, (_, value) => pool.run({ value: value % 100 })))
      assert.deepEqual(results.map((r) => r[0]), Array.from({ length: count }, (_, value) => (value % 100) * 2))
    } finally {
      await pool.close()
    }
  })

  it('rejects only the task that threw; the others in its batch are answered', async () => {
    const pool = new WorkerPool<EchoTask, Uint8Array>(ENTRY, 1)
    try {
      const settled = await Promise.allSettled([1, 2, 3, 4].map((value) => pool.run({ value, fail: value === 3 })))
      assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
      assert.match(String((settled[2] as PromiseRejectedResult).reason), /task 3 failed/)
    } finally {
      await pool.close()
    }
  })

  it('replaces a worker that died: only the task it was running is given up, those queued behind it are answered', async () => {
    const pool = new WorkerPool<EchoTask, Uint8Array>(ENTRY, 1)
    try {
      assert.deepEqual(await outcomes(pool, [{ task: { value: 1 } }, { task: { value: 2, die: true } }, { task: { value: 3 } }, { task: { value: 4 } }]), [2, 'bound:crash', 6, 8])
      await assert.rejects(pool.run({ value: 1, die: true }), /exited with code 3/)
      assert.equal((await pool.run({ value: 21 }))[0], 42)
    } finally {
      await pool.close()
    }
  })

  it('stops a worker whose task runs past its time bound, and carries on', async () => {
    const pool = new WorkerPool<EchoTask, Uint8Array>(ENTRY, 1)
    try {
      const started = Date.now()
      const results = await outcomes(pool, [{ task: { value: 1 } }, { task: { value: 2, spin: 60_000 }, timeoutMs: 100 }, { task: { value: 3, spin: 50 }, timeoutMs: 1_000 }])
      assert.deepEqual(results, [2, 'bound:time', 6])
      assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`)
    } finally {
      await pool.close()
    }
  })

  it('gives up the task whose worker went past its heap limit, and carries on', async () => {
    const pool = new WorkerPool<EchoTask, Uint8Array>(ENTRY, 1, { resourceLimits: { maxOldGenerationSizeMb: 48 } })
    try {
      assert.deepEqual(await outcomes(pool, [{ task: { value: 1 } }, { task: { value: 2, hog: true } }, { task: { value: 3 } }]), [2, 'bound:memory', 6])
    } finally {
      await pool.close()
    }
  })

  it('rejects a task answered as past its bound with a TaskBoundError; a retiring worker hands its queue on', async () => {
    const pool = new WorkerPool<EchoTask, Uint8Array>(ENTRY, 1)
    try {
      assert.deepEqual(await outcomes(pool, [{ task: { value: 1, bound: true } }, { task: { value: 2, retire: true } }, { task: { value: 3 } }, { task: { value: 4 } }]), ['bound:time', 4, 6, 8])
    } finally {
      await pool.close()
    }
  })

  it('closes by letting the running task finish, never stopping a worker mid-task, and drops the tasks queued behind it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vlt-pool-close-'))
    const log = join(dir, 'tasks.log')
    const pool = new WorkerPool<EchoTask, Uint8Array>(ENTRY, 1)
    try {
      const settled = Promise.allSettled([1, 2, 3].map((value) => pool.run({ value, log, spin: value === 1 ? 500 : 0 })))
      while (!existsSync(log)) await sleep(10)
      await pool.close()
      assert.equal(readFileSync(log, 'utf8'), 'start 1\nend 1\n')
      assert.deepEqual((await settled).map((s) => s.status), ['rejected', 'rejected', 'rejected'])
    } finally {
      await pool.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('fails the tasks of a worker that cannot start, without restarting it forever', async () => {
    const pool = new WorkerPool<EchoTask, Uint8Array>(new URL('../helpers/no-such-worker.ts', import.meta.url), 1)
    try {
      const results = await outcomes(pool, [{ task: { value: 1 } }, { task: { value: 2 } }])
      assert.ok(results.every((r) => typeof r === 'string' && r.startsWith('error:')), JSON.stringify(results))
    } finally {
      await pool.close()
    }
  })
})
