/**
 * The code graph of a tree: file and symbol nodes, typed weighted edges, PageRank.
 *
 * Source of truth is each file's outgoing edges (`FileEdges`), patched by recomputing the edges of
 * the files a change can affect. Node numbering is derived (files in path order, each followed by
 * its distinct qualified names). A patched graph starts PageRank from its previous ranks, so its
 * ranks equal a fresh build's within the PageRank tolerance, in a fraction of the iterations.
 * A graphology graph is built only on request (`toGraphology()`): building one eagerly for 200k
 * nodes and a million edges costs more than the whole incremental budget.
 *
 * A graph opened from its stored form (graph-file.ts) numbers and ranks nodes from the stored
 * ranks alone (a rank by key through the symbol table's lookups by file); anything else reads the
 * edges and the whole table first (`load`).
 */
import { MultiDirectedGraph } from 'graphology'
import { CorruptFileError } from '../errors.js'
import { AMBIGUITY_LIMIT, EDGE_TYPES, edgeChunks, emptyEdgeColumns, IMPORT_EDGE, NO_NODE, resolveFileEdges, type EdgeColumns, type EdgeType, type FileEdges } from './edges.js'
import { localPagerank, pagerank, prepareVisited, type NodeOutEdges, type PreparedEdges } from './pagerank.js'
import type { DefIndex } from './def-index.js'
import { fileOfNode, NodeNumbering, targetFits } from './node-numbering.js'
import { dirname } from './paths.js'
import type { FileSymbols } from './file-symbols.js'
import type { GraphFile, GraphSource, SliceEdges, SliceOutEdges } from './graph-file.js'
import type { SymbolTable, TableChanges } from './symbol-table.js'

export const GRAPH_SNAPSHOT_VERSION = 1

/**
 * A stored graph this small is loaded and ranked exactly where ranks would otherwise be taken from
 * the stored ones or pushed locally: that takes about a tenth of a second.
 */
export const EXACT_RANKS_NODES = 50_000

export interface GraphSnapshot extends EdgeColumns {
  version: typeof GRAPH_SNAPSHOT_VERSION
  /** Edges per file, files in path order. */
  edgeCounts: Uint32Array
  /** PageRank per node in node order. */
  ranks: Float64Array
}

/**
 * Nodes pushed beside a stored graph's (see localPersonalizedRanks), numbered on from its node
 * count: each one's out-edges, to stored nodes or to these, with their weights; and, for a stored
 * node whose file was laid over, the out-edges it has as laid (undefined: its stored ones).
 */
export interface ExtraNodes {
  count: number
  outEdges(k: number): { targets: number[]; weights: number[] }
  storedOutEdges(node: number): { targets: number[]; weights: number[] } | undefined
}

export interface NodeAttributes {
  kind: 'file' | 'symbol'
  path: string
  /** '' for file nodes. */
  qualifiedName: string
  pagerank: number
}

export interface EdgeAttributes {
  type: EdgeType
  count: number
  weight: number
}

export class CodeGraph {
  private readonly edges = new Map<string, FileEdges>()
  /** Where the edges of files resolved in this graph go (see row-chunks.ts). */
  private readonly chunks = edgeChunks()
  private ranks: Float64Array<ArrayBufferLike> = new Float64Array(0)
  /** The node numbering of the table's files as they are (see node-numbering.ts). */
  private numbering: NodeNumbering | undefined
  /** Its first node of each file (see `bases`), kept when `resolve` lets go of the rest. */
  private numberedBases: Uint32Array | undefined
  /** The edges regrouped for PageRank, kept for personalised runs. */
  private prepared: PreparedEdges | undefined
  /** Paths (in order) and node bases the current ranks were computed over: the warm start of the next update. */
  private rankedPaths: string[] = []
  private rankedBase: Uint32Array = new Uint32Array(1)
  /** The stored graph this one was opened from, until something needs its edges. */
  protected stored: GraphFile | undefined

  constructor(readonly symbols: SymbolTable) {}

