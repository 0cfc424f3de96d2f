import { availableParallelism } from 'node:os'
import { Worker, type ResourceLimits, type WorkerOptions } from 'node:worker_threads'
import { ANSWER_BATCH, CLOSE_MESSAGE, CLOSE_REQUESTED, TASK_SLOT_INTS, type Answer, type TaskBound, type TaskSlotData } from './task-server.js'

export type { TaskBound }

/** Tasks to keep queued per worker: a batch of answers on its way back, and two to work on meanwhile. */
export const TASKS_PER_WORKER = 3 * ANSWER_BATCH

/** How often the pool looks at what each worker is running, for tasks with a time bound. */
const WATCH_INTERVAL_MS = 100
/**
 * Time a task may run past its bound before its worker is stopped. A task is meant to notice its
 * bound itself where it can (a parse does, through tree-sitter's progress callback) and answer
 * cheaply; stopping the worker is for code that cannot notice, and costs a new worker.
 */
const STOP_GRACE_MS = 1_000
/** How long a closing pool waits for a worker to finish its running task and end (see `stop`). */
const CLOSE_GRACE_MS = 2_000

/** A task given up because it went past a bound (see TaskBound); the pool carries on without it. */
export class TaskBoundError extends Error {
  constructor(readonly bound: TaskBound, message: string) {
    super(message)
    this.name = 'TaskBoundError'
  }
}

export interface PoolOptions {
  /** Heap limits of each worker; a worker past them is stopped by Node, and the task it was running is given up ('memory'). */
  resourceLimits?: ResourceLimits
}

export interface RunOptions {
  /** Wall-clock time the task may run once its worker starts it; past it (and a grace) its worker is stopped ('time'). */
  timeoutMs?: number
}

interface Pending<T, R> {
  task: T
  timeoutMs?: number
  resolve: (value: R) => void
  reject: (error: Error) => void
}

interface Slot<T, R> {
  worker: Worker
  inFlight: Map<number, Pending<T, R>>
  /** Written by the worker (serveTasks): the id of the task it is running (0 between tasks), and its clock restarts. */
  current: Int32Array
  /** Whether the worker ever started a task: one that dies before that failed to start, and its tasks fail with it. */
  started: boolean
  /** The running task and its clock restarts as the watchdog last saw them, and since when. */
  seen: { id: number; restarts: number; at: number }
  /** The task the pool stopped the worker for (past its time bound). */
  stopped?: number
  ended: boolean
}

/**
 * A fixed set of worker threads (their entries call `serveTasks`): one message per task, answers
 * in batches. Tasks go to the least-busy worker. A worker that dies, goes past its heap limit or
 * runs a task past its time bound is replaced: only the task it was running is given up (a
 * TaskBoundError), the others it held are handed to its replacement, so one pathological file (a
 * grammar crash, an OOM, a parse that never ends) never stops the whole index.
 */
export class WorkerPool<T, R> {
  private readonly slots: Array<Slot<T, R>> = []
  private nextId = 1
  private closed = false
  private watchdog: NodeJS.Timeout | undefined

