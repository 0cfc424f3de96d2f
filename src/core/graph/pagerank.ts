/**
 * PageRank over typed edge arrays. graphology-metrics' pagerank walks graphology's per-node
 * objects and edge iterators; on a 200k-node, million-edge graph that is seconds and hundreds
 * of megabytes (bench/aggregates-bench.ts), while these loops take milliseconds per iteration.
 */
export interface WeightedEdges {
  nodes: number
  src: Uint32Array
  dst: Uint32Array
  weight: Float64Array
}

export interface PagerankOptions {
  damping?: number
  /** Stop when the L1 change of an iteration falls below this. */
  tolerance?: number
  maxIterations?: number
  /** Teleport (and dangling-node) distribution, any non-negative weights; uniform when absent. */
  personalization?: Float64Array
  /**
   * Ranks to start iterating from, e.g. those before a small patch: the result is the same fixed
   * point within `tolerance`, reached in a few iterations instead of dozens. Uniform when absent.
   */
  initial?: Float64Array
}

export const PAGERANK_DAMPING = 0.85
export const PAGERANK_TOLERANCE = 1e-6
const PAGERANK_MAX_ITERATIONS = 100

/**
 * The edges regrouped by target (a counting sort), each with its share of its source's out-weight,
 * so each iteration writes ranks in order and only reads sources at random — about twice as fast
 * as scattering along the edge list. Independent of the teleport distribution: a graph ranked
 * with many personalisations (repo maps of different scopes) prepares it once.
 */
export interface PreparedEdges {
  nodes: number
  inStarts: Uint32Array
  inSource: Uint32Array
  inShare: Float64Array
  /** Nodes without out-edges, in order. */
  dangling: Uint32Array
  /** Out-edges grouped by source (for `reachable`), built on first need. */
  out?: { starts: Uint32Array; targets: Uint32Array }
}

/** Every edge, passed to `edge` in the same order each time this is called. */
export type EdgeVisit = (edge: (src: number, dst: number, weight: number) => void) => void

export function prepareEdges(graph: WeightedEdges): PreparedEdges {
  const { src, dst, weight } = graph
  return prepareVisited(graph.nodes, (edge) => {
    for (let e = 0; e < src.length; e++) edge(src[e], dst[e], weight[e])
  })
}

/**
 * `prepareEdges` over edges visited twice (counted, then placed) rather than given as arrays: a
 * graph numbering its edges' nodes as it visits them never holds them all numbered beside their
 * regrouping (Linux: 8.8 M edges, ~185 MB at a build's memory peak).
 */
export function prepareVisited(nodes: number, visit: EdgeVisit): PreparedEdges {
  const outWeight = new Float64Array(nodes)
  const inStarts = new Uint32Array(nodes + 1)
  let edges = 0
  visit((src, dst, weight) => {
    outWeight[src] += weight
    inStarts[dst + 1]++
    edges++
  })
  for (let v = 0; v < nodes; v++) inStarts[v + 1] += inStarts[v]
  const inSource = new Uint32Array(edges)
  const inShare = new Float64Array(edges)
  // Each node's start serves as its fill cursor, ending where the next node starts: shifted back
  // afterwards, rather than a copy of the starts (Linux: 14 MB) beside the arrays being filled.
  visit((src, dst, weight) => {
    const at = inStarts[dst]++
    inSource[at] = src
    inShare[at] = weight / outWeight[src]
  })
  for (let v = nodes; v > 0; v--) inStarts[v] = inStarts[v - 1]
  inStarts[0] = 0
  let danglingCount = 0
  for (let v = 0; v < nodes; v++) if (outWeight[v] === 0) danglingCount++
  const dangling = new Uint32Array(danglingCount)
  for (let v = 0, d = 0; v < nodes; v++) if (outWeight[v] === 0) dangling[d++] = v
  return { nodes, inStarts, inSource, inShare, dangling }
}