  /** A view of a stored graph over `symbols` (opened from the same tree): blocks are read as needed. */
  static open(stored: GraphFile, symbols: SymbolTable): CodeGraph {
    if (stored.meta.files !== symbols.fileCount) throw new CorruptFileError(stored.path, 'graph does not match the symbol table')
    const graph = new CodeGraph(symbols)
    graph.stored = stored
    return graph
  }

  /**
   * Reads the stored edges and the whole symbol table, once, for whatever needs more than a rank;
   * before the table changes, since the stored graph describes the table as stored.
   */
  load(): void {
    const { stored } = this
    if (!stored) return
    const edges = stored.joinedEdges()
    const numbering = NodeNumbering.build(this.symbols.sortedFiles())
    const whole = CodeGraph.fromSnapshot(withTargets(edges, this.symbols, numbering, stored.path), this.symbols, stored.path)
    this.stored = undefined
    this.numbering = numbering
    for (const [path, edges] of whole.edges) this.edges.set(path, edges)
    this.ranks = whole.ranks
    this.rememberLayout()
  }

  get edgeCount(): number {
    if (this.stored) return this.stored.meta.edges
    let count = 0
    for (const edges of this.edges.values()) count += edges.count
    return count
  }

  get nodeCount(): number {
    if (this.stored) return this.stored.meta.nodes
    const base = this.bases()
    return base[base.length - 1]
  }

  /**
   * Recomputes the edges of the files `changes` can affect, then PageRank. Affected: changed
   * files; files whose imports resolve differently; files referencing a name whose definitions
   * changed — all of them when the name is (or was) defined in few enough files to resolve
   * globally, else only those importing a changed file.
   */
  update(changes: TableChanges): void {
    this.resolve(changes)
    this.prepareRanking()
    this.rankNodes()
  }

  /**
   * `update`'s first step, its edges: a build writes them out (`storedEdges`) before they are
   * regrouped for PageRank (`prepareRanking`), then lets go of them (`releaseEdges`) before ranking
   * (`rankNodes`), so that they are never alive beside PageRank's arrays.
   */
  resolve(changes: TableChanges): void {
    this.load()
    this.resolveAffected(changes)
    this.numbering = undefined
    this.numberedBases = undefined
    this.prepared = undefined
  }

  /** The edges regrouped for PageRank (see `resolve`). */
  prepareRanking(): void {
    this.prepared = this.prepareEdges()
    // Only regrouping the edges needs their definitions' nodes (Linux: 4.3 M definitions, ~50 MB, alive
    // through PageRank otherwise): the bases are kept, the rest is numbered again if ever needed.
    this.numberedBases = this.bases()
    this.numbering = undefined
  }

  /** PageRank over the edges `prepareRanking` regrouped, from the previous ranks. */
  rankNodes(): void {
    this.prepared ??= this.prepareEdges()
    this.ranks = pagerank(this.prepared, { initial: this.previousRanks() })
    this.rememberLayout()
  }

