import { appendFileSync } from 'node:fs'
import { BoundExceeded, retire, serveTasks } from '../../src/core/index/task-server.js'

export interface EchoTask {
  value: number
  fail?: boolean
  die?: boolean
  /** Busy for this many milliseconds (a parse that does not notice its bound). */
  spin?: number
  /** Allocates until the heap limit stops the worker. */
  hog?: boolean
  /** Answers as past its bound, as a parse that noticed it does. */
  bound?: boolean
  /** Answers, then ends the worker (as a worker whose wasm memory grew past its bound does). */
  retire?: boolean
  /** A file the task appends `start <value>` to when it starts and `end <value>` when it is done. */
  log?: string
}

/** A worker for the pool tests: doubles a number, fails on request, or dies, hangs, exhausts its heap. */
serveTasks<EchoTask, Uint8Array>((task) => {
  if (task.log) appendFileSync(task.log, `start ${task.value}\n`)
  if (task.die) process.exit(3)
  if (task.fail) throw new Error(`task ${task.value} failed`)
  if (task.bound) throw new BoundExceeded('time', `task ${task.value} noticed its bound`)
  if (task.spin) for (const until = Date.now() + task.spin; Date.now() < until; );
  if (task.hog) {
    const kept: number[][] = []
    for (;;) kept.push(Array.from({ length: 100_000 }, (_, i) => i + kept.length))
  }
  if (task.retire) retire()
  if (task.log) appendFileSync(task.log, `end ${task.value}\n`)
  const result = new Uint8Array([task.value * 2])
  return { result, transfer: [result.buffer] }
})
