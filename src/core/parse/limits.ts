import { wasmMemoryBytes } from './grammars.js'

/**
 * Bounds on one file's parse and tags query, checked where tree-sitter offers to stop: its
 * progress callbacks, called every few hundred bytes of input or query steps. A file past either
 * bound is abandoned (ParseLimitExceeded) and its caller indexes it as text instead. What runs
 * after the query (chunking, analysis) is plain JavaScript that no callback reaches; the worker
 * pool's own time bound and heap limit stand behind it (src/core/index/pool.ts).
 */
export interface ParseLimits {
  /** `performance.now()` past which the file is abandoned. */
  deadline?: number
  /**
   * Size the tree-sitter runtime's wasm memory must stay within. That memory only ever grows, so
   * this bounds the thread, not the file: a thread that went past it must not parse another file
   * (workers are replaced; see src/core/index/worker.ts).
   */
  maxWasmBytes?: number
}

export type ParseBound = 'time' | 'memory'

export class ParseLimitExceeded extends Error {
  constructor(readonly bound: ParseBound) {
    super(bound === 'time' ? 'the parse went past its time bound' : 'the parse went past its memory bound')
    this.name = 'ParseLimitExceeded'
  }
}

/** A progress callback for `limits`: true (stop) once past a bound, which `exceeded` then names. */
export class LimitWatch {
  exceeded: ParseBound | undefined

  constructor(private readonly limits: ParseLimits) {}

  readonly check = (): boolean => {
    if (this.exceeded) return true
    if (this.limits.deadline !== undefined && performance.now() > this.limits.deadline) this.exceeded = 'time'
    else if (this.limits.maxWasmBytes !== undefined && wasmMemoryBytes() > this.limits.maxWasmBytes) this.exceeded = 'memory'
    return this.exceeded !== undefined
  }

  /** Throws if a bound was passed (a cancelled query returns the matches found so far, which must not be used). */
  verify(): void {
    if (this.exceeded) throw new ParseLimitExceeded(this.exceeded)
  }
}
