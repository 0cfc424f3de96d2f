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
}

export const PAGERANK_DAMPING = 0.85
export const PAGERANK_TOLERANCE = 1e-6
export const PAGERANK_MAX_ITERATIONS = 100

/** Ranks summing to 1 (0 nodes → empty). Deterministic: same edges in the same order, same bits. */
export function pagerank(graph: WeightedEdges, options: PagerankOptions = {}): Float64Array {
  const { nodes, src, dst, weight } = graph
  const damping = options.damping ?? PAGERANK_DAMPING
  const tolerance = options.tolerance ?? PAGERANK_TOLERANCE
  const maxIterations = options.maxIterations ?? PAGERANK_MAX_ITERATIONS
  if (nodes === 0) return new Float64Array(0)

  const teleport = teleportOf(nodes, options.personalization)
  const outWeight = new Float64Array(nodes)
  for (let e = 0; e < src.length; e++) outWeight[src[e]] += weight[e]
  const share = new Float64Array(src.length)
  for (let e = 0; e < src.length; e++) share[e] = weight[e] / outWeight[src[e]]

  let rank = Float64Array.from(teleport)
  let next = new Float64Array(nodes)
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    // Rank of nodes without out-edges goes where a random jump would.
    let dangling = 0
    for (let v = 0; v < nodes; v++) if (outWeight[v] === 0) dangling += rank[v]
    next.fill(0)
    for (let e = 0; e < src.length; e++) next[dst[e]] += rank[src[e]] * share[e]
    const jump = damping * dangling + (1 - damping)
    let change = 0
    for (let v = 0; v < nodes; v++) {
      const value = damping * next[v] + jump * teleport[v]
      change += Math.abs(value - rank[v])
      next[v] = value
    }
    ;[rank, next] = [next, rank]
    if (change < tolerance) break
  }
  return rank
}

function teleportOf(nodes: number, personalization: Float64Array | undefined): Float64Array {
  let total = 0
  if (personalization) for (const value of personalization) total += value
  if (!personalization || total <= 0) return new Float64Array(nodes).fill(1 / nodes)
  return personalization.map((value) => value / total)
}
