/**
 * A stored code graph under an OverlaidTable (overlaid-table.ts): ranks answered from the stored
 * ranks, without reading edges, resolving them again or running PageRank (on Linux, 3.4 of a dirty
 * tree's 12 s per cold query).
 *
 * A file laid over keeps its stored ranks where it has them: its file node's, and each symbol's by
 * qualified name. A node the stored graph lacks (a new file, a new definition) is ranked the mean,
 * 1 / nodes, and a path removed 0: a few files move the ranks of a large graph too little to compute
 * them again for every query. Ranks are exact instead (the set materialised on first use, see
 * layOver) where that costs little or the guess would be poor: a graph of at most EXACT_RANKS_NODES
 * nodes, or files laid over beyond MAX_LAID_SHARE of its files. A personalised map pushes rank over
 * the stored out-edges (`localPersonalizedRanks`); anything else needing the edges (`load`: the graph
 * in graphology) materialises the set too.
 */
import type { GraphFile } from './graph-file.js'
import { CodeGraph, EXACT_RANKS_NODES, parseKey, type ExtraNodes } from './code-graph.js'
import { laidEdgeCount } from './laid-edge-count.js'
import { fileOfNode } from './node-numbering.js'
import type { OverlaidTable, TableView } from './overlaid-table.js'

export { EXACT_RANKS_NODES }
/**
 * Files laid over beyond this share of the stored files are ranked again exactly: the stored ranks
 * would then say little (a delta tree of a small repository can differ from its anchor in most files).
 * A delta tree of a large one is at most 2 % of its files (index/build.ts, deltaLimit).
 */
export const MAX_LAID_SHARE = 0.02

export class OverlaidGraph extends CodeGraph {
  private view: TableView | undefined
  /** The stored graph over the stored table, numbered as stored. */
  private readonly base: CodeGraph
  /** The layout by the overlaid table's file numbers (see layout), with the node keys of the laid files by file number. */
  private merged: { bases: Uint32Array; laidKeys: Map<number, string[]>; ranks?: Float64Array } | undefined
  /** storedFileOf's answers for the laid files, by the view's file number: each a lookup per name of the file. */
  private readonly laidInStored = new Map<number, { file: number; offsets: Int32Array }>()
  /** The stored graph file, kept after `stored` is let go (load). */
  private readonly storedFile: GraphFile
  /** The edge count from the view (null: it takes materialising), once asked. */
  private laidEdges: number | null | undefined

  constructor(stored: GraphFile, symbols: OverlaidTable, view: TableView) {
    super(symbols)
    this.base = CodeGraph.open(stored, view.base)
    this.stored = stored
    this.storedFile = stored
    this.view = view
  }

  /** Forgets the view (see OverlaidTable.dropView). */
  dropView(): void {
    this.view = undefined
    this.merged = undefined
    this.laidInStored.clear()
  }

  override load(): void {
    if (this.view) this.view.materialize()
    else super.load()
  }

  /** Counted from the view where that takes reading a few files (see laid-edge-count.ts), else from the materialised graph. */
  override get edgeCount(): number {
    if (this.view) {
      this.laidEdges ??= laidEdgeCount(this.view, this.storedFile) ?? null
      if (this.laidEdges !== null) return this.laidEdges
      this.view.materialize()
    }
    return super.edgeCount
  }

  override get nodeCount(): number {
    if (!this.ranksFromView()) return super.nodeCount
    const { bases } = this.layout(false)
    return bases[bases.length - 1]!
  }

  override rank(key: string): number {
    const view = this.ranksFromView()
    if (!view) return super.rank(key)
    const parsed = parseKey(key)
    if (!parsed || !view.hidden.has(parsed.path)) return this.base.rank(key)
    const laid = view.extra()
    if (!laid.hasFile(parsed.path)) return 0
    if (parsed.qualifiedName !== undefined && laid.symbolNodeOffset(parsed.path, parsed.qualifiedName) < 0) return 0
    return this.base.rank(key) || this.meanRank()
  }

