/**
 * The stored code graph (`graph` record, version 5), laid out so a query reads what it needs: the
 * rank of a definition (`def` breaking a tie) or of a file (search's ranking) reads the ranks of
 * that file's slice of files, and the default repo map's ranking reads every slice, not the edges,
 * and never the whole symbol table. A focused or scoped map on a large graph walks out-edges from
 * its files by node number (`sliceOutEdges`), reading the edges blocks of the slices it reaches.
 * Anything needing every edge (exact personalised PageRank on a small graph; a build patching the
 * graph) reads every edges block and the whole table.
 *
 * A block record (block-file.ts); its directory's meta is { files, nodes, edges, filesPerSlice }
 * and, for each slice s of files [s × filesPerSlice, (s + 1) × filesPerSlice) in path order, two
 * blocks:
 *   s           its ranks: { bases, ranks }, the first node of each of its files and the slice's
 *               end (a file's node, then its symbols' in definition order; numbered over the whole
 *               graph) and PageRank by node
 *   slices + s  its edges: { edgeCounts, from, type, count, weight, fromNode, toNode }, the edges
 *               of each of its files: the defining source (EdgeColumns' `from`), its node within
 *               the file (0 the file's, 1 + s its symbol s'), the target node, and the edge's type,
 *               count and weight. A whole load names each target again by its file's path and its
 *               qualified name (EdgeColumns' toPath, toName) from the table's node numbering.
 * (4: targets by path and name, no nodes: walking out-edges meant numbering every file's nodes,
 * the whole table; storing both made Linux 10k's graph 5.2 MB, its `.vlt/` larger than its source.
 * 
 * 3: one edges block for all files, packed from a snapshot of the whole graph: at Linux's 8.8 M
 * edges the snapshot and its packing held ~500 MB at the end of a build. 2: one ranks block for all
 * files: decompressing Linux's 3.5 M ranks was half of a cold `def kmalloc`. 1: one msgpack snapshot,
 * decoded whole, with the whole symbol table, by every query.)
 */
import { CorruptFileError } from '../errors.js'
import type { ScratchFile } from '../store/index.js'
import { BlockFile, blockFileParts, BlockSink } from './block-file.js'
import { emptyEdgeColumns, type EdgeColumns } from './edges.js'
import { targetFits } from './node-numbering.js'

export const GRAPH_KIND = 'graph'
export const GRAPH_VERSION = 5

interface Meta {
  files: number
  nodes: number
  edges: number
  filesPerSlice: number
}

/** Node numbering and PageRank of a stored graph (or of a slice of its files). */
export interface StoredRanks {
  bases: Uint32Array
  ranks: Float64Array
}

/** One file's nodes: the number of its first, and their ranks (its own node's first). */
export interface FileNodes {
  base: number
  ranks: Float64Array
}

/** The edges of some files (in path order) as stored: `edgeCounts[f]` rows each, back to back in the columns. */
export interface SliceEdges extends Omit<EdgeColumns, 'toPath' | 'toName'> {
  edgeCounts: Uint32Array
  /** Each edge's source node within its file: 0 the file's own, 1 + s its symbol s (`from` numbers definitions, several of which may share a node). */
  fromNode: Uint32Array
  /** Each edge's target by node number. */
  toNode: Uint32Array
}

/** A slice's out-edges by node: those of node `first + n` are rows [starts[n], starts[n + 1]). */
export interface SliceOutEdges {
  /** The slice's first node. */
  first: number
  starts: Uint32Array
  targets: Uint32Array
  weights: Float64Array
}

/** A graph's node numbering and ranks, as stored. */
export interface RankedNodes {
  /** The first node of each file in path order, and the node count at the end. */
  bases: Uint32Array
  /** PageRank by node. */
  ranks: Float64Array
}

/** A graph as encodeGraphFile reads it: its node numbering and ranks, and its edges a slice of files at a time. */
export interface GraphSource extends RankedNodes {
  /** Files [from, to)'s edges, string ids as the stored symbol table numbers them. */
  edgesOf(from: number, to: number): SliceEdges
}

/** A graph's edges blocks, packed by packGraphEdges ahead of its ranks. */
export interface PackedEdges {
  files: number
  edges: number
  blocks: BlockSink
}

/** Files per slice: Linux's average of ~45 nodes a file makes a slice ~90 KB of ranks, a few hundred slices. */
const FILES_PER_SLICE = 256

