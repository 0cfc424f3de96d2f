import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CodeGraph, encodeGraphFile, encodeSymbolsFile, GraphFile, SymbolsFile, SymbolTable, type FileContent } from '../../src/core/graph/index.js'
import type { TreeAggregates } from '../../src/core/index/aggregates.js'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import type { SymbolDef, SymbolRef } from '../../src/core/parse/types.js'
import { fitToBudget, type RankedEntries } from '../../src/core/repomap/fit.js'
import { buildRepoMap, type RepoMapContext } from '../../src/core/repomap/index.js'
import type { Placed } from '../../src/core/repomap/render.js'
import { confineTo } from '../../src/core/store/index.js'
import { blockSpans, flipInBlock } from '../helpers/block-spans.js'

function def(qualifiedName: string, line: number): SymbolDef {
  const dot = qualifiedName.lastIndexOf('.')
  return { name: qualifiedName.slice(dot + 1), qualifiedName, kind: 'function', line, endLine: line + 1, column: 0, signature: `int ${qualifiedName}(void)`, scope: dot < 0 ? '' : qualifiedName.slice(0, dot) }
}

/** 600 C files calling into a few hubs: a table of many runs, whose map shows a handful of files. */
function graphOf(): CodeGraph {
  const table = new SymbolTable()
  for (let f = 0; f < 600; f++) {
    const name = `fn${f}`
    // Rows enough for runs of a few dozen files each.
    const calls = [`hub${f % 3}`, `fn${(f * 7) % 600}`, `fn${(f + 1) % 600}`, ...Array.from({ length: 30 }, (_, k) => `local${f}_${k}`)]
    const refs: SymbolRef[] = calls.map((callee) => ({ name: callee, line: 2, column: 0, kind: 'call', enclosing: name }))
    // A name defined twice (C's #ifdef variants) ahead of the caller: definitions and graph nodes number apart.
    const symbols = [def(`variant${f}`, 7), def(`variant${f}`, 9), def(name, 1), def(`helper${f}`, 5), ...(f < 3 ? [def(`hub${f}`, 20)] : [])]
    const content: FileContent = { language: 'c', symbols, references: toReferenceColumns(refs), imports: [] }
    table.addFile(`src/f${String(f).padStart(3, '0')}.c`, content)
  }
  const graph = new CodeGraph(table)
  graph.update(table.commit())
  return graph
}

const context = (symbols: SymbolTable, graph: CodeGraph): RepoMapContext => ({
  aggregates: { symbols, graph } as unknown as TreeAggregates,
  freshness: { treeHash: 't', stale: false, overlayFiles: 0 },
})

