/**
 * Definitions grouped by a string id (name or qualified name): a CSR over the files in path order.
 * Rebuilt after each patch rather than patched — two passes over typed columns cost a few
 * milliseconds for 200k definitions, less than maintaining per-name lists would.
 */
import type { FileSymbols, SymbolColumns } from './file-symbols.js'

export class DefIndex {
  private constructor(
    /** Entries of key k are [starts[k], starts[k + 1]). */
    private readonly starts: Uint32Array,
    /** Per entry: index of the file in path order, and definition index within it. */
    readonly entryFile: Uint32Array,
    readonly entryDef: Uint32Array,
    /** Per key: how many distinct files define it. */
    readonly fileCounts: Uint32Array,
  ) {}

  /**
   * Indexes `files` (in path order) by `key`, keeping the first definition of each qualified name
   * per (key, file): a definition and a stray duplicate (`#ifdef` variants) are one symbol.
   */
  static build(files: readonly FileSymbols[], keys: number, key: (cols: SymbolColumns) => Uint32Array): DefIndex {
    const starts = new Uint32Array(keys + 1)
    for (const file of files) {
      const column = key(file.cols)
      for (let d = file.def0; d < file.def0 + file.defs; d++) starts[column[d] + 1]++
    }
    for (let k = 0; k < keys; k++) starts[k + 1] += starts[k]
    const total = starts[keys]
    const entryFile = new Uint32Array(total)
    const entryDef = new Uint32Array(total)
    const fill = starts.slice(0, keys)
    const fileCounts = new Uint32Array(keys)
    for (let f = 0; f < files.length; f++) {
      const file = files[f]!
      const column = key(file.cols)
      const { defQName } = file.cols
      for (let d = 0; d < file.defs; d++) {
        const k = column[file.def0 + d]
        let at = fill[k]
        if (seenInFile(entryFile, entryDef, defQName, file.def0, starts[k], at, f, defQName[file.def0 + d])) continue
        if (at === starts[k] || entryFile[at - 1] !== f) fileCounts[k]++
        entryFile[at] = f
        entryDef[at] = d
        fill[k] = ++at
      }
    }
    return new DefIndex(compactStarts(starts, fill, entryFile, entryDef), entryFile, entryDef, fileCounts)
  }

  start(key: number): number {
    return key + 1 < this.starts.length ? this.starts[key] : 0
  }

  end(key: number): number {
    return key + 1 < this.starts.length ? this.starts[key + 1] : 0
  }

  range(key: number): [number, number] {
    return key < 0 ? [0, 0] : [this.start(key), this.end(key)]
  }

  /** First entry of `key` whose file is ≥ `file` (entries are in file order): binary search. */
  firstInFile(key: number, file: number): number {
    let lo = this.start(key)
    let hi = this.end(key)
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.entryFile[mid] < file) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** End of the run of entries of the same file starting at `first`, bounded by `end`. */
  endInFile(first: number, end: number): number {
    const file = this.entryFile[first]
    let stop = first
    while (stop < end && this.entryFile[stop] === file) stop++
    return stop
  }
}

/** Entries of file `f` for a key are the last ones filled: is `qname` among them? */
function seenInFile(entryFile: Uint32Array, entryDef: Uint32Array, defQName: Uint32Array, def0: number, start: number, at: number, f: number, qname: number): boolean {
  for (let e = at - 1; e >= start && entryFile[e] === f; e--) if (defQName[def0 + entryDef[e]] === qname) return true
  return false
}

/** Closes the gaps left by skipped duplicates, in place; returns the new starts. */
function compactStarts(starts: Uint32Array, fill: Uint32Array, entryFile: Uint32Array, entryDef: Uint32Array): Uint32Array {
  const keys = fill.length
  const compact = new Uint32Array(keys + 1)
  let out = 0
  for (let k = 0; k < keys; k++) {
    compact[k] = out
    for (let e = starts[k]; e < fill[k]; e++) {
      entryFile[out] = entryFile[e]
      entryDef[out] = entryDef[e]
      out++
    }
  }
  compact[keys] = out
  return compact
}