  override fileRank(path: string): number {
    const view = this.ranksFromView()
    if (!view) return super.fileRank(path)
    if (!view.hidden.has(path)) return this.base.fileRank(path)
    let sum = 0
    for (const key of this.laidNodeKeys(path)) sum += this.rank(key)
    return sum
  }

  override nodeBases(): Uint32Array {
    return this.ranksFromView() ? this.layout(false).bases : super.nodeBases()
  }

  override nodeRanks(): Float64Array {
    return this.ranksFromView() ? this.layout(true).ranks! : super.nodeRanks()
  }

  /**
   * The local push over the stored graph, the teleport translated to its numbering and the ranks
   * back: a laid file's nodes by path and qualified name, as `rank` matches them, so its stored
   * out-edges stand for its own. A node the stored graph lacks (a new file or definition) is pushed
   * beside the stored ones, over its own out-edges as the table laid over resolves them
   * (`laidNodes`). Ranks reaching a removed path or definition are dropped.
   */
  override localPersonalizedRanks(teleport: ReadonlyMap<number, number>, minNodes = EXACT_RANKS_NODES): Map<number, number> | null {
    const view = this.ranksFromView()
    if (!view) return super.localPersonalizedRanks(teleport, minNodes)
    if (this.base.nodeCount <= minNodes) return null
    const { bases } = this.layout(false)
    const storedBases = this.base.nodeBases()
    const laid = this.laidNodes(bases, storedBases)
    const storedTeleport = new Map<number, number>()
    for (const [node, weight] of teleport) {
      if (!(weight > 0)) continue
      const target = this.storedNodeOf(node, bases, storedBases)
      const at = target >= 0 ? target : laid.idOf.get(node)
      if (at !== undefined) storedTeleport.set(at, (storedTeleport.get(at) ?? 0) + weight)
    }
    const stored = this.base.localPersonalizedRanks(storedTeleport, minNodes, laid)
    if (!stored) return null
    const ranks = new Map<number, number>()
    const storedNodes = this.base.nodeCount
    const { storedToView } = view.ordering()
    const laidBack = new Map<number, { file: number; offsets: Map<number, number> }>()
    for (const [node, rank] of stored) {
      if (node >= storedNodes) {
        const at = laid.viewNodes[node - storedNodes]!
        ranks.set(at, (ranks.get(at) ?? 0) + rank)
        continue
      }
      const s = fileOfNode(storedBases, node)
      let f = storedToView[s]!
      let offset = node - storedBases[s]!
      if (f < 0) {
        let back = laidBack.get(s)
        if (!back) {
          const file = this.symbols.fileNumber(view.base.pathAt(s))
          const offsets = new Map<number, number>()
          if (file >= 0) this.storedFileOf(file).offsets!.forEach((from, to) => from >= 0 && offsets.set(from, to))
          laidBack.set(s, (back = { file, offsets }))
        }
        f = back.file
        offset = back.offsets.get(offset) ?? -1
        if (f < 0 || offset < 0) continue
      }
      const at = bases[f]! + offset
      ranks.set(at, (ranks.get(at) ?? 0) + rank)
    }
    return ranks
  }

  /** The stored graph's node for the view's `node`, -1 when it has none (a new file or definition, a removed one). */
  private storedNodeOf(node: number, bases: Uint32Array, storedBases: Uint32Array): number {
    const f = fileOfNode(bases, node)
    const { file, offsets } = this.storedFileOf(f)
    const offset = file < 0 ? -1 : offsets ? offsets[node - bases[f]!]! : node - bases[f]!
    return offset < 0 ? -1 : storedBases[file]! + offset
  }