/**
 * Ranks summing to 1 (0 nodes → empty). Deterministic: same edges in the same order, same bits.
 *
 * Rank flows only along edges from where it starts and where jumps land, so a node no path
 * reaches from those stays at exactly 0. Iterating over the reached nodes only therefore gives
 * the same bits (the terms left out are all +0) in a fraction of the time when the teleport is
 * personalised to a small part of the graph (a repo map's scope or focus).
 */
export function pagerank(graph: WeightedEdges | PreparedEdges, options: PagerankOptions = {}): Float64Array {
  const prepared = 'inStarts' in graph ? graph : prepareEdges(graph)
  const { nodes } = prepared
  if (nodes === 0) return new Float64Array(0)
  const teleport = teleportOf(nodes, options.personalization)
  const start = initialRanks(nodes, teleport, options.initial)
  // Uniform jumps land on every node: all of them are reached.
  if (typeof teleport === 'number') return iterate({ ...prepared, teleport, rank: start }, options)
  const active = reachable(prepared, teleport, start)
  if (!active) return iterate({ ...prepared, teleport, rank: start }, options)
  const part = iterate(restrict(prepared, active, teleport, start), options)
  const rank = new Float64Array(nodes)
  for (let i = 0; i < active.length; i++) rank[active[i]] = part[i]
  return rank
}

interface Iteration {
  nodes: number
  inStarts: Uint32Array
  inSource: Uint32Array
  inShare: Float64Array
  dangling: Uint32Array
  teleport: Teleport
  /** The starting ranks, iterated in place. */
  rank: Float64Array
}

function iterate(problem: Iteration, options: PagerankOptions): Float64Array {
  const { nodes, inStarts, inSource, inShare, dangling, teleport } = problem
  const damping = options.damping ?? PAGERANK_DAMPING
  const tolerance = options.tolerance ?? PAGERANK_TOLERANCE
  const maxIterations = options.maxIterations ?? PAGERANK_MAX_ITERATIONS
  let rank: Float64Array = problem.rank
  let next: Float64Array = new Float64Array(nodes)
  const shares = typeof teleport === 'number' ? null : teleport
  const uniform = typeof teleport === 'number' ? teleport : 0
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    // Rank of nodes without out-edges goes where a random jump would.
    let danglingRank = 0
    for (let d = 0; d < dangling.length; d++) danglingRank += rank[dangling[d]]
    const jump = damping * danglingRank + (1 - damping)
    let change = 0
    for (let v = 0; v < nodes; v++) {
      let sum = 0
      for (let e = inStarts[v], end = inStarts[v + 1]; e < end; e++) sum += rank[inSource[e]] * inShare[e]
      const value = damping * sum + jump * (shares ? shares[v] : uniform)
      change += Math.abs(value - rank[v])
      next[v] = value
    }
    const swap = rank
    rank = next
    next = swap
    if (change < tolerance) break
  }
  return rank
}

/**
 * The iteration over `active` nodes alone, renumbered in order: each keeps its in-edges from
 * active nodes in their order (an inactive source adds exactly 0), so its sums are the same.
 */
function restrict(prepared: PreparedEdges, active: Uint32Array, teleport: Float64Array, start: Float64Array): Iteration {
  const { inStarts, inSource, inShare } = prepared
  const count = active.length
  const local = new Int32Array(prepared.nodes).fill(-1)
  for (let i = 0; i < count; i++) local[active[i]] = i
  let bound = 0
  for (let i = 0; i < count; i++) bound += inStarts[active[i] + 1] - inStarts[active[i]]
  const starts = new Uint32Array(count + 1)
  const sources = new Uint32Array(bound)
  const shares = new Float64Array(bound)
  const localTeleport = new Float64Array(count)
  const rank = new Float64Array(count)
  let at = 0
  for (let i = 0; i < count; i++) {
    const v = active[i]
    for (let e = inStarts[v], end = inStarts[v + 1]; e < end; e++) {
      const source = local[inSource[e]]
      if (source < 0) continue
      sources[at] = source
      shares[at++] = inShare[e]
    }
    starts[i + 1] = at
    localTeleport[i] = teleport[v]
    rank[i] = start[v]
  }
  let dangling = 0
  for (let d = 0; d < prepared.dangling.length; d++) if (local[prepared.dangling[d]] >= 0) dangling++
  const localDangling = new Uint32Array(dangling)
  for (let d = 0, k = 0; d < prepared.dangling.length; d++) {
    const v = local[prepared.dangling[d]]
    if (v >= 0) localDangling[k++] = v
  }
  return { nodes: count, inStarts: starts, inSource: sources.subarray(0, at), inShare: shares.subarray(0, at), dangling: localDangling, teleport: localTeleport, rank }
}

