/**
 * The code graph's node numbering over a table's files in path order: each file's node, then one
 * node per distinct qualified name of its definitions, in order of first definition (the order
 * FileSymbols.symbolNodes lists them in). Held in a few typed arrays over every file: asking each
 * FileSymbols builds a Map per file instead, and at Linux's 3.5 M nodes those Maps were ~180 MB of
 * objects alive from PageRank to the end of a build.
 */
import { lowerBound } from '../sorted.js'
import { IMPORT_EDGE } from './edges.js'
import type { FileSymbols } from './file-symbols.js'

export class NodeNumbering {
  private constructor(
    /** First node of each file, and the node count at the end. */
    readonly bases: Uint32Array,
    /** Position of each file's first definition in `defOffsets`, and their total at the end. */
    private readonly defStarts: Uint32Array,
    /** Each definition's offset among its file's symbol nodes. */
    private readonly defOffsets: Uint32Array,
    /** Each file's symbol nodes by qualified name, sorted (file f's are [bases[f] - f, bases[f + 1] - f - 1)), with their offsets beside; sized for every definition, the rest unused. */
    private readonly sortedNames: Uint32Array,
    private readonly sortedOffsets: Uint32Array,
  ) {}

  /** The numbering of `files`, in path order. */
  static build(files: readonly FileSymbols[]): NodeNumbering {
    const defStarts = new Uint32Array(files.length + 1)
    let widest = 0
    let lastName = 0
    files.forEach((file, f) => {
      defStarts[f + 1] = defStarts[f]! + file.defs
      widest = Math.max(widest, file.defs)
      for (let d = file.def0; d < file.def0 + file.defs; d++) lastName = Math.max(lastName, file.cols.defQName[d]!)
    })
    // A file's definitions sorted by (qualified name, position) as one number each: name × range + position, exact below 2^53.
    const range = 2 ** Math.ceil(Math.log2(widest + 1))
    if ((lastName + 1) * range > Number.MAX_SAFE_INTEGER) throw new Error(`too many strings (${lastName + 1}) and definitions in a file (${widest}) to number the graph's nodes`)
    const keys = new Float64Array(widest)
    const first = new Uint32Array(widest)
    const defOffsets = new Uint32Array(defStarts[files.length])
    const bases = new Uint32Array(files.length + 1)
    const sortedNames = new Uint32Array(defStarts[files.length])
    const sortedOffsets = new Uint32Array(defStarts[files.length])
    let symbols = 0
    files.forEach((file, f) => {
      const { defQName } = file.cols
      const defs = file.defs
      for (let d = 0; d < defs; d++) keys[d] = defQName[file.def0 + d]! * range + d
      const sorted = keys.subarray(0, defs).sort()
      // Each definition's first namesake: the first of its run of equal names.
      let run = 0
      for (let i = 0; i < defs; i++) {
        if (i > 0 && Math.floor(sorted[i]! / range) !== Math.floor(sorted[i - 1]! / range)) run = i
        first[sorted[i]! % range] = sorted[run]! % range
      }
      const own = defOffsets.subarray(defStarts[f], defStarts[f + 1])
      let nodes = 0
      for (let d = 0; d < defs; d++) own[d] = first[d] === d ? nodes++ : own[first[d]!]!
      for (let i = 0; i < defs; i++) {
        const d = sorted[i]! % range
        if (first[d] !== d) continue
        sortedNames[symbols] = Math.floor(sorted[i]! / range)
        sortedOffsets[symbols++] = own[d]!
      }
      bases[f + 1] = bases[f]! + 1 + nodes
    })
    return new NodeNumbering(bases, defStarts, defOffsets, sortedNames, sortedOffsets)
  }

  /** The qualified name (a string id) of each node, by node number; 0 for a file's own node. */
  nodeNames(): Uint32Array {
    const files = this.bases.length - 1
    const names = new Uint32Array(this.bases[files]!)
    for (let f = 0; f < files; f++) {
      for (let i = this.bases[f]! - f; i < this.bases[f + 1]! - f - 1; i++) names[this.bases[f]! + 1 + this.sortedOffsets[i]!] = this.sortedNames[i]!
    }
    return names
  }

  /** The node of definition `d` (within the file) of file `f`. */
  defNode(f: number, d: number): number {
    return this.bases[f]! + 1 + this.defOffsets[this.defStarts[f]! + d]!
  }

  /** The offset among file `f`'s symbol nodes of its definitions qualified `name` (a string id), -1 if none. */
  offset(f: number, name: number): number {
    const end = this.bases[f + 1]! - f - 1
    let lo = this.bases[f]! - f
    let hi = end
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.sortedNames[mid]! < name) lo = mid + 1
      else hi = mid
    }
    return lo < end && this.sortedNames[lo] === name ? this.sortedOffsets[lo]! : -1
  }
}

/** The file (path order) whose nodes include `node`, by the files' first nodes and the count at the end; -1 past the last. */
export function fileOfNode(bases: Uint32Array, node: number): number {
  const files = bases.length - 1
  if (node < 0 || files <= 0 || node >= bases[files]!) return -1
  // Every file has a node of its own, so the bases ascend strictly: the last at or below `node`.
  return lowerBound(bases, node + 1) - 1
}

/** Whether `node` (below the node count, the last of `bases`) can be an edge's target: a file's own node for an import, a symbol's for any other type. */
export function targetFits(bases: Uint32Array, node: number, type: number): boolean {
  const f = fileOfNode(bases, node)
  return f >= 0 && (bases[f] === node) === (type === IMPORT_EDGE)
}