  /**
   * The laid files' nodes as localPersonalizedRanks pushes them, over their out-edges as the table
   * laid over resolves them (TableView.laidOutEdges), resolved when one is first pushed: a node the
   * stored graph has (a laid file's kept definitions, its file node) under its stored number, its
   * stored out-edges replaced; one it lacks (a new file's, a new definition's) numbered on from the
   * stored graph's last node (`idOf`, by view node; `viewNodes` back). A stored node of a laid path
   * with no node as laid (a removed file or definition) has no out-edges: what reaches it jumps.
   */
  private laidNodes(bases: Uint32Array, storedBases: Uint32Array): ExtraNodes & { idOf: Map<number, number>; viewNodes: number[] } {
    const view = this.view!
    const { order } = view.ordering()
    const storedNodes = this.base.nodeCount
    const idOf = new Map<number, number>()
    const viewNodes: number[] = []
    const fileOf: number[] = []
    /** Stored file number → the view's file number of its path laid over (-1: removed). */
    const laidStored = new Map<number, number>()
    order.forEach((entry, f) => {
      if (entry >= 0) return
      const stored = this.storedFileOf(f).file
      if (stored >= 0) laidStored.set(stored, f)
      for (let node = bases[f]!; node < bases[f + 1]!; node++) {
        if (this.storedNodeOf(node, bases, storedBases) >= 0) continue
        idOf.set(node, storedNodes + viewNodes.length)
        viewNodes.push(node)
        fileOf.push(f)
      }
    })
    for (const path of view.hidden) {
      const stored = view.base.fileNumber(path)
      if (stored >= 0 && !laidStored.has(stored)) laidStored.set(stored, -1)
    }
    const resolved = new Map<number, Map<number, { targets: number[]; weights: number[] }>>()
    const edgesOf = (f: number, node: number): { targets: number[]; weights: number[] } => {
      let edges = resolved.get(f)
      if (!edges) resolved.set(f, (edges = this.laidFileEdges(f, bases, storedBases, idOf)))
      return edges.get(node) ?? { targets: [], weights: [] }
    }
    return {
      idOf,
      viewNodes,
      count: viewNodes.length,
      outEdges: (k) => edgesOf(fileOf[k]!, storedNodes + k),
      storedOutEdges: (node) => {
        // Asked of every stored node pushed: most pushes (a new file's) replace no stored file's edges.
        if (laidStored.size === 0) return undefined
        const f = laidStored.get(fileOfNode(storedBases, node))
        if (f === undefined) return undefined
        return f < 0 ? { targets: [], weights: [] } : edgesOf(f, node)
      },
    }
  }

  /**
   * The out-edges of the laid file `f` (view numbering) by source node, sources and targets in the
   * push's numbering (see laidNodes): the stored graph's node where it has one, else the number
   * `idOf` gives the laid node. Parallel edges are summed, and a node's edges to itself left out, as
   * the stored graph's are.
   */
  private laidFileEdges(f: number, bases: Uint32Array, storedBases: Uint32Array, idOf: ReadonlyMap<number, number>): Map<number, { targets: number[]; weights: number[] }> {
    const view = this.view!
    const path = view.pathOfEntry(view.ordering().order[f]!)
    const namesOf = new Map<string, string[]>()
    /** A laid file's node (view numbering) for its file (null) or a qualified name: -1 when it has none. */
    const laidNode = (at: string, name: string | null): number => {
      const file = this.symbols.fileNumber(at)
      if (file < 0) return -1
      if (name === null) return bases[file]!
      let names = namesOf.get(at)
      if (!names) namesOf.set(at, (names = this.laidNodeNames(at)))
      const k = names.indexOf(name)
      return k < 0 ? -1 : bases[file]! + 1 + k
    }
    /** A laid node's number in the push. */
    const pushed = (node: number): number => {
      const stored = this.storedNodeOf(node, bases, storedBases)
      return stored >= 0 ? stored : (idOf.get(node) ?? -1)
    }
    const pushNode = (at: string, name: string | null): number => {
      if (view.hidden.has(at)) {
        const node = laidNode(at, name)
        return node < 0 ? -1 : pushed(node)
      }
      const file = view.base.fileNumber(at)
      const offset = file < 0 ? -1 : name === null ? 0 : view.base.symbolNodeOffset(at, name)
      return offset < 0 ? -1 : storedBases[file]! + (name === null ? 0 : 1 + offset)
    }
    const out = new Map<number, Map<number, number>>()
    for (const edge of view.laidOutEdges(path)) {
      const source = laidNode(path, edge.from)
      const from = source < 0 ? -1 : pushed(source)
      const target = pushNode(edge.toPath, edge.toName)
      if (from < 0 || target < 0 || target === from) continue
      let targets = out.get(from)
      if (!targets) out.set(from, (targets = new Map()))
      targets.set(target, (targets.get(target) ?? 0) + edge.weight)
    }
    return new Map([...out].map(([from, targets]) => [from, { targets: [...targets.keys()], weights: [...targets.values()] }]))
  }

