import assert from 'node:assert/strict'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import { AMBIGUITY_LIMIT, CodeGraph, pagerank, prepareEdges, SymbolTable, type FileContent, type WeightedEdges } from '../../src/core/graph/index.js'
import { LOCAL_PAGERANK_THRESHOLD, localPagerank, PAGERANK_DAMPING } from '../../src/core/graph/pagerank.js'
import type { ImportRef, ReferenceKind, SymbolDef, SymbolRef } from '../../src/core/parse/types.js'

function def(name: string, line = 1): SymbolDef {
  return { name, qualifiedName: name, kind: 'function', line, endLine: line, column: 0, signature: '', scope: '' }
}

function ref(name: string, enclosing = '', kind: ReferenceKind = 'call'): SymbolRef {
  return { name, line: 1, column: 0, kind, enclosing }
}

function c(symbols: SymbolDef[], references: SymbolRef[] = [], imports: ImportRef[] = []): FileContent {
  return { language: 'c', symbols, references: toReferenceColumns(references), imports }
}

function build(files: Record<string, FileContent>): CodeGraph {
  const table = new SymbolTable()
  for (const [path, content] of Object.entries(files)) table.addFile(path, content)
  const graph = new CodeGraph(table)
  graph.update(table.commit())
  return graph
}

function edges(graph: CodeGraph): string[] {
  const g = graph.toGraphology()
  return g.mapEdges((_, a, source, target) => `${source} -${a.type}:${a.count}:${Math.round(a.weight * 1000) / 1000}-> ${target}`).sort()
}