/**
 * The record's parts for a graph, its edges taken and packed a slice of files at a time, so a whole
 * graph's edges are never copied at once. `spool`: the blocks go there as they are packed rather than
 * stay in memory (see BlockSink); the parts then read them back, so the spool must stay open until
 * they are written.
 */
export async function encodeGraphFile(graph: GraphSource, opts: { spool?: ScratchFile; edgesSpool?: ScratchFile } = {}): Promise<Iterable<Uint8Array>> {
  return encodeRankedGraph(graph, await packGraphEdges(graph.bases.length - 1, graph.edgesOf, { spool: opts.edgesSpool }), opts)
}

/**
 * The edges blocks of a graph of `files` files, taken from `edgesOf` a slice of files at a time.
 * Packed apart from the ranks, which precede them in the record, so that a build can write its
 * edges out and let go of them before PageRank runs (at Linux's 8.8 M edges ~220 MB, which were
 * alive beside PageRank's arrays at the peak of a build's memory). `spool`: as encodeGraphFile's.
 */
export async function packGraphEdges(files: number, edgesOf: GraphSource['edgesOf'], opts: { spool?: ScratchFile } = {}): Promise<PackedEdges> {
  const layout = { files, filesPerSlice: FILES_PER_SLICE }
  const blocks = new BlockSink(opts.spool)
  let edges = 0
  for (let s = 0; s < sliceCount(layout); s++) {
    const slice = edgesOf(...sliceFiles(layout, s))
    edges += slice.from.length
    await blocks.add(slice)
  }
  return { files, edges, blocks }
}

/** The record's parts for a graph whose edges `packGraphEdges` packed, `nodes` over the same files. */
export async function encodeRankedGraph(nodes: RankedNodes, edges: PackedEdges, opts: { spool?: ScratchFile } = {}): Promise<Iterable<Uint8Array>> {
  const { bases, ranks } = nodes
  const files = bases.length - 1
  if (files !== edges.files) throw new Error(`graph ranks over ${files} files, edges over ${edges.files}`)
  const meta: Meta = { files, nodes: ranks.length, edges: edges.edges, filesPerSlice: FILES_PER_SLICE }
  const blocks = new BlockSink(opts.spool)
  for (let s = 0; s < sliceCount(meta); s++) {
    const [from, to] = sliceFiles(meta, s)
    await blocks.add({ bases: bases.slice(from, to + 1), ranks: ranks.slice(bases[from], bases[to]) })
  }
  return blockFileParts(GRAPH_KIND, GRAPH_VERSION, meta, blocks, edges.blocks)
}

/** A stored graph opened for reading by block. */
export class GraphFile {
  private readonly slices = new Map<number, StoredRanks>()
  private whole: StoredRanks | undefined

  private constructor(private readonly file: BlockFile, readonly meta: Meta) {}

  get path(): string {
    return this.file.path
  }

  /** Checks the record's header and directory; throws CorruptFileError (missing, damaged, another version). */
  static open(path: string): GraphFile {
    const file = BlockFile.open(path, GRAPH_KIND, GRAPH_VERSION)
    const meta = file.meta as Meta
    const shaped = typeof meta === 'object' && meta !== null && [meta.files, meta.nodes, meta.edges].every((n) => Number.isInteger(n) && n >= 0) && Number.isInteger(meta.filesPerSlice) && meta.filesPerSlice > 0
    if (!shaped || file.blockCount !== 2 * sliceCount(meta)) throw new CorruptFileError(path, 'malformed block directory')
    return new GraphFile(file, meta)
  }

  /** File `f`'s nodes (path order), read from its slice alone. */
  fileNodes(f: number): FileNodes {
    if (this.whole) {
      const { bases, ranks } = this.whole
      return { base: bases[f]!, ranks: ranks.subarray(bases[f]!, bases[f + 1]!) }
    }
    const s = Math.floor(f / this.meta.filesPerSlice)
    const { bases, ranks } = this.slice(s)
    const at = f - s * this.meta.filesPerSlice
    return { base: bases[at]!, ranks: ranks.subarray(bases[at]! - bases[0]!, bases[at + 1]! - bases[0]!) }
  }