/** The nodes reached from those with teleport or starting rank, in order; null when that is all of them. */
function reachable(prepared: PreparedEdges, teleport: Float64Array, start: Float64Array): Uint32Array | null {
  const { nodes } = prepared
  const has = new Uint8Array(nodes)
  let seeds = 0
  for (let v = 0; v < nodes; v++) {
    if (teleport[v] > 0 || start[v] > 0) {
      has[v] = 1
      seeds++
    }
  }
  if (seeds === nodes) return null
  const stack: number[] = []
  for (let v = 0; v < nodes; v++) if (has[v] === 1) stack.push(v)
  const out = outEdges(prepared)
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    for (let e = out.starts[v]; e < out.starts[v + 1]; e++) {
      const target = out.targets[e]
      if (has[target] === 0) {
        has[target] = 1
        stack.push(target)
      }
    }
  }
  let count = 0
  for (let v = 0; v < nodes; v++) count += has[v]
  if (count === nodes) return null
  const list = new Uint32Array(count)
  for (let v = 0, i = 0; v < nodes; v++) if (has[v] === 1) list[i++] = v
  return list
}

/** Out-edges regrouped from the in-edges: `reachable` needs only which targets each source has, not their order. */
function outEdges(prepared: PreparedEdges): NonNullable<PreparedEdges['out']> {
  if (prepared.out) return prepared.out
  const { nodes, inStarts, inSource } = prepared
  const starts = new Uint32Array(nodes + 1)
  for (let e = 0; e < inSource.length; e++) starts[inSource[e] + 1]++
  for (let v = 0; v < nodes; v++) starts[v + 1] += starts[v]
  const fill = starts.slice(0, nodes)
  const targets = new Uint32Array(inSource.length)
  for (let v = 0; v < nodes; v++) {
    for (let e = inStarts[v]; e < inStarts[v + 1]; e++) targets[fill[inSource[e]]++] = v
  }
  prepared.out = { starts, targets }
  return prepared.out
}

function initialRanks(nodes: number, teleport: Teleport, initial: Float64Array | undefined): Float64Array {
  const jumps = (): Float64Array => (typeof teleport === 'number' ? new Float64Array(nodes).fill(teleport) : Float64Array.from(teleport))
  if (!initial || initial.length !== nodes) return jumps()
  let total = 0
  for (let v = 0; v < nodes; v++) total += initial[v]
  if (!(total > 0)) return jumps()
  return initial.map((value) => value / total)
}

/**
 * Where a random jump lands: each node's share, or the one share of every node when uniform (a
 * build's ranking), which spares a vector of the graph's size (Linux: 3.5 M nodes, 28 MB).
 */
type Teleport = number | Float64Array

function teleportOf(nodes: number, personalization: Float64Array | undefined): Teleport {
  let total = 0
  if (personalization) for (const value of personalization) total += value
  if (!personalization || total <= 0) return 1 / nodes
  return personalization.map((value) => value / total)
}

/** A node's out-edges for `localPagerank`: rows [start, end) of `targets` and `weights` (positive); none for a dangling node. */
export interface NodeOutEdges {
  targets: ArrayLike<number>
  weights: ArrayLike<number>
  start: number
  end: number
}

export interface LocalPagerankOptions {
  damping?: number
  /** A node is pushed while the rank it holds back is at least this much per out-edge (see localPagerank). */
  threshold?: number
}

/** Queue entries already pushed from which localPagerank drops them. */
const QUEUE_COMPACTED_FROM = 1 << 16