  /**
   * The edges of the files `changes` can affect, resolved again (see `update`). A method of its
   * own so that the definitions by name it builds are garbage once it returns, before PageRank.
   */
  private resolveAffected(changes: TableChanges): void {
    const table = this.symbols
    for (const path of changes.changed) this.edges.delete(path)
    const files = table.sortedFiles()
    const dirty = new Set<string>([...changes.changed, ...changes.importsChanged])
    // Removed paths are dirty too, so the dirty set's size says nothing of how many files are left to check.
    let dirtyFiles = 0
    for (const path of dirty) if (table.file(path)) dirtyFiles++
    // Definitions by name, built for this update rather than kept by the table (SymbolTable.nameIndex):
    // resolving is their one use in a build, and a whole tree's (Linux: 4.3 M definitions) would stay
    // alive through PageRank and the writing of the symbol table. Built only if something is resolved.
    let built: DefIndex | undefined
    const byName = (): DefIndex => (built ??= table.buildNameIndex())
    if (changes.dirtyNames.size > 0 && dirtyFiles < files.length) {
      const index = byName()
      const size = table.strings.size
      const global = new Uint8Array(size)
      const local = new Uint8Array(size)
      for (const [name, delta] of changes.dirtyNames) {
        const after = index.fileCounts[name] ?? 0
        local[name] = 1
        if (Math.min(after, after - delta) <= AMBIGUITY_LIMIT) global[name] = 1
      }
      const reached = new Uint8Array(size)
      for (const path of changes.changed) {
        for (const target of [path, dirname(path)]) {
          const id = table.strings.find(target)
          if (id >= 0) reached[id] = 1
        }
      }
      for (const file of files) {
        if (dirty.has(file.path)) continue
        const { importTarget, refName } = file.cols
        let importsChanged = false
        for (let i = file.import0; i < file.import0 + file.imports && !importsChanged; i++) importsChanged = importTarget[i] >= 0 && reached[importTarget[i]] === 1
        for (let i = file.ref0; i < file.ref0 + file.refs; i++) {
          const name = refName[i]
          if (global[name] || (importsChanged && local[name])) {
            dirty.add(file.path)
            break
          }
        }
      }
    }
    for (const path of dirty) {
      const file = table.file(path)
      if (file) this.edges.set(path, resolveFileEdges(table, file, byName(), this.chunks))
    }
  }

  /**
   * Lets go of the edges ranking was computed over (rebuilt by the next personalised run, if
   * any): a build writing the graph out has no more use for them, and at Linux 10k they are tens
   * of megabytes while the symbol table is encoded, the peak of its memory.
   */
  releaseRanking(): void {
    this.prepared = undefined
  }

  /**
   * Lets go of the edges once a build has written them out (`storedEdges`) and regrouped them
   * (`prepareRanking`), before it ranks: at Linux's 8.8 M edges ~220 MB, alive beside PageRank's
   * arrays at a build's memory peak otherwise. The graph has no edges afterwards.
   */
  releaseEdges(): void {
    this.edges.clear()
  }

  /**
   * Lets go of the edges and ranks once a build has written the graph out (saveAggregates) and is
   * about to drop it: at Linux's 8.8 M edges ~220 MB, which would otherwise stay alive while the
   * symbol table is encoded. The graph is empty afterwards.
   */
  release(): void {
    this.edges.clear()
    this.ranks = new Float64Array(0)
    this.numbering = undefined
    this.numberedBases = undefined
    this.prepared = undefined
    this.rankedPaths = []
    this.rankedBase = new Uint32Array(1)
  }

  /** The last ranks laid over the current nodes: a file keeps its ranks if its node count did not change. */
  private previousRanks(): Float64Array | undefined {
    if (this.ranks.length === 0) return undefined
    const files = this.symbols.sortedFiles()
    const base = this.bases()
    const initial = new Float64Array(base[files.length]).fill(1 / base[files.length])
    const { rankedPaths: oldPaths, rankedBase: oldBase, ranks } = this
    // Both lists are in path order: walk them together.
    for (let f = 0, o = 0; f < files.length && o < oldPaths.length; ) {
      const path = files[f]!.path
      const old = oldPaths[o]!
      if (old < path) o++
      else if (old > path) f++
      else {
        const size = base[f + 1] - base[f]
        if (oldBase[o + 1] - oldBase[o] === size) initial.set(ranks.subarray(oldBase[o], oldBase[o] + size), base[f])
        f++
        o++
      }
    }
    return initial
  }

  private rememberLayout(): void {
    this.rankedPaths = this.symbols.sortedFiles().map((file) => file.path)
    this.rankedBase = this.bases()
  }