  /** How many edges leave the files numbered `files` (path order, each once), each slice's edges block read once. */
  edgeCountOf(files: Iterable<number>): number {
    const bySlice = new Map<number, number[]>()
    for (const f of files) {
      const s = this.sliceOf(f)
      const listed = bySlice.get(s)
      if (listed) listed.push(f)
      else bySlice.set(s, [f])
    }
    let count = 0
    for (const [s, listed] of bySlice) {
      const { edgeCounts } = this.readEdges(s, 0)
      const [from] = sliceFiles(this.meta, s)
      for (const f of listed) count += edgeCounts[f - from]!
    }
    return count
  }

  /** The slice holding file `f` (path order). */
  sliceOf(f: number): number {
    return Math.floor(f / this.meta.filesPerSlice)
  }

  /**
   * Slice `s`'s out-edges grouped by source node, read from its edges block and numbered by
   * `bases` (every file's first node, as `ranks()` gives them), without the symbol table. A caller walking out-edges keeps these rather than the block: a
   * walk from many files (a scoped map) meets a slice again and again, and decoding its block each
   * time cost more than the walk (Linux, a map of drivers/: minutes).
   */
  sliceOutEdges(s: number, bases: Uint32Array): SliceOutEdges {
    const [from, to] = sliceFiles(this.meta, s)
    const edges = this.readEdges(s, 0)
    const first = bases[from]!
    const nodes = bases[to]! - first
    const fail = (f: number, what: string): never => {
      throw new CorruptFileError(this.path, `graph edges of file ${f} ${what}`)
    }
    // A counting sort of the slice's rows by source node.
    const starts = new Uint32Array(nodes + 1)
    const sourceOf = new Uint32Array(edges.from.length)
    for (let f = from, e = 0; f < to; f++) {
      const own = bases[f + 1]! - bases[f]!
      for (const end = e + edges.edgeCounts[f - from]!; e < end; e++) {
        if (edges.fromNode[e]! >= own) fail(f, 'come from a node it does not have')
        if (edges.toNode[e]! >= this.meta.nodes) fail(f, 'name a node the graph does not have')
        sourceOf[e] = bases[f]! - first + edges.fromNode[e]!
        starts[sourceOf[e]! + 1]++
      }
    }
    for (let n = 0; n < nodes; n++) starts[n + 1] += starts[n]!
    const fill = starts.slice(0, nodes)
    const targets = new Uint32Array(starts[nodes]!)
    const weights = new Float64Array(starts[nodes]!)
    for (let e = 0; e < edges.from.length; e++) {
      const at = fill[sourceOf[e]!]!++
      targets[at] = edges.toNode[e]!
      weights[at] = edges.weight[e]!
    }
    return { first, starts, targets, weights }
  }

  /** The node bases and ranks of every file: all slices, joined. */
  ranks(): StoredRanks {
    if (!this.whole) {
      const { files, nodes } = this.meta
      const bases = new Uint32Array(files + 1)
      const ranks = new Float64Array(nodes)
      for (let s = 0; s < sliceCount(this.meta); s++) {
        const slice = this.slice(s)
        const first = s * this.meta.filesPerSlice
        if (slice.bases[0] !== bases[first]) throw new CorruptFileError(this.path, `graph rank slice ${s} does not follow the one before`)
        bases.set(slice.bases, first)
        ranks.set(slice.ranks, slice.bases[0])
      }
      if (bases[files] !== nodes) throw new CorruptFileError(this.path, 'malformed graph ranks')
      this.whole = { bases, ranks }
      this.slices.clear()
    }
    return this.whole
  }

  /** Every slice's edges joined, and the ranks (CodeGraph.load names their targets again). */
  joinedEdges(): SliceEdges & { ranks: Float64Array } {
    const slices = sliceCount(this.meta)
    const joined = { ...emptyStoredColumns(this.meta.edges), edgeCounts: new Uint32Array(this.meta.files) }
    let at = 0
    for (let s = 0; s < slices; s++) {
      const block = this.readEdges(s, at)
      joined.edgeCounts.set(block.edgeCounts, sliceFiles(this.meta, s)[0])
      for (const key of STORED_COLUMNS) joined[key].set(block[key] as never, at)
      at += block.from.length
    }
    if (at !== this.meta.edges) throw new CorruptFileError(this.path, 'graph edges disagree with the directory')
    return { ...joined, ranks: this.ranks().ranks }
  }