describe('CodeGraph', () => {
  it('links references to definitions: same file first, then imported files, then a unique one', () => {
    const graph = build({
      'a.c': c([def('main'), def('helper', 5)], [ref('helper', 'main'), ref('helper', 'main'), ref('helper', 'main'), ref('helper', 'main'), ref('log', 'main'), ref('Point', 'main', 'type'), ref('shared')], [
        { module: 'b.h', names: [], line: 1, relative: true },
      ]),
      'b.h': c([def('shared'), def('Point')]),
      'c.c': c([def('shared'), def('log'), def('helper')]),
    })
    assert.deepEqual(edges(graph), [
      'f:a.c -call:1:1-> s:b.h#shared', // imported b.h beats c.c
      'f:a.c -import:1:1-> f:b.h',
      's:a.c#main -call:1:1-> s:c.c#log', // only definition anywhere
      's:a.c#main -call:4:2-> s:a.c#helper', // same file beats c.c; weight sqrt(4)
      's:a.c#main -type:1:1-> s:b.h#Point',
    ])
    assert.equal(graph.edgeCount, 5)
    assert.equal(graph.nodeCount, 3 + 2 + 2 + 3)
  })

  it(`splits ambiguous names over up to ${AMBIGUITY_LIMIT} definitions and drops generic ones`, () => {
    const files: Record<string, FileContent> = { 'main.c': c([def('main')], [ref('two', 'main'), ref('many', 'main'), ref('_private', 'main')]) }
    for (let i = 0; i < AMBIGUITY_LIMIT + 1; i++) files[`d${i}.c`] = c([def('many'), ...(i < 2 ? [def('two')] : []), ...(i === 0 ? [def('_private')] : [])])
    assert.deepEqual(edges(build(files)), [
      's:main.c#main -call:1:0.1-> s:d0.c#_private',
      's:main.c#main -call:1:0.5-> s:d0.c#two',
      's:main.c#main -call:1:0.5-> s:d1.c#two',
    ])
  })

  it('ranks the most referenced definition highest, ranks summing to 1', () => {
    const files: Record<string, FileContent> = { 'hub.c': c([def('hub')]) }
    for (let i = 0; i < 6; i++) files[`leaf${i}.c`] = c([def(`leaf${i}`)], [ref('hub', `leaf${i}`), ref(`leaf${(i + 1) % 6}`, `leaf${i}`)])
    const graph = build(files)
    const keys = graph.toGraphology().nodes()
    const ranks = keys.map((key) => [key, graph.rank(key)] as const).sort((a, b) => b[1] - a[1])
    assert.equal(ranks[0]![0], 's:hub.c#hub')
    assert.ok(Math.abs(ranks.reduce((sum, [, rank]) => sum + rank, 0) - 1) < 1e-9)
    const fileRanks = Object.keys(files).map((path) => graph.fileRank(path))
    assert.ok(Math.abs(fileRanks.reduce((a, b) => a + b, 0) - 1) < 1e-9)
    assert.equal(Math.max(...fileRanks), graph.fileRank('hub.c'))
    assert.equal(graph.toGraphology().getNodeAttribute('s:hub.c#hub', 'pagerank'), ranks[0]![1])
  })

  it('personalised PageRank favours the personalised node and what it reaches', () => {
    const graph = build({
      'a.c': c([def('a')], [ref('b', 'a')]),
      'b.c': c([def('b')]),
      'x.c': c([def('x')], [ref('y', 'x')]),
      'y.c': c([def('y')]),
    })
    const ranks = graph.personalizedPageRank(new Map([['s:x.c#x', 1]]))
    assert.ok(ranks.get('s:y.c#y')! > ranks.get('s:x.c#x')! * 0.5)
    assert.equal(ranks.get('s:a.c#a'), undefined)
    assert.equal(ranks.get('s:b.c#b'), undefined)
    assert.ok(Math.abs([...ranks.values()].reduce((a, b) => a + b, 0) - 1) < 1e-9)
    // A build lets go of the edges it ranked over (releaseRanking); a personalised run rebuilds them.
    graph.releaseRanking()
    assert.deepEqual(graph.personalizedPageRank(new Map([['s:x.c#x', 1]])), ranks)
  })

  it('an update removing more files than remain drops the unchanged files\' edges into them', () => {
    const table = new SymbolTable()
    table.addFile('caller.c', c([def('caller')], [ref('gone0', 'caller'), ref('gone1', 'caller')]))
    for (let i = 0; i < 3; i++) table.addFile(`gone${i}.c`, c([def(`gone${i}`)]))
    const graph = new CodeGraph(table)
    graph.update(table.commit())
    assert.equal(graph.edgeCount, 2)
    for (let i = 0; i < 3; i++) table.removeFile(`gone${i}.c`)
    graph.update(table.commit())
    assert.deepEqual(edges(graph), [])
    assert.equal(graph.edgeCount, 0)
    assert.doesNotThrow(() => graph.snapshot(table.snapshot().remap))
  })

  it('pagerank matches graphology-metrics on the same graph', async () => {
    // The CommonJS module is the function; its typings say otherwise under NodeNext.
    const graphologyPagerank = (await import('graphology-metrics/centrality/pagerank.js')).default as unknown as (graph: unknown, options: object) => Record<string, number>
    const { DirectedGraph } = await import('graphology')
    const g = new DirectedGraph()
    const pairs: Array<[number, number, number]> = [[0, 1, 1], [1, 2, 2], [2, 0, 1], [3, 2, 3], [0, 2, 0.5]]
    for (let n = 0; n < 5; n++) g.addNode(String(n))
    for (const [s, t, w] of pairs) g.addEdge(String(s), String(t), { weight: w })
    const expected = graphologyPagerank(g, { getEdgeWeight: 'weight', tolerance: 1e-12, maxIterations: 1000 })
    const ours = pagerank({ nodes: 5, src: Uint32Array.from(pairs, (p) => p[0]), dst: Uint32Array.from(pairs, (p) => p[1]), weight: Float64Array.from(pairs, (p) => p[2]) }, { tolerance: 1e-12, maxIterations: 1000 })
    for (let n = 0; n < 5; n++) assert.ok(Math.abs(ours[n] - expected[String(n)]!) < 1e-6, `node ${n}: ${ours[n]} vs ${expected[String(n)]}`)
  })
  it('numbers nodes: a file, then its symbols; personalised ranks by number match those by key', () => {
    const graph = build({
      'a.c': c([def('a'), def('a2', 2)], [ref('b', 'a')]),
      'b.c': c([def('b')]),
      'x.c': c([def('x')], [ref('y', 'x')]),
      'y.c': c([def('y')]),
    })
    const table = graph.symbols
    const a = table.file('a.c')!
    const x = table.file('x.c')!
    assert.deepEqual([graph.fileNode(a), graph.symbolNode(a, table.strings.find('a')), graph.symbolNode(a, table.strings.find('a2'))], [0, 1, 2])
    assert.equal(graph.symbolNode(a, table.strings.find('b')), -1)
    assert.equal(graph.nodeRanks()[graph.symbolNode(a, table.strings.find('a'))], graph.rank('s:a.c#a'))
    const teleport = new Float64Array(graph.nodeCount)
    teleport[graph.symbolNode(x, table.strings.find('x'))] = 1
    const byNumber = graph.personalizedRanks(teleport)
    const byKey = graph.personalizedPageRank(new Map([['s:x.c#x', 1]]))
    assert.equal(byNumber[graph.fileNode(table.file('y.c')!) + 1], byKey.get('s:y.c#y'))
    assert.equal(byNumber[graph.fileNode(a)], 0)
  })

  it('personalised pagerank iterates only the reached nodes, with the same bits as over all of them', () => {
    // Two components, chains and a cycle; personalised to part of the first.
    const pairs: Array<[number, number, number]> = [[0, 1, 1], [1, 2, 2], [2, 0, 1], [3, 2, 3], [0, 2, 0.5], [2, 4, 1], [5, 6, 1], [6, 7, 2], [7, 5, 1], [8, 6, 1]]
    const graph: WeightedEdges = { nodes: 10, src: Uint32Array.from(pairs, (p) => p[0]), dst: Uint32Array.from(pairs, (p) => p[1]), weight: Float64Array.from(pairs, (p) => p[2]) }
    const personalization = new Float64Array(10)
    personalization[1] = 2
    personalization[3] = 1
    const ranks = pagerank(prepareEdges(graph), { personalization })
    const expected = textbookPagerank(graph, personalization)
    for (let v = 0; v < 10; v++) assert.ok(Object.is(ranks[v], expected[v]), `node ${v}: ${ranks[v]} vs ${expected[v]}`)
    for (const v of [5, 6, 7, 8, 9]) assert.equal(ranks[v], 0)
    assert.ok(ranks[4] > 0)
    const uniform = pagerank(graph)
    const all = textbookPagerank(graph, new Float64Array(10).fill(1))
    for (let v = 0; v < 10; v++) assert.ok(Object.is(uniform[v], all[v]), `node ${v}: ${uniform[v]} vs ${all[v]}`)
  })

  it('local push ranks near the teleport nodes within its residual of exact personalised pagerank, reading only the nodes it pushes', () => {
    // A random graph of hubs and a long tail, dangling nodes included (seeded: the same graph each run).
    let seed = 7
    const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    const nodes = 20_000
    const src: number[] = []
    const dst: number[] = []
    const weight: number[] = []
    for (let v = 0; v < nodes; v++) {
      if (v % 10 === 9) continue
      for (let k = 0; k < 4; k++) {
        src.push(v)
        dst.push(random() < 0.5 ? Math.floor(random() * 50) : Math.floor(random() * nodes))
        weight.push(1 + Math.floor(random() * 5))
      }
    }
    const graph: WeightedEdges = { nodes, src: Uint32Array.from(src), dst: Uint32Array.from(dst), weight: Float64Array.from(weight) }
    const personalization = new Float64Array(nodes)
    personalization[1234] = 2
    personalization[777] = 1
    const exact = pagerank(prepareEdges(graph), { personalization, tolerance: 1e-12 })
    // Out-edges by source, as a stored graph answers them.
    const starts = new Uint32Array(nodes + 1)
    for (const v of src) starts[v + 1]++
    for (let v = 0; v < nodes; v++) starts[v + 1] += starts[v]!
    const asked = new Set<number>()
    let visited = 0
    const out = (node: number) => {
      asked.add(node)
      visited += starts[node + 1]! - starts[node]!
      return { targets: graph.dst, weights: graph.weight, start: starts[node]!, end: starts[node + 1]! }
    }
    const threshold = 1e-6
    const local = localPagerank(new Map([[1234, 2], [777, 1]]), out, nodes, { threshold })
    assert.ok(asked.size < nodes / 2, `pushed ${asked.size} of ${nodes} nodes`)
    // Edges visited are bounded by the threshold alone (a node's first look at its edges may not push it).
    assert.ok(visited <= 2 / ((1 - PAGERANK_DAMPING) * threshold), `${visited} edges visited`)
    let missing = 0
    for (let v = 0; v < nodes; v++) {
      const got = local.get(v) ?? 0
      assert.ok(got <= exact[v]! + 1e-12, `node ${v}: pushed ${got} above exact ${exact[v]}`)
      missing += exact[v]! - got
    }
    // What is missing is the residual left unpushed, each node's below the threshold per out-edge.
    assert.ok(missing < 0.02, `rank missing in all: ${missing}`)
    const top = (rank: (v: number) => number): number[] => Array.from({ length: nodes }, (_, v) => v).sort((a, b) => rank(b) - rank(a) || a - b).slice(0, 40)
    const best = top((v) => exact[v]!)
    assert.deepEqual(top((v) => local.get(v) ?? 0), best)
    for (const v of best) assert.ok(exact[v]! - local.get(v)! < 0.02 * exact[v]!, `node ${v}: ${local.get(v)} vs ${exact[v]}`)

    // Teleporting to a quarter of the graph (a scope of thousands of files) visits no more edges, at the default threshold too.
    const many = new Map(Array.from({ length: nodes / 4 }, (_, i) => [i * 4, 1] as const))
    const manyExact = pagerank(prepareEdges(graph), { personalization: Float64Array.from({ length: nodes }, (_, v) => (v % 4 === 0 ? 1 : 0)), tolerance: 1e-12 })
    for (const t of [threshold, LOCAL_PAGERANK_THRESHOLD]) {
      visited = 0
      const spread = localPagerank(many, out, nodes, { threshold: t })
      assert.ok(visited <= 2 / ((1 - PAGERANK_DAMPING) * t), `${visited} edges visited at ${t}`)
      const manyBest = top((v) => manyExact[v]!)
      assert.deepEqual(top((v) => spread.get(v) ?? 0).slice(0, 20), manyBest.slice(0, 20))
    }
  })
})