  /** PageRank of a node (`f:path`, `s:path#qualifiedName`), 0 when there is no such node. */
  rank(key: string): number {
    if (this.stored) {
      const parsed = parseKey(key)
      const f = parsed ? this.symbols.fileNumber(parsed.path) : -1
      if (!parsed || f < 0) return 0
      const { ranks } = this.stored.fileNodes(f)
      if (parsed.qualifiedName === undefined) return ranks[0]
      const offset = this.symbols.symbolNodeOffset(parsed.path, parsed.qualifiedName)
      if (offset < 0) return 0
      if (1 + offset >= ranks.length) throw new CorruptFileError(this.stored.path, `graph ranks do not match the symbols of ${parsed.path}`)
      return ranks[1 + offset]
    }
    const node = this.nodeOf(key)
    return node < 0 ? 0 : this.ranks[node]
  }

  /** A file's share of PageRank: its own node plus its symbols'. Over all files these sum to 1. */
  fileRank(path: string): number {
    if (this.stored) {
      const f = this.symbols.fileNumber(path)
      let sum = 0
      if (f >= 0) for (const rank of this.stored.fileNodes(f).ranks) sum += rank
      return sum
    }
    const file = this.symbols.file(path)
    if (!file) return 0
    const base = this.bases()
    const f = this.symbols.fileIndexOf(file.pathId)
    let sum = 0
    for (let node = base[f]; node < base[f + 1]; node++) sum += this.ranks[node]
    return sum
  }

  /**
   * PageRank teleporting only to the given nodes (weights need not sum to 1), e.g. the files and
   * symbols a task mentions. Returns every node with a non-zero rank.
   */
  personalizedPageRank(personalization: Map<string, number>): Map<string, number> {
    this.load()
    const vector = new Float64Array(this.nodeCount)
    for (const [key, weight] of personalization) {
      const node = this.nodeOf(key)
      if (node >= 0) vector[node] += weight
    }
    const ranks = this.personalizedRanks(vector)
    const keys = this.nodeKeys()
    const out = new Map<string, number>()
    for (let node = 0; node < ranks.length; node++) if (ranks[node] > 0) out.set(keys[node]!, ranks[node])
    return out
  }

  /**
   * The number of a file's node, -1 when the file is not in the table; its symbol nodes follow
   * it, in `file.symbolNodes()` order. Numbers index `nodeRanks()` and `personalizedRanks()`,
   * for callers ranking many nodes (the repo map), which string keys would slow down.
   */
  fileNode(file: FileSymbols): number {
    const f = this.symbols.fileIndexOf(file.pathId)
    if (f < 0) return -1
    return this.stored ? this.stored.fileNodes(f).base : this.bases()[f]
  }

  /** The node of the symbol named `qualifiedName` (a string id) in `file`, -1 if none. */
  symbolNode(file: FileSymbols, qualifiedName: number): number {
    const base = this.fileNode(file)
    const offset = base < 0 ? -1 : file.nodeOffset(qualifiedName)
    return offset < 0 ? -1 : base + 1 + offset
  }

  /** The tree's PageRank by node number (not to be modified). */
  nodeRanks(): Float64Array {
    if (this.stored) return this.stored.ranks().ranks
    return this.ranks
  }

  /** PageRank teleporting to nodes in proportion to `teleport` (by node number, any non-negative weights). */
  personalizedRanks(teleport: Float64Array): Float64Array {
    this.load()
    this.prepared ??= this.prepareEdges()
    return pagerank(this.prepared, { personalization: teleport })
  }

  /**
   * `personalizedRanks` near the teleport nodes, on a stored graph of more than `minNodes` nodes
   * (EXACT_RANKS_NODES by default), by local push over its stored out-edges (pagerank.ts,
   * localPagerank): node → rank for the nodes reached, without loading the graph or the symbol
   * table. Null where exact ranking is cheap or the edges are loaded anyway: the caller ranks exactly.
   * `extra`: nodes the stored graph lacks (files laid over it), numbered on from its last node.
   */
  localPersonalizedRanks(teleport: ReadonlyMap<number, number>, minNodes = EXACT_RANKS_NODES, extra?: ExtraNodes): Map<number, number> | null {
    const { stored } = this
    if (!stored || stored.meta.nodes <= minNodes) return null
    const bases = stored.ranks().bases
    const slices = new Map<number, SliceOutEdges>()
    const none: NodeOutEdges = { targets: [], weights: [], start: 0, end: 0 }
    const nodes = stored.meta.nodes
    return localPagerank(teleport, (node) => {
      const laid = node >= nodes ? extra!.outEdges(node - nodes) : extra?.storedOutEdges(node)
      if (laid) return { targets: laid.targets, weights: laid.weights, start: 0, end: laid.targets.length }
      const f = fileOfNode(bases, node)
      if (f < 0) return none
      const s = stored.sliceOf(f)
      let out = slices.get(s)
      if (!out) slices.set(s, (out = stored.sliceOutEdges(s, bases)))
      const local = node - out.first
      return { targets: out.targets, weights: out.weights, start: out.starts[local]!, end: out.starts[local + 1]! }
    }, nodes + (extra?.count ?? 0))
  }

