import { serveTasks } from '../../src/core/index/task-server.js'

/** A worker for the pool tests: doubles a number, fails on request, or dies. */
serveTasks<{ value: number; fail?: boolean; die?: boolean }, Uint8Array>((task) => {
  if (task.die) process.exit(3)
  if (task.fail) throw new Error(`task ${task.value} failed`)
  const result = new Uint8Array([task.value * 2])
  return { result, transfer: [result.buffer] }
})
