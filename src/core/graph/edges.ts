/**
 * Edges out of one file: imports (file → file) and references resolved to definitions (from the
 * enclosing symbol, or the file, to the defining symbol).
 *
 * Name resolution, with no type information: a definition in the same file wins, then one in a
 * file this file imports, then a definition in the only file that has one. A name defined in a
 * few files (≤ AMBIGUITY_LIMIT) links to each with an equal share of the weight, so the
 * references still count towards ranking without favouring a guess; beyond that the name is
 * generic (`init`, `probe`, `name` in Linux are defined in hundreds of files) and gets no edge —
 * edges to all of them would be noise and quadratic in size.
 *
 * Weights follow Aider's repo map: sqrt of the occurrence count (a hundred calls are more than one,
 * not a hundred times more), a tenth for `_private` names; the raw count is kept beside.
 */
import type { DefIndex } from './def-index.js'
import type { FileSymbols } from './file-symbols.js'
import { cut, RowChunks } from './row-chunks.js'
import type { SymbolTable } from './symbol-table.js'

export const EDGE_TYPES = ['call', 'reference', 'type', 'inherit', 'import'] as const
export type EdgeType = (typeof EDGE_TYPES)[number]
export const IMPORT_EDGE = EDGE_TYPES.indexOf('import')

/** A stored edge's target node when the graph numbers none (a stale edge: never ranked). */
export const NO_NODE = 0xffffffff

export const AMBIGUITY_LIMIT = 4
export const PRIVATE_WEIGHT = 0.1

export interface EdgeColumns {
  /** Enclosing definition (index within the source file), -1 for the file itself. */
  from: Int32Array
  /** String id of the target file's path. */
  toPath: Uint32Array
  /** String id of the target's qualified name; 0 for import edges (the file). */
  toName: Uint32Array
  type: Uint8Array
  count: Uint32Array
  weight: Float64Array
}

/** A file's edges: rows [start, start + count) of `cols` (shared by a loaded graph's files). */
export interface FileEdges {
  cols: EdgeColumns
  start: number
  count: number
}

/** Output rows of the file being resolved, reused from file to file (a cold build resolves millions). */
class EdgeBuffer {
  private size = 0
  private from = new Int32Array(1024)
  private toPath = new Uint32Array(1024)
  private toName = new Uint32Array(1024)
  private type = new Uint8Array(1024)
  private count = new Uint32Array(1024)
  private weight = new Float64Array(1024)

  push(from: number, toPath: number, toName: number, type: number, count: number, weight: number): void {
    if (this.size === this.from.length) this.grow()
    const at = this.size++
    this.from[at] = from
    this.toPath[at] = toPath
    this.toName[at] = toName
    this.type[at] = type
    this.count[at] = count
    this.weight[at] = weight
  }

  /** The rows so far, copied into rows of `chunks`; empties the buffer. */
  take(chunks: RowChunks<EdgeColumns>): FileEdges {
    const n = this.size
    this.size = 0
    const { cols, starts: [start] } = chunks.take([n])
    cols.from.set(this.from.subarray(0, n), start)
    cols.toPath.set(this.toPath.subarray(0, n), start)
    cols.toName.set(this.toName.subarray(0, n), start)
    cols.type.set(this.type.subarray(0, n), start)
    cols.count.set(this.count.subarray(0, n), start)
    cols.weight.set(this.weight.subarray(0, n), start)
    return { cols, start: start!, count: n }
  }

  private grow(): void {
    const capacity = this.from.length * 2
    const grown = <T extends Int32Array | Uint32Array | Uint8Array | Float64Array>(array: T): T => {
      const out = new (array.constructor as new (n: number) => T)(capacity)
      out.set(array)
      return out
    }
    this.from = grown(this.from)
    this.toPath = grown(this.toPath)
    this.toName = grown(this.toName)
    this.type = grown(this.type)
    this.count = grown(this.count)
    this.weight = grown(this.weight)
  }
}

const buffer = new EdgeBuffer()
/** Candidate entry ranges of one reference row, as [lo, hi, lo, hi, …]. */
let ranges = new Int32Array(64)

/** Rows of edges a chunk of resolved files' columns has room for (about 1.5 MB). */
const CHUNK_EDGES = 65_536