  constructor(
    private readonly entry: URL,
    size = defaultPoolSize(),
    private readonly options: PoolOptions = {},
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn())
  }

  get size(): number {
    return this.slots.length
  }

  /** Tasks currently queued in workers (for backpressure). */
  get inFlight(): number {
    let n = 0
    for (const slot of this.slots) n += slot.inFlight.size
    return n
  }

  /** Runs `task` on a worker; the task is copied to it (not transferred), so that it can be handed to another worker if its own dies. */
  run(task: T, options: RunOptions = {}): Promise<R> {
    if (this.closed) return Promise.reject(new Error('worker pool is closed'))
    let slot = this.slots[0]!
    for (const candidate of this.slots) if (candidate.inFlight.size < slot.inFlight.size) slot = candidate
    if (options.timeoutMs !== undefined) this.watch()
    return new Promise<R>((resolve, reject) => this.post(slot, this.nextId++, { task, timeoutMs: options.timeoutMs, resolve, reject }))
  }

  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.watchdog)
    // Terminating workers keeps no handle of the event loop alive: a failed build (a full disk) whose
    // other handles are closed already would exit mid-await (code 13, no message) without this timer.
    const alive = setInterval(() => {}, 60_000)
    try {
      await Promise.all(this.slots.map((slot) => this.stop(slot)))
    } finally {
      clearInterval(alive)
    }
  }

  /**
   * Asks a worker to end once its running task is done (dropping those queued behind it), and
   * stops it only if that takes longer than CLOSE_GRACE_MS. Stopped mid-task, a worker could be
   * inside a Brotli encoder's constructor, and Node aborts the whole process when it then cleans
   * up the half-made encoder ("close before init", seen when a full disk failed a sync).
   */
  private async stop(slot: Slot<T, R>): Promise<void> {
    if (slot.ended) return
    const exited = new Promise<void>((resolve) => slot.worker.once('exit', () => resolve()))
    Atomics.store(slot.current, CLOSE_REQUESTED, 1)
    slot.worker.postMessage(CLOSE_MESSAGE)
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS) })
    try {
      if ((await Promise.race([exited, late])) === 'late') await slot.worker.terminate()
    } finally {
      clearTimeout(timer)
    }
  }

  private post(slot: Slot<T, R>, id: number, pending: Pending<T, R>): void {
    // Only a busy worker keeps the process alive: an idle pool never blocks exit.
    if (slot.inFlight.size === 0) slot.worker.ref()
    slot.inFlight.set(id, pending)
    slot.worker.postMessage({ id, task: pending.task })
  }

  private spawn(): Slot<T, R> {
    const current = new SharedArrayBuffer(4 * TASK_SLOT_INTS)
    const workerData: TaskSlotData = { currentTask: current }
    const worker = startWorker(this.entry, { workerData, resourceLimits: this.options.resourceLimits })
    const slot: Slot<T, R> = { worker, inFlight: new Map(), current: new Int32Array(current), started: false, seen: { id: 0, restarts: 0, at: 0 }, ended: false }
    worker.on('message', (answers: Array<Answer<R>>) => {
      slot.started = true
      for (const answer of answers) {
        const pending = slot.inFlight.get(answer.id)
        if (!pending) continue
        slot.inFlight.delete(answer.id)
        if (answer.bound !== undefined) pending.reject(new TaskBoundError(answer.bound, answer.error ?? `task went past its ${answer.bound} bound`))
        else if (answer.error !== undefined) pending.reject(new Error(answer.error))
        else pending.resolve(answer.result as R)
      }
      if (slot.inFlight.size === 0) worker.unref()
    })
    worker.on('error', (error) => this.end(slot, error, undefined))
    worker.on('exit', (code) => this.end(slot, undefined, code))
    worker.unref()
    return slot
  }

  /**
   * A worker ended: replace it. The task it was running is given up; the tasks queued behind it go
   * to the replacement. A worker that retired itself (exit code 0 between tasks) gives up none.
   */
  private end(slot: Slot<T, R>, error: Error | undefined, code: number | undefined): void {
    if (slot.ended) return
    slot.ended = true
    const index = this.slots.indexOf(slot)
    const pending = [...slot.inFlight]
    slot.inFlight.clear()
    // Stopped by the pool, the worker was on that task (unless it just finished it, then on none that is to blame).
    const running = slot.stopped ?? Atomics.load(slot.current, 0)
    const cause = error ?? new Error(`index worker exited with code ${code}`)
    if (this.closed || index < 0) {
      for (const [, task] of pending) task.reject(new Error('worker pool is closed'))
      return
    }
    const replacement = this.spawn()
    this.slots[index] = replacement
    const culprit = pending.find(([id]) => id === running)
    if (!culprit && !(code === 0 && error === undefined) && !slot.started) {
      // It never ran a task (a failed start): the replacement would fail the same way.
      for (const [, task] of pending) task.reject(cause)
      return
    }
    for (const [id, task] of pending) {
      if (id !== culprit?.[0]) this.post(replacement, id, task)
    }
    if (culprit) {
      const bound: TaskBound = slot.stopped !== undefined ? 'time' : (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'crash'
      const message = bound === 'time' ? `the task ran past its time bound (${culprit[1].timeoutMs} ms) and its worker was stopped` : cause.message
      culprit[1].reject(new TaskBoundError(bound, message))
    }
  }

  /** Stops the worker of any task that runs past its time bound (and the grace). */
  private watch(): void {
    if (this.watchdog) return
    this.watchdog = setInterval(() => {
      const now = performance.now()
      for (const slot of this.slots) {
        const id = Atomics.load(slot.current, 0)
        const restarts = Atomics.load(slot.current, 1)
        if (id !== 0) slot.started = true
        if (id !== slot.seen.id || restarts !== slot.seen.restarts) {
          slot.seen = { id, restarts, at: now }
          continue
        }
        const timeoutMs = id === 0 ? undefined : slot.inFlight.get(id)?.timeoutMs
        if (timeoutMs === undefined || slot.stopped !== undefined || now - slot.seen.at <= timeoutMs + STOP_GRACE_MS) continue
        slot.stopped = id
        void slot.worker.terminate()
      }
    }, WATCH_INTERVAL_MS)
    this.watchdog.unref()
  }
}

/** A worker thread running `entry`, a module of this package (compiled, or its TypeScript source). */
export function startWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options)
  // Run from the TypeScript sources (tests, bin/dev.js), the worker registers the tsx loader
  // itself: Node 20 does not carry a loader registered with --import over to worker threads.
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`, { ...options, eval: true })
}

/** Leave the main thread a share of one core: it reads git objects and merges aggregates. */
export function defaultPoolSize(): number {
  const fromEnv = Number(process.env.VLT_WORKERS)
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv
  return Math.max(1, Math.min(availableParallelism(), 8))
}