/** PageRank iterating every node and edge, summing in the order `pagerank` documents. */
function textbookPagerank(graph: WeightedEdges, personalization: Float64Array): Float64Array {
  const { nodes, src, dst, weight } = graph
  const total = personalization.reduce((sum, value) => sum + value, 0)
  const teleport = personalization.map((value) => value / total)
  const out = new Float64Array(nodes)
  for (let e = 0; e < src.length; e++) out[src[e]!] += weight[e]!
  // In-edges of each node in edge order (what a stable counting sort by target gives).
  const incoming = Array.from({ length: nodes }, (_, v) => [...src.keys()].filter((e) => dst[e] === v))
  let rank = Float64Array.from(teleport)
  for (let iteration = 0; iteration < 100; iteration++) {
    let dangling = 0
    for (let v = 0; v < nodes; v++) if (out[v] === 0) dangling += rank[v]!
    const jump = 0.85 * dangling + (1 - 0.85)
    const next = new Float64Array(nodes)
    let change = 0
    for (let v = 0; v < nodes; v++) {
      let sum = 0
      for (const e of incoming[v]!) sum += rank[src[e]!]! * (weight[e]! / out[src[e]!]!)
      next[v] = 0.85 * sum + jump * teleport[v]!
      change += Math.abs(next[v]! - rank[v]!)
    }
    rank = next
    if (change < 1e-6) break
  }
  return rank
}