  /** The graph in graphology, nodes carrying their `pagerank`, edges their type, count and weight. */
  toGraphology(): MultiDirectedGraph<NodeAttributes, EdgeAttributes> {
    this.load()
    const graph = new MultiDirectedGraph<NodeAttributes, EdgeAttributes>({ allowSelfLoops: false })
    const keys = this.nodeKeys()
    const base = this.bases()
    this.symbols.sortedFiles().forEach((file, f) => {
      graph.addNode(keys[base[f]]!, { kind: 'file', path: file.path, qualifiedName: '', pagerank: this.ranks[base[f]] ?? 0 })
      const names = file.symbolNodes()
      for (let s = 0; s < names.length; s++) {
        const node = base[f] + 1 + s
        graph.addNode(keys[node]!, { kind: 'symbol', path: file.path, qualifiedName: this.symbols.strings.get(names[s]), pagerank: this.ranks[node] ?? 0 })
      }
    })
    this.eachNodeEdge((src, dst, weight, type, count) => {
      if (src !== dst) graph.addEdge(keys[src]!, keys[dst]!, { type: EDGE_TYPES[type]!, count, weight })
    })
    return graph
  }

  /** Canonical form in memory (tests compare graphs so); `remap` renumbers string ids as the symbol table's snapshot did. */
  snapshot(remap: Int32Array): GraphSnapshot {
    this.load()
    const files = this.symbols.sortedFiles()
    const edgeCounts = Uint32Array.from(files, (file) => this.edges.get(file.path)?.count ?? 0)
    const out = emptyEdgeColumns(edgeCounts.reduce((sum, count) => sum + count, 0))
    const mapped = (id: number): number => {
      const to = remap[id]
      if (to === undefined || to < 0) throw new Error(`code graph refers to string ${id} that the symbol table does not use`)
      return to
    }
    let at = 0
    for (const file of files) {
      const edges = this.edges.get(file.path)
      if (!edges) continue
      const c = edges.cols
      for (let e = edges.start; e < edges.start + edges.count; e++, at++) {
        out.from[at] = c.from[e]
        out.toPath[at] = mapped(c.toPath[e])
        out.toName[at] = mapped(c.toName[e])
        out.type[at] = c.type[e]
        out.count[at] = c.count[e]
        out.weight[at] = c.weight[e]
      }
    }
    return { ...out, edgeCounts, version: GRAPH_SNAPSHOT_VERSION, ranks: this.ranks }
  }

  /** The graph as encodeGraphFile reads it. */
  storedSource(): GraphSource {
    return { edgesOf: this.storedEdges(), bases: this.bases(), ranks: this.ranks }
  }

  /** The edges as encodeGraphFile reads them (see `storedSource`), for packGraphEdges. */
  storedEdges(): GraphSource['edgesOf'] {
    this.load()
    return (from, to) => this.edgesOf(from, to)
  }

