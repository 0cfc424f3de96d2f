import { parentPort } from 'node:worker_threads'

/** What a worker sends back for one task. */
export interface Answer<R> {
  id: number
  result?: R
  error?: string
}

export interface Handled<R> {
  result: R
  /** Buffers of `result` to move to the main thread rather than copy. */
  transfer?: ArrayBuffer[]
}

/**
 * Most answers a worker holds back to send in one message. Each message wakes the main thread,
 * and on this kind of machine a wake-up costs as much as extracting a small file (a 10,000-file
 * init spent 2 s per worker in postMessage with one message per file). Holding answers back also
 * delays them, so the pool keeps several batches queued per worker (`TASKS_PER_WORKER`).
 */
export const ANSWER_BATCH = 8

/**
 * Worker-thread side of WorkerPool: runs tasks one at a time in arrival order and answers them in
 * batches, each message an array of answers. A task that throws is answered with its message.
 */
export function serveTasks<T, R>(handle: (task: T) => Promise<Handled<R>> | Handled<R>): void {
  const port = parentPort
  if (!port) return
  const queue: Array<{ id: number; task: T }> = []
  let draining = false

  const drain = async (): Promise<void> => {
    let answers: Array<Answer<R>> = []
    let transfer: ArrayBuffer[] = []
    const flush = (): void => {
      if (answers.length === 0) return
      port.postMessage(answers, transfer)
      answers = []
      transfer = []
    }
    for (let next = queue.shift(); next; next = queue.shift()) {
      try {
        const handled = await handle(next.task)
        answers.push({ id: next.id, result: handled.result })
        if (handled.transfer) transfer.push(...handled.transfer)
      } catch (error) {
        answers.push({ id: next.id, error: error instanceof Error ? error.message : String(error) })
      }
      if (answers.length >= ANSWER_BATCH) flush()
    }
    flush()
    draining = false
  }

  port.on('message', (message: { id: number; task: T }) => {
    queue.push(message)
    // Messages that arrived together are all queued before the drain starts (one batch).
    if (!draining) {
      draining = true
      setImmediate(() => void drain())
    }
  })
}
