import { availableParallelism } from 'node:os'
import { Worker, type WorkerOptions } from 'node:worker_threads'
import { ANSWER_BATCH, type Answer } from './task-server.js'

/** Tasks to keep queued per worker: a batch of answers on its way back, and two to work on meanwhile. */
export const TASKS_PER_WORKER = 3 * ANSWER_BATCH

interface Pending<R> {
  resolve: (value: R) => void
  reject: (error: Error) => void
}

interface Slot<R> {
  worker: Worker
  inFlight: Map<number, Pending<R>>
}

/**
 * A fixed set of worker threads (their entries call `serveTasks`): one message per task, answers
 * in batches. Tasks go to the least-busy worker; a worker that dies rejects only its own pending
 * tasks and is replaced, so one pathological file (a grammar crash, an OOM in wasm) never stops
 * the whole index.
 */
export class WorkerPool<T, R> {
  private readonly slots: Array<Slot<R>> = []
  private nextId = 1
  private closed = false

  constructor(
    private readonly entry: URL,
    size = defaultPoolSize(),
    private readonly workerData: unknown = undefined,
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

  run(task: T, transfer: ArrayBuffer[] = []): Promise<R> {
    if (this.closed) return Promise.reject(new Error('worker pool is closed'))
    let slot = this.slots[0]!
    for (const candidate of this.slots) if (candidate.inFlight.size < slot.inFlight.size) slot = candidate
    const id = this.nextId++
    return new Promise<R>((resolve, reject) => {
      // Only a busy worker keeps the process alive: an idle pool never blocks exit.
      if (slot.inFlight.size === 0) slot.worker.ref()
      slot.inFlight.set(id, { resolve, reject })
      slot.worker.postMessage({ id, task }, transfer)
    })
  }

  async close(): Promise<void> {
    this.closed = true
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()))
  }

  private spawn(): Slot<R> {
    const worker = startWorker(this.entry, { workerData: this.workerData })
    const slot: Slot<R> = { worker, inFlight: new Map() }
    worker.on('message', (answers: Array<Answer<R>>) => {
      for (const answer of answers) {
        const pending = slot.inFlight.get(answer.id)
        if (!pending) continue
        slot.inFlight.delete(answer.id)
        if (answer.error !== undefined) pending.reject(new Error(answer.error))
        else pending.resolve(answer.result as R)
      }
      if (slot.inFlight.size === 0) worker.unref()
    })
    const fail = (error: Error): void => {
      const index = this.slots.indexOf(slot)
      for (const pending of slot.inFlight.values()) pending.reject(error)
      slot.inFlight.clear()
      if (!this.closed && index >= 0) this.slots[index] = this.spawn()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => {
      if (!this.closed && slot.inFlight.size > 0) fail(new Error(`index worker exited with code ${code}`))
    })
    worker.unref()
    return slot
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