  /**
   * Reads and checks every block as `ranks()` and `joinedEdges()` (with CodeGraph.load) would,
   * one slice at a time, none kept (`verify`), against the stored symbol table: its files' node
   * counts (checkStoredTable's).
   */
  checkBlocks(nodesPerFile: Uint32Array): void {
    const fail = (reason: string): never => {
      throw new CorruptFileError(this.path, reason)
    }
    if (nodesPerFile.length !== this.meta.files) fail('graph does not match the symbol table')
    const fileBases = new Uint32Array(this.meta.files + 1)
    for (let f = 0; f < this.meta.files; f++) fileBases[f + 1] = fileBases[f]! + nodesPerFile[f]!
    let next = 0
    let at = 0
    for (let s = 0; s < sliceCount(this.meta); s++) {
      const [from, to] = sliceFiles(this.meta, s)
      const { bases } = this.readSlice(s)
      if (bases[0] !== next) fail(`graph rank slice ${s} does not follow the one before`)
      for (let f = from; f < to; f++) if (bases[f - from + 1]! - bases[f - from]! !== nodesPerFile[f]) fail(`graph ranks do not match the symbols of file ${f}`)
      next = bases[to - from]!
      const edges = this.readEdges(s, at)
      for (let e = 0; e < edges.from.length; e++) if (!targetFits(fileBases, edges.toNode[e]!, edges.type[e]!)) fail('graph edges name a node the graph does not have')
      for (let f = from, e = 0; f < to; f++) {
        for (const end = e + edges.edgeCounts[f - from]!; e < end; e++) if (edges.fromNode[e]! >= nodesPerFile[f]!) fail(`graph edges of file ${f} come from a node it does not have`)
      }
      at += edges.from.length
    }
    if (next !== this.meta.nodes) fail('malformed graph ranks')
    if (at !== this.meta.edges) fail('graph edges disagree with the directory')
  }

  /** The edges block of slice `s`, checked: its files' counts add up to its rows, which fit in the graph's edges after the `before` of the slices before it. */
  private readEdges(s: number, before: number): SliceEdges {
    const [from, to] = sliceFiles(this.meta, s)
    const block = this.file.read(sliceCount(this.meta) + s) as SliceEdges
    const rows = block?.from?.length
    const shaped = block?.edgeCounts instanceof Uint32Array && block.edgeCounts.length === to - from && block.edgeCounts.reduce((sum, count) => sum + count, 0) === rows &&
      STORED_COLUMNS.every((key) => block[key] instanceof STORED_SHAPE[key].constructor && block[key].length === rows) && before + rows <= this.meta.edges
    if (!shaped) throw new CorruptFileError(this.path, `malformed graph edges of slice ${s}`)
    return block
  }

  private slice(s: number): StoredRanks {
    let slice = this.slices.get(s)
    if (!slice) this.slices.set(s, (slice = this.readSlice(s)))
    return slice
  }

  /** Slice `s`, checked against the directory: its files' bases ascend within the graph's nodes, one rank per node. */
  private readSlice(s: number): StoredRanks {
    const { files, nodes, filesPerSlice } = this.meta
    const count = Math.min(files, (s + 1) * filesPerSlice) - s * filesPerSlice
    const block = this.file.read(s) as StoredRanks
    const { bases, ranks } = block ?? {}
    const shaped = bases instanceof Uint32Array && ranks instanceof Float64Array && bases.length === count + 1 && bases[count]! <= nodes && ranks.length === bases[count]! - bases[0]! && bases.every((base, i) => i === 0 || base > bases[i - 1]!)
    if (!shaped) throw new CorruptFileError(this.path, `malformed graph rank slice ${s}`)
    return block
  }
}

/** The edge columns' types, which a slice's edges block must have. */
const STORED_SHAPE = emptyStoredColumns(0)
const STORED_COLUMNS = Object.keys(STORED_SHAPE) as Array<keyof typeof STORED_SHAPE>

function emptyStoredColumns(rows: number): Omit<SliceEdges, 'edgeCounts'> {
  const { from, type, count, weight } = emptyEdgeColumns(rows)
  return { from, type, count, weight, fromNode: new Uint32Array(rows), toNode: new Uint32Array(rows) }
}

type SliceLayout = Pick<Meta, 'files' | 'filesPerSlice'>

/** Slices of a graph's files: at least one, for an empty graph's bases. */
function sliceCount(meta: SliceLayout): number {
  return Math.max(1, Math.ceil(meta.files / meta.filesPerSlice))
}

/** The files [from, to) of slice `s`. */
function sliceFiles(meta: SliceLayout, s: number): [number, number] {
  const from = s * meta.filesPerSlice
  return [from, Math.min(meta.files, from + meta.filesPerSlice)]
}
