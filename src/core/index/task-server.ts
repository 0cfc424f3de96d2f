import { parentPort, workerData } from 'node:worker_threads'

/** What a worker sends back for one task. */
export interface Answer<R> {
  id: number
  result?: R
  error?: string
  /** The task went past a bound of the worker (see TaskBound); `error` says how. */
  bound?: TaskBound
}

/**
 * Why a task was given up: it ran past its time bound, its worker past a memory bound, or its
 * worker died on it (a crash of native or wasm code). Only the task that did it is given up.
 */
export type TaskBound = 'time' | 'memory' | 'crash'

export interface Handled<R> {
  result: R
  /** Buffers of `result` to move to the main thread rather than copy. */
  transfer?: ArrayBuffer[]
}

/** What the pool gives each worker (as its workerData). */
export interface TaskSlotData {
  /**
   * Three Int32s. Two the worker writes and the pool reads: the id of the task the worker is
   * running (0 between tasks), to tell which task a dead or stuck worker was on; and a count of
   * restartClock calls, each of which starts the running task's time bound afresh. The third the
   * pool sets to ask the worker to end after its running task (WorkerPool.close): a message would
   * wait behind the tasks already queued, which run without the event loop turning.
   */
  currentTask: SharedArrayBuffer
}
export const TASK_SLOT_INTS = 3
/** Index in the slot of the pool's request to end (see TaskSlotData). */
export const CLOSE_REQUESTED = 2

/** Thrown by a handler for a task that went past a bound: the pool rejects it with a TaskBoundError, not a plain failure. */
export class BoundExceeded extends Error {
  constructor(readonly bound: TaskBound, message: string) {
    super(message)
    this.name = 'BoundExceeded'
  }
}

/**
 * Most answers a worker holds back to send in one message. Each message wakes the main thread,
 * and on this kind of machine a wake-up costs as much as extracting a small file (a 10,000-file
 * init spent 2 s per worker in postMessage with one message per file). Holding answers back also
 * delays them, so the pool keeps several batches queued per worker (`TASKS_PER_WORKER`).
 */
export const ANSWER_BATCH = 8

/** Wakes an idle worker to see CLOSE_REQUESTED set. */
export const CLOSE_MESSAGE = 'close'

let retiring = false
let slot: Int32Array | undefined

/** Starts the running task's time bound from now: what it did so far was this worker's one-time setup (loading a grammar), no cost of the task. */
export function restartClock(): void {
  if (slot) Atomics.add(slot, 1, 1)
}

/**
 * Ends this worker once the tasks answered so far are sent: for a handler whose state is spent
 * (a wasm runtime that aborted, or whose memory grew past its bound and never shrinks). The pool
 * starts another worker and hands it the tasks that were still queued here.
 */
export function retire(): void {
  retiring = true
}

/**
 * Worker-thread side of WorkerPool: runs tasks one at a time in arrival order and answers them in
 * batches, each message an array of answers. A task that throws is answered with its message.
 */
export function serveTasks<T, R>(handle: (task: T) => Promise<Handled<R>> | Handled<R>): void {
  const port = parentPort
  if (!port) return
  const current = (slot = new Int32Array((workerData as TaskSlotData).currentTask))
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
      // Ended between tasks, the queued ones dropped: never in the middle of one (see WorkerPool.close).
      if (Atomics.load(current, CLOSE_REQUESTED) !== 0) process.exit(0)
      Atomics.store(current, 0, next.id)
      try {
        const handled = await handle(next.task)
        answers.push({ id: next.id, result: handled.result })
        if (handled.transfer) transfer.push(...handled.transfer)
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        answers.push(error instanceof BoundExceeded ? { id: next.id, error: message, bound: error.bound } : { id: next.id, error: message })
      }
      Atomics.store(current, 0, 0)
      if (retiring) {
        flush()
        // Answers posted before exiting are delivered; the tasks still queued go to the next worker.
        process.exit(0)
      }
      if (answers.length >= ANSWER_BATCH) flush()
    }
    flush()
    draining = false
  }

  port.on('message', (message: { id: number; task: T } | typeof CLOSE_MESSAGE) => {
    if (message === CLOSE_MESSAGE) {
      // Idle, or the drain ends the worker after its running task.
      if (!draining) process.exit(0)
      return
    }
    queue.push(message)
    // Messages that arrived together are all queued before the drain starts (one batch).
    if (!draining) {
      draining = true
      setImmediate(() => void drain())
    }
  })
}