describe('repo map over a stored graph and symbol table', () => {
  let dir: string
  let symbolsPath: string
  let graphPath: string
  const memory = graphOf()

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-stored-map-'))
    confineTo(dir)
    symbolsPath = join(dir, 'symbols.mpk')
    graphPath = join(dir, 'graph.mpk')
    const { data } = memory.symbols.snapshot()
    writeFileSync(symbolsPath, Buffer.concat([...await encodeSymbolsFile(data)]))
    writeFileSync(graphPath, Buffer.concat([...await encodeGraphFile(memory.storedSource())]))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('ranks from the rank slices and reads only the runs of the files it shows', () => {
    const want = buildRepoMap(context(memory.symbols, memory), { tokens: 60 })
    const shown = want.map.split('\n').filter((line) => !line.startsWith(' ')).map((line) => line.slice(0, -1))
    assert.ok(shown.length >= 2 && shown.length < 10, want.map)
    // Every other block is damaged: the edges, and each run holding none of the files shown.
    const stored = SymbolsFile.open(symbolsPath)
    const needed = new Set(shown.map((path) => stored.runOf(stored.fileIndex(path)).run))
    let symbols: Buffer = readFileSync(symbolsPath)
    const runs = blockSpans<{ runs: number }>(symbols, 'symbols').meta.runs
    assert.ok(runs - needed.size >= 2, `${runs} runs, ${needed.size} needed`)
    for (let run = 0; run < runs; run++) if (!needed.has(run)) symbols = flipInBlock(symbols, 'symbols', 2 + run)
    writeFileSync(symbolsPath, symbols)
    // The graph's blocks are each slice's ranks, then each slice's edges.
    let graph: Buffer = readFileSync(graphPath)
    const blocks = blockSpans(graph, 'graph').spans.length
    for (let block = blocks / 2; block < blocks; block++) graph = flipInBlock(graph, 'graph', block)
    writeFileSync(graphPath, graph)

    const table = SymbolTable.open(SymbolsFile.open(symbolsPath))
    const got = buildRepoMap(context(table, CodeGraph.open(GraphFile.open(graphPath), table)), { tokens: 60 })
    assert.deepEqual(got, want)
  })

  it('pushes personalised ranks over the stored out-edges, numbered as the graph in memory numbers them, within the residual of exact PageRank, without loading the table', () => {
    const table = SymbolTable.open(SymbolsFile.open(symbolsPath))
    const graph = CodeGraph.open(GraphFile.open(graphPath), table)
    const base = graph.nodeBases()[table.fileNumber('src/f010.c')]!
    // The file and its caller, whose out-edges lead on to the hubs and other files.
    const caller = base + 1 + table.symbolNodeOffset('src/f010.c', 'fn10')
    assert.equal(caller, base + 2)
    const teleport = new Map([[base, 1], [caller, 0.5]])
    assert.equal(graph.localPersonalizedRanks(teleport), null, 'a graph this small is ranked exactly')
    const local = graph.localPersonalizedRanks(teleport, 0)!
    assert.ok((table as unknown as { stored?: unknown }).stored !== undefined, 'the table was not loaded')
    const dense = new Float64Array(memory.nodeCount)
    for (const [node, weight] of teleport) dense[node] = weight
    const exact = memory.personalizedRanks(dense)
    let missing = 0
    for (let node = 0; node < exact.length; node++) {
      const got = local.get(node) ?? 0
      assert.ok(got <= exact[node]! + 1e-12, `node ${node}: pushed ${got} above exact ${exact[node]}`)
      missing += exact[node]! - got
    }
    assert.ok(missing < 0.01, `rank missing in all: ${missing}`)
    const top = (rank: (node: number) => number): number[] => Array.from({ length: exact.length }, (_, node) => node).sort((a, b) => rank(b) - rank(a) || a - b).slice(0, 20)
    assert.deepEqual(top((node) => local.get(node) ?? 0), top((node) => exact[node]!))
    memory.load()
    assert.equal(memory.localPersonalizedRanks(teleport, 0), null, 'a graph in memory ranks exactly')
  })

  it('places only the entries fitting looks at: none past twice the prefix and the top-up, nor one of a new file whose path cannot fit', () => {
    const placed = new Set<number>()
    const ranked = (length: number, pathOf: (i: number) => string): RankedEntries => ({
      length,
      path: pathOf,
      placed: (i) => {
        placed.add(i)
        return { key: `${pathOf(i)}#f${i}`, line: i, depth: 0, text: `f${i}()`, path: pathOf(i), ancestors: [] } satisfies Placed
      },
    })
    const fewFiles = ranked(2000, (i) => `a${i % 5}.c`)
    const fitted = fitToBudget(fewFiles, 100)
    assert.ok(fitted.symbols > 10 && fitted.symbols < 100, `${fitted.symbols} lines`)
    assert.ok(Math.max(...placed) <= fitted.symbols + 256, `placed up to ${Math.max(...placed)}`)
    // The same entries as a list fit the same way.
    assert.deepEqual(fitToBudget(Array.from({ length: 2000 }, (_, i) => fewFiles.placed(i)), 100), fitted)

    // Past the first 30, every entry is in a file of its own whose path line alone is longer than the budget.
    placed.clear()
    fitToBudget(ranked(1000, (i) => (i < 30 ? `a${i % 5}.c` : `a/very/long/directory/name/for/the/file/number/${i}.c`)), 20)
    assert.ok(placed.size > 0 && [...placed].every((i) => i < 30), [...placed].join(','))
  })
})