/** The chunks a graph's resolved edges go into (see row-chunks.ts). */
export function edgeChunks(): RowChunks<EdgeColumns> {
  return new RowChunks<EdgeColumns>(
    {
      allocate: ([edges]) => emptyEdgeColumns(edges!),
      trim: (cols, [edges]) => {
        cols.from = cut(cols.from, edges!)
        cols.toPath = cut(cols.toPath, edges!)
        cols.toName = cut(cols.toName, edges!)
        cols.type = cut(cols.type, edges!)
        cols.count = cut(cols.count, edges!)
        cols.weight = cut(cols.weight, edges!)
      },
    },
    [CHUNK_EDGES],
  )
}

export function emptyEdgeColumns(total: number): EdgeColumns {
  return {
    from: new Int32Array(total),
    toPath: new Uint32Array(total),
    toName: new Uint32Array(total),
    type: new Uint8Array(total),
    count: new Uint32Array(total),
    weight: new Float64Array(total),
  }
}

/** The edges out of `file`, in rows of `chunks`; `index` holds the table's definitions by name (DefIndex.build over its sorted files). */
export function resolveFileEdges(table: SymbolTable, file: FileSymbols, index: DefIndex, chunks: RowChunks<EdgeColumns>): FileEdges {
  const imported = importEdges(table, file)
  for (const [path, edge] of imported) buffer.push(-1, path, 0, IMPORT_EDGE, edge.count, edge.weight)

  const files = table.sortedFiles()
  const { entryFile, entryDef, fileCounts } = index
  const self = table.fileIndexOf(file.pathId)
  const importedFiles = [...imported.keys()].map((path) => table.fileIndexOf(path)).filter((f) => f >= 0)
  if (ranges.length < 2 * importedFiles.length + 2) ranges = new Int32Array(2 * importedFiles.length + 2)
  const { refName, refFrom, refKind, refCount, defQName } = file.cols
  for (let i = file.ref0; i < file.ref0 + file.refs; i++) {
    const name = refName[i]
    const start = index.start(name)
    const end = index.end(name)
    if (start === end) continue
    let n = 0
    const own = index.firstInFile(name, self)
    if (own < end && entryFile[own] === self) {
      ranges[0] = own
      ranges[1] = index.endInFile(own, end)
      n = 2
    } else if (fileCounts[name] === 1) {
      ranges[0] = start
      ranges[1] = end
      n = 2
    } else {
      for (const f of importedFiles) {
        const lo = index.firstInFile(name, f)
        if (lo < end && entryFile[lo] === f) {
          ranges[n++] = lo
          ranges[n++] = index.endInFile(lo, end)
        }
      }
      if (n === 0 && fileCounts[name] <= AMBIGUITY_LIMIT) {
        ranges[0] = start
        ranges[1] = end
        n = 2
      }
    }
    let targets = 0
    for (let k = 0; k < n; k += 2) targets += ranges[k + 1] - ranges[k]
    if (targets === 0) continue
    const w = (Math.sqrt(refCount[i]) * (table.strings.firstCharCode(name) === 95 ? PRIVATE_WEIGHT : 1)) / targets
    const fromDef = refFrom[i]
    const fromName = fromDef < 0 ? -1 : defQName[file.def0 + fromDef]
    for (let k = 0; k < n; k += 2) {
      for (let e = ranges[k]; e < ranges[k + 1]; e++) {
        const target = files[entryFile[e]]!
        const targetName = target.cols.defQName[target.def0 + entryDef[e]]
        // Recursion is not a dependency.
        if (target === file && targetName === fromName) continue
        buffer.push(fromDef, target.pathId, targetName, refKind[i], refCount[i], w)
      }
    }
  }
  return buffer.take(chunks)
}

/**
 * Imported files by path id, with how many import statements reach each; a package import
 * spreads one unit of weight over the package's files.
 */
function importEdges(table: SymbolTable, file: FileSymbols): Map<number, { count: number; weight: number }> {
  const out = new Map<number, { count: number; weight: number }>()
  const { importTarget, importIsDir } = file.cols
  for (let i = file.import0; i < file.import0 + file.imports; i++) {
    const target = importTarget[i]
    if (target < 0) continue
    const paths = importIsDir[i] ? table.paths().filesIn(table.strings.get(target)).filter((p) => p !== file.path) : [table.strings.get(target)]
    for (const path of paths) {
      const id = table.strings.id(path)
      const edge = out.get(id)
      if (edge) {
        edge.count++
        edge.weight += 1 / paths.length
      } else out.set(id, { count: 1, weight: 1 / paths.length })
    }
  }
  return out
}