  /**
   * The edges of files [from, to) in path order as stored: by node, copied into columns of their
   * own. A stale edge (to nothing the graph numbers, never ranked; none after `update`) is left out.
   */
  private edgesOf(from: number, to: number): SliceEdges {
    const files = this.symbols.sortedFiles().slice(from, to)
    const nodes = this.nodes()
    const rows = files.reduce((sum, file) => sum + (this.edges.get(file.path)?.count ?? 0), 0)
    const { from: source, type, count, weight } = emptyEdgeColumns(rows)
    const fromNode = new Uint32Array(rows)
    const toNode = new Uint32Array(rows)
    const edgeCounts = new Uint32Array(files.length)
    let at = 0
    files.forEach((file, i) => {
      const edges = this.edges.get(file.path)
      if (!edges) return
      const c = edges.cols
      const f = from + i
      for (let e = edges.start; e < edges.start + edges.count; e++) {
        const target = targetNode(this.symbols, nodes, c.toPath[e], c.toName[e], c.type[e])
        if (target === NO_NODE) continue
        source[at] = c.from[e]
        fromNode[at] = c.from[e] < 0 ? 0 : nodes.defNode(f, c.from[e]) - nodes.bases[f]!
        toNode[at] = target
        type[at] = c.type[e]
        count[at] = c.count[e]
        weight[at++] = c.weight[e]
        edgeCounts[i]++
      }
    })
    // Stale edges, if any, leave the columns' ends unused.
    return { edgeCounts, from: source.subarray(0, at), type: type.subarray(0, at), count: count.subarray(0, at), weight: weight.subarray(0, at), fromNode: fromNode.subarray(0, at), toNode: toNode.subarray(0, at) }
  }

  /** A graph over `symbols` (loaded from the same tree) from `snapshot()`'s data. */
  static fromSnapshot(value: unknown, symbols: SymbolTable, source = 'graph snapshot'): CodeGraph {
    const fail = (reason: string): never => {
      throw new CorruptFileError(source, reason)
    }
    const data = value as GraphSnapshot
    if (typeof data !== 'object' || data === null) fail('not a graph snapshot')
    if (data.version !== GRAPH_SNAPSHOT_VERSION) fail(`unknown graph snapshot version ${String(data.version)}`)
    const files = symbols.sortedFiles()
    if (!(data.edgeCounts instanceof Uint32Array) || data.edgeCounts.length !== files.length) fail('graph snapshot does not match the symbol table')
    const total = data.edgeCounts.reduce((sum, count) => sum + count, 0)
    const shape = emptyEdgeColumns(total)
    for (const key of Object.keys(shape) as Array<keyof EdgeColumns>) {
      const column = data[key]
      if (!(column instanceof shape[key].constructor) || column.length !== total) fail(`graph column ${key} is malformed`)
    }
    if (!(data.ranks instanceof Float64Array)) fail('graph ranks are malformed')
    const strings = symbols.strings.size
    for (let e = 0; e < total; e++) if (data.toPath[e] >= strings || data.toName[e] >= strings) fail('graph snapshot refers to a string the symbol table does not hold')

    const graph = new CodeGraph(symbols)
    const cols: EdgeColumns = { from: data.from, toPath: data.toPath, toName: data.toName, type: data.type, count: data.count, weight: data.weight }
    let start = 0
    files.forEach((file, f) => {
      graph.edges.set(file.path, { cols, start, count: data.edgeCounts[f] })
      start += data.edgeCounts[f]
    })
    if (data.ranks.length !== graph.nodeCount) fail('graph ranks do not match the symbol table')
    graph.ranks = data.ranks
    graph.rememberLayout()
    return graph
  }

  /** The first node of each file in path order, and the node count at the end (stored beside the ranks, and read from there). */
  nodeBases(): Uint32Array {
    if (this.stored) return this.stored.ranks().bases
    return this.bases()
  }

  private bases(): Uint32Array {
    this.numberedBases ??= this.nodes().bases
    return this.numberedBases
  }

  private nodes(): NodeNumbering {
    this.numbering ??= NodeNumbering.build(this.symbols.sortedFiles())
    return this.numbering
  }