  /**
   * The stored file number of the view's file `f` (−1 when the stored table lacks its path) and,
   * for a laid file, the stored offset of each of its nodes (−1 where the stored file lacks the
   * name); null offsets: the same as the view's.
   */
  private storedFileOf(f: number): { file: number; offsets: Int32Array | null } {
    const view = this.view!
    const entry = view.ordering().order[f]!
    if (entry >= 0) return { file: entry, offsets: null }
    let found = this.laidInStored.get(f)
    if (!found) {
      const path = view.pathOfEntry(entry)
      const file = view.base.fileNumber(path)
      const names = this.laidNodeNames(path)
      const offsets = new Int32Array(1 + names.length).fill(-1)
      if (file >= 0) {
        offsets[0] = 0
        names.forEach((name, k) => {
          const offset = view.base.symbolNodeOffset(path, name)
          if (offset >= 0) offsets[1 + k] = 1 + offset
        })
      }
      this.laidInStored.set(f, (found = { file, offsets }))
    }
    return found
  }

  /** The view, when ranks are answered from it; otherwise the set is materialised (once) and undefined returned. */
  private ranksFromView(): TableView | undefined {
    const { view } = this
    if (!view) return undefined
    if (this.base.nodeCount > EXACT_RANKS_NODES && view.hidden.size <= MAX_LAID_SHARE * view.base.fileCount) return view
    view.materialize()
    return undefined
  }

  /** The node keys of a laid file, in node order: its file node, then each distinct qualified name (as FileSymbols numbers them). */
  private laidNodeKeys(path: string): string[] {
    return [`f:${path}`, ...this.laidNodeNames(path).map((name) => `s:${path}#${name}`)]
  }

  /** A laid file's distinct qualified names, in the order of its symbol nodes. */
  private laidNodeNames(path: string): string[] {
    const names = new Set<string>()
    for (const def of this.view!.extra().definitions(path)) names.add(def.qualifiedName)
    return [...names]
  }

  private meanRank(): number {
    return 1 / Math.max(1, this.base.nodeCount)
  }

  /**
   * Node bases (and ranks, if asked) by the overlaid table's file numbers: the stored files' slices
   * of the stored ranks, the laid files' ranked as `rank` ranks them. For the map, which ranks
   * every file (the ranks are as large as the stored ones: Linux, 35 MB). The bases are numbered
   * once; the ranks are laid out over them when first asked for.
   */
  private layout(withRanks: boolean): { bases: Uint32Array; ranks?: Float64Array } {
    const view = this.view!
    const { order } = view.ordering()
    const storedBases = this.base.nodeBases()
    if (!this.merged) {
      const laidKeys = new Map<number, string[]>()
      const bases = new Uint32Array(order.length + 1)
      order.forEach((entry, f) => {
        let nodes: number
        if (entry >= 0) nodes = storedBases[entry + 1]! - storedBases[entry]!
        else {
          const keys = this.laidNodeKeys(view.pathOfEntry(entry))
          laidKeys.set(f, keys)
          nodes = keys.length
        }
        bases[f + 1] = bases[f]! + nodes
      })
      this.merged = { bases, laidKeys }
    }
    const merged = this.merged
    if (withRanks && !merged.ranks) {
      const { bases, laidKeys } = merged
      const stored = this.base.nodeRanks()
      const ranks = new Float64Array(bases[order.length]!)
      order.forEach((entry, f) => {
        if (entry >= 0) ranks.set(stored.subarray(storedBases[entry]!, storedBases[entry + 1]!), bases[f]!)
        else laidKeys.get(f)!.forEach((key, node) => (ranks[bases[f]! + node] = this.rank(key)))
      })
      merged.ranks = ranks
    }
    return merged
  }
}