/** The default push threshold: measured against exact personalised PageRank in test/graph/graph.test.ts and bench/repomap-bench.ts. */
export const LOCAL_PAGERANK_THRESHOLD = 1e-7

/**
 * Personalised PageRank near its teleport nodes, by forward push (Andersen, Chung & Lang, 2006):
 * rank held back at a node (its residual, the teleport weights to begin with) is pushed a node at a
 * time — a 1 − damping part kept as its rank, the rest passed along its out-edges by weight, or,
 * from a node without out-edges, back to the teleport nodes as a random jump would be (pooled until
 * worth a push to each) — until no
 * node holds back `threshold` or more per out-edge (one for a node without any). Only the out-edges
 * of nodes pushed are asked for, so a large stored graph is read around the teleport nodes, not
 * whole. Each rank is at most the exact one, short of it by no more than the residual left; the
 * edges visited number at most 1 / ((1 − damping) × threshold), however many teleport nodes there
 * are (a threshold per push instead let a map of Linux's drivers/, 30k files, push for minutes).
 *
 * `nodes`: the node count, for arrays indexed by node (a stored graph's: faster than maps); every
 * node named must be below it. Returns node → rank for each node pushed. Deterministic: nodes are
 * pushed in first-come order.
 */
export function localPagerank(teleport: ReadonlyMap<number, number>, outEdges: (node: number) => NodeOutEdges, nodes: number, options: LocalPagerankOptions = {}): Map<number, number> {
  const damping = options.damping ?? PAGERANK_DAMPING
  const threshold = options.threshold ?? LOCAL_PAGERANK_THRESHOLD
  let total = 0
  for (const weight of teleport.values()) if (weight > 0) total += weight
  const out = new Map<number, number>()
  if (!(total > 0)) return out
  const jumps = [...teleport].filter(([, weight]) => weight > 0).map(([node, weight]) => [node, weight / total] as const)
  const residual = new Float64Array(nodes)
  const rank = new Float64Array(nodes)
  /** Each node's out-edge count once asked for (+1, so that 0 means not yet known). */
  const degree = new Uint32Array(nodes)
  const queued = new Uint8Array(nodes)
  const queue: number[] = []
  const bar = (node: number): number => threshold * Math.max(1, degree[node]! - 1)
  const add = (node: number, amount: number): void => {
    residual[node] += amount
    if (queued[node] === 0 && residual[node]! >= bar(node)) {
      queued[node] = 1
      queue.push(node)
    }
  }
  for (const [node, share] of jumps) add(node, share)
  const pushed: number[] = []
  // Rank passed on by nodes without out-edges, spread over the teleport nodes once it is worth a
  // push to each of them: spreading every such push at once cost a pass over thousands of teleport
  // nodes for each (a scoped map), most of the whole walk.
  let jumping = 0
  const jumpBar = threshold * jumps.length
  for (let head = 0; ; ) {
    if (jumping >= jumpBar) {
      const spread = jumping
      jumping = 0
      for (const [seed, share] of jumps) add(seed, spread * share)
      continue
    }
    if (head === queue.length) break
    // Nodes pushed are let go of: a wide walk queues millions of them.
    if (head >= QUEUE_COMPACTED_FROM && 2 * head >= queue.length) {
      queue.splice(0, head)
      head = 0
    }
    const node = queue[head++]!
    queued[node] = 0
    const edges = outEdges(node)
    degree[node] = edges.end - edges.start + 1
    const held = residual[node]!
    // Its degree now known, a node may hold less than its bar: it waits for more.
    if (held < bar(node)) continue
    residual[node] = 0
    if (rank[node] === 0) pushed.push(node)
    rank[node] += (1 - damping) * held
    const passed = damping * held
    const { targets, weights, start, end } = edges
    let weight = 0
    for (let e = start; e < end; e++) weight += weights[e]!
    if (weight > 0) for (let e = start; e < end; e++) add(targets[e]!, (passed * weights[e]!) / weight)
    else jumping += passed
  }
  for (const node of pushed) out.set(node, rank[node]!)
  return out
}
