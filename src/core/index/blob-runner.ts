import { decodeSummary, type BlobTask, type Degraded, type EncodedBlob } from './blob-task.js'
import { defaultPoolSize, TaskBoundError, WorkerPool, type TaskBound } from './pool.js'
import type { ProcessedBlob } from './process-blob.js'

/** Below this many blobs to extract, worker start-up costs more than it saves. */
export const IN_THREAD_LIMIT = 8
/**
 * A larger file is parsed in a worker even when there are few to extract: only there do the
 * bounds hold whatever the file does (a worker past its time or heap bound is stopped, this
 * thread could not be), and parsing it takes longer than starting a worker (about 0.5 s).
 */
const IN_THREAD_MAX_BYTES = 1024 * 1024

/** Per-file bounds of a parse ([index] parse_timeout_ms, parse_memory_mb). */
export interface ParseBounds {
  timeoutMs: number
  memoryMb: number
}

/** Extracts blobs: in worker threads, or in this thread for a few small ones. */
export interface BlobRunner {
  parallelism: number
  /** `label` names the record in an error. */
  run(task: BlobTask, label: string): Promise<ProcessedBlob>
  close(): Promise<void>
}

const DEGRADED: Record<TaskBound, Degraded> = { time: 'parseTimeout', memory: 'parseMemory', crash: 'parseCrash' }

export async function blobRunner(count: number, bounds: ParseBounds): Promise<BlobRunner> {
  return count <= IN_THREAD_LIMIT ? inThread(bounds) : pooled(defaultPoolSize(), bounds)
}

/**
 * Small files in this thread, under the time bound only: the parse stops itself past it. The
 * memory bound needs a worker (wasm memory never shrinks, so a thread past it must be replaced),
 * and a file of at most IN_THREAD_MAX_BYTES stays far below it.
 */
async function inThread(bounds: ParseBounds): Promise<BlobRunner> {
  const [{ createExtractor, ParseLimitExceeded }, { processAsText, processBlob }] = await Promise.all([import('../parse/index.js'), import('./process-blob.js')])
  const extractor = await createExtractor()
  let worker: BlobRunner | undefined
  return {
    parallelism: 1,
    run: async (task, label) => {
      if (task.bytes.byteLength > IN_THREAD_MAX_BYTES) return (worker ??= pooled(1, bounds)).run(task, label)
      try {
        return await processBlob(task.language === 'text' ? task : { ...task, parseTimeoutMs: bounds.timeoutMs }, extractor)
      } catch (error) {
        if (!(error instanceof ParseLimitExceeded)) throw error
        return processAsText(task, DEGRADED[error.bound])
      }
    },
    close: async () => worker?.close(),
  }
}

/**
 * Worker threads, each under the heap bound, each parse under the time and memory bounds. A file
 * past a bound, or whose worker died on it, is indexed as text windows here in the main thread
 * (recorded as degraded); the pool replaces the worker and carries on with the other files.
 */
function pooled(size: number, bounds: ParseBounds): BlobRunner {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url)
  const pool = new WorkerPool<BlobTask, EncodedBlob>(entry, size, { resourceLimits: { maxOldGenerationSizeMb: bounds.memoryMb } })
  const maxWasmBytes = bounds.memoryMb * 1024 * 1024
  return {
    parallelism: pool.size,
    run: async (task, label) => {
      const parsed = task.language !== 'text'
      try {
        const bounded = parsed ? { ...task, parseTimeoutMs: bounds.timeoutMs, maxWasmBytes } : task
        const { summary, record } = await pool.run(bounded, { timeoutMs: parsed ? bounds.timeoutMs : undefined })
        // The summary only: the stored record is compressed, and inflating it here would cost this
        // thread, the build's busiest, as much as the workers spent compressing it.
        return { summary: decodeSummary(summary, label), encoded: record }
      } catch (error) {
        if (!(error instanceof TaskBoundError)) throw error
        const { processAsText } = await import('./process-blob.js')
        // A text file is text windows either way: nothing was lost, so nothing is recorded.
        return processAsText(task, parsed ? DEGRADED[error.bound] : undefined)
      }
    },
    close: () => pool.close(),
  }
}