  private nodeOf(key: string): number {
    this.load()
    const parsed = parseKey(key)
    const record = parsed && this.symbols.file(parsed.path)
    if (!parsed || !record) return -1
    const base = this.bases()[this.symbols.fileIndexOf(record.pathId)]
    if (parsed.qualifiedName === undefined) return base
    const name = this.symbols.strings.find(parsed.qualifiedName)
    const offset = name < 0 ? -1 : record.nodeOffset(name)
    return offset < 0 ? -1 : base + 1 + offset
  }

  private nodeKeys(): string[] {
    const keys: string[] = []
    for (const file of this.symbols.sortedFiles()) {
      keys.push(`f:${file.path}`)
      for (const name of file.symbolNodes()) keys.push(`s:${file.path}#${this.symbols.strings.get(name)}`)
    }
    return keys
  }

  /** The edges regrouped for PageRank, numbered by node as they are visited (see prepareVisited). */
  private prepareEdges(): PreparedEdges {
    return prepareVisited(this.nodeCount, (edge) => this.eachNodeEdge(edge))
  }

  /** Each edge by node numbers, in file order then each file's edge order. */
  private eachNodeEdge(edge: (src: number, dst: number, weight: number, type: number, count: number) => void): void {
    const table = this.symbols
    const files = table.sortedFiles()
    const nodes = this.nodes()
    const base = nodes.bases
    files.forEach((file, f) => {
      const edges = this.edges.get(file.path)
      if (!edges) return
      const c = edges.cols
      for (let e = edges.start; e < edges.start + edges.count; e++) {
        const from = c.from[e]
        const target = targetNode(table, nodes, c.toPath[e], c.toName[e], c.type[e])
        if (target === NO_NODE) continue
        const src = from < 0 ? base[f] : nodes.defNode(f, from)
        edge(src, target, c.weight[e], c.type[e], c.count[e])
      }
    })
  }
}

/**
 * Stored edges (graph-file.ts, targets by node) as a snapshot names them: each target's file path
 * and qualified name (0 for an import's file), from `numbering`, the node numbering of `symbols`,
 * the table the graph was stored with.
 */
function withTargets(stored: SliceEdges & { ranks: Float64Array }, symbols: SymbolTable, numbering: NodeNumbering, source: string): GraphSnapshot {
  const files = symbols.sortedFiles()
  const { bases } = numbering
  if (stored.ranks.length !== bases[files.length]) throw new CorruptFileError(source, 'graph ranks do not match the symbol table')
  const names = numbering.nodeNames()
  const rows = stored.toNode.length
  const toPath = new Uint32Array(rows)
  const toName = new Uint32Array(rows)
  for (let e = 0; e < rows; e++) {
    const node = stored.toNode[e]!
    if (node >= names.length || !targetFits(bases, node, stored.type[e]!)) throw new CorruptFileError(source, 'graph edges name a node the graph does not have')
    toPath[e] = files[fileOfNode(bases, node)]!.pathId
    toName[e] = names[node]!
  }
  const { edgeCounts, from, type, count, weight, ranks } = stored
  return { version: GRAPH_SNAPSHOT_VERSION, edgeCounts, from, toPath, toName, type, count, weight, ranks }
}

/** The node an edge leads to: its target file's node for an import, else the target definition's; NO_NODE for a stale edge (after update() every target exists). */
function targetNode(table: SymbolTable, nodes: NodeNumbering, toPath: number, toName: number, type: number): number {
  const target = table.fileIndexOf(toPath)
  if (target < 0) return NO_NODE
  if (type === IMPORT_EDGE) return nodes.bases[target]!
  const offset = nodes.offset(target, toName)
  return offset < 0 ? NO_NODE : nodes.bases[target]! + 1 + offset
}

/** A node key's file and, for a symbol's node, its qualified name; null when it is neither form. */
export function parseKey(key: string): { path: string; qualifiedName?: string } | null {
  if (key.startsWith('f:')) return { path: key.slice(2) }
  const hash = key.indexOf('#')
  return key.startsWith('s:') && hash >= 0 ? { path: key.slice(2, hash), qualifiedName: key.slice(hash + 1) } : null
}
