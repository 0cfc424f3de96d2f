import { strict as assert } from 'node:assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EXACT_RANKS_NODES, MAX_LAID_SHARE } from '../../src/core/graph/overlaid-graph.js'
import { OverlaidTable } from '../../src/core/graph/index.js'
import { createAggregates, finishAndSave, loadAggregates, type IndexedSummary, type TreeAggregates } from '../../src/core/index/aggregates.js'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import type { SymbolDef, SymbolRef } from '../../src/core/parse/types.js'
import { buildRepoMap } from '../../src/core/repomap/index.js'
import { analyzeChunks } from '../../src/core/search/index.js'
import { confineTo } from '../../src/core/store/index.js'

/** Enough files of DEFS definitions for a graph past EXACT_RANKS_NODES, whose ranks a few laid files take from the stored ones. */
const DEFS = 20
const FILES = Math.ceil((EXACT_RANKS_NODES * 1.1) / (DEFS + 1))

const pathOf = (i: number): string => `src/f${String(i).padStart(5, '0')}.c`

/** A C file defining `names`, its first function calling the first functions of a few other files (version 0), or `calls`. */
function summary(names: string[], calls: string[]): IndexedSummary {
  const symbols: SymbolDef[] = names.map((name, d) => ({ name, qualifiedName: name, kind: 'function', line: d * 3 + 1, endLine: d * 3 + 2, column: 1, signature: `int ${name}(void)`, scope: '' }))
  const references: SymbolRef[] = calls.map((name, r) => ({ name, line: r + 2, column: 2, kind: 'call', enclosing: names[0] ?? '' }))
  return { language: 'c', chunkCount: 0, parseErrors: 0, lineCount: names.length * 3, analyzed: analyzeChunks([]), symbols, references: toReferenceColumns(references), imports: [] }
}

/** A map's lines as `file: line` entries, sorted. */
function mapEntries(map: string): string[] {
  let file = ''
  const entries: string[] = []
  for (const line of map.split('\n')) {
    if (!line.startsWith(' ')) file = line
    else entries.push(`${file} ${line.trim()}`)
  }
  return entries.sort()
}

const namesOf = (i: number): string[] => Array.from({ length: DEFS }, (_, d) => `f${i}_${d}`)
const fileSummary = (i: number): IndexedSummary => summary(namesOf(i), [`f${(i + 1) % FILES}_0`, `f${(i * 7 + 3) % FILES}_1`, `f${(i * 13 + 5) % 50}_0`])

describe('a stored graph under files laid over it', function () {
  this.timeout(120_000)
  let dir: string
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-overlaid-graph-'))
    confineTo(dir)
    const aggregates = createAggregates()
    for (let i = 0; i < FILES; i++) aggregates.addFile(pathOf(i), fileSummary(i))
    await finishAndSave(dir, aggregates)
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  /** The stored set opened for a query, with file 1 changed (one name kept, one new), file 2 removed and a new file. */
  async function laidOver(): Promise<TreeAggregates> {
    const opened = await loadAggregates(dir, { open: true })
    opened.addFile(pathOf(1), summary(['f1_0', 'f1_new'], ['f0_0']))
    opened.removeFile(pathOf(2))
    opened.addFile('src/new.c', summary(['fresh_a', 'fresh_b'], ['f0_0']))
    opened.finish()
    return opened
  }

  it('takes the stored ranks of a large graph, a new node the mean and a removed path none, without loading it', async () => {
    const stored = await loadAggregates(dir, { open: true })
    const view = await laidOver()
    const { graph } = view
    const table = view.symbols as OverlaidTable
    const mean = 1 / stored.graph.nodeCount
    assert.ok(stored.graph.nodeCount > EXACT_RANKS_NODES)

    assert.equal(graph.rank(`s:${pathOf(10)}#f10_3`), stored.graph.rank(`s:${pathOf(10)}#f10_3`))
    assert.equal(graph.fileRank(pathOf(10)), stored.graph.fileRank(pathOf(10)))
    assert.equal(graph.rank(`f:${pathOf(1)}`), stored.graph.rank(`f:${pathOf(1)}`), 'a laid file keeps its stored node')
    assert.equal(graph.rank(`s:${pathOf(1)}#f1_0`), stored.graph.rank(`s:${pathOf(1)}#f1_0`), 'and a definition it kept')
    assert.equal(graph.rank(`s:${pathOf(1)}#f1_new`), mean)
    assert.equal(graph.rank(`s:${pathOf(1)}#f1_5`), 0, 'a definition it no longer has')
    assert.equal(graph.fileRank(pathOf(1)), stored.graph.rank(`f:${pathOf(1)}`) + stored.graph.rank(`s:${pathOf(1)}#f1_0`) + mean)
    assert.equal(graph.fileRank(pathOf(2)), 0)
    assert.equal(graph.fileRank('src/new.c'), 3 * mean)
    // Files 1 and 2 lose their DEFS + 1 nodes each; file 1 as laid has 3, and so has the new file.
    assert.equal(graph.nodeCount, stored.graph.nodeCount - 2 * (DEFS + 1) + 3 + 3)

    // The default map ranks every file from them: the laid ones in path order among the stored.
    const ranks = graph.nodeRanks()
    const bases = graph.nodeBases()
    const fileNode = (path: string): number => bases[table.fileNumber(path)]!
    assert.equal(ranks[fileNode('src/new.c') + 1], mean)
    assert.equal(ranks[fileNode(pathOf(10))], stored.graph.rank(`f:${pathOf(10)}`))
    assert.equal(table.pathAt(table.fileNumber('src/new.c')), 'src/new.c')
    const map = buildRepoMap({ aggregates: view, freshness: { treeHash: '', stale: false, overlayFiles: 3 } })
    assert.ok(map.symbolsIncluded > 0)
    assert.equal(map.map.includes(pathOf(2)), false)
    assert.ok(table.laidOver, 'nothing above loaded the table')
  })

  it('maps a focus on a large graph by pushing from it over the stored out-edges: what exact ranking shows first, without loading the table', async () => {
    const freshness = { treeHash: '', stale: false, overlayFiles: 0 }
    const clean = await loadAggregates(dir, { open: true })
    const focused = buildRepoMap({ aggregates: clean, freshness }, { focus: [pathOf(5), 'f900_3'], tokens: 200 })
    assert.ok((clean.symbols as unknown as { stored?: unknown }).stored !== undefined, 'the table was not loaded')
    const whole = await loadAggregates(dir, { open: true })
    whole.graph.load()
    const exact = buildRepoMap({ aggregates: whole, freshness }, { focus: [pathOf(5), 'f900_3'], tokens: 200 })
    assert.equal(focused.map, exact.map)
    assert.equal(focused.symbolsTotal, exact.symbolsTotal)

    // A file laid over as stored (touched, not changed) is translated to its stored nodes and back: the same map.
    const touched = await loadAggregates(dir, { open: true })
    touched.addFile(pathOf(5), fileSummary(5))
    touched.finish()
    assert.equal(buildRepoMap({ aggregates: touched, freshness }, { focus: [pathOf(5), 'f900_3'], tokens: 200 }).map, focused.map)
    assert.ok((touched.symbols as OverlaidTable).laidOver, 'the table was not loaded')

    // Files laid over: a changed focus file keeps the stored out-edges of its kept names; a new one pushes over its own.
    const view = await laidOver()
    const laid = buildRepoMap({ aggregates: view, freshness }, { focus: [pathOf(1), 'src/new.c'], tokens: 200 })
    assert.ok((view.symbols as OverlaidTable).laidOver, 'nothing above loaded the table')
    assert.match(laid.map, /f1_new/)
    assert.match(laid.map, /fresh_a/)
    assert.doesNotMatch(laid.map, new RegExp(`${pathOf(2)}|\\bf1_5\\b`), 'what the files laid over removed')
  })

  it('pushes from a new file laid over along its own out-edges, resolved as laid over: the map exact ranking gives', async () => {
    const freshness = { treeHash: '', stale: false, overlayFiles: 1 }
    const withNewFile = async (): Promise<TreeAggregates> => {
      const opened = await loadAggregates(dir, { open: true })
      // fresh_a calls a function of a stored file, and one a file laid over gained (its other rows as stored); fresh_b calls fresh_a.
      opened.addFile(pathOf(3), { ...fileSummary(3), symbols: [...fileSummary(3).symbols, summary(['f3_new'], []).symbols[0]!] })
      opened.addFile('src/new.c', { ...summary(['fresh_a', 'fresh_b'], ['f900_0', 'f3_new']), references: toReferenceColumns([
        { name: 'f900_0', line: 2, column: 2, kind: 'call', enclosing: 'fresh_a' },
        { name: 'f3_new', line: 3, column: 2, kind: 'call', enclosing: 'fresh_a' },
        { name: 'fresh_a', line: 5, column: 2, kind: 'call', enclosing: 'fresh_b' },
      ]) })
      opened.finish()
      return opened
    }
    const focus = { focus: ['src/new.c'], tokens: 300 }
    const view = await withNewFile()
    const pushed = buildRepoMap({ aggregates: view, freshness }, focus)
    assert.ok((view.symbols as OverlaidTable).laidOver, 'the table was not loaded')
    const whole = await withNewFile()
    whole.graph.load()
    assert.equal((whole.symbols as OverlaidTable).laidOver, false)
    const exact = buildRepoMap({ aggregates: whole, freshness }, focus)
    assert.match(exact.map, new RegExp(`${pathOf(900)}[^]*f900_0`), 'what the new file calls')
    // The same lines; near-tied files may come in another order (the push stops short of exact by its residual).
    assert.deepEqual(mapEntries(pushed.map), mapEntries(exact.map))
    assert.equal(pushed.map.split('\n')[0], 'src/new.c:')
  })

  it('pushes from a changed file laid over along its edges as changed, not its stored ones: the map exact ranking gives', async () => {
    const freshness = { treeHash: '', stale: false, overlayFiles: 2 }
    const changed = async (): Promise<TreeAggregates> => {
      const opened = await loadAggregates(dir, { open: true })
      // File 1's first function now calls f900_0 only (it called f2_0, f10_1 and f18_0); its last definition is gone. File 4 is removed.
      opened.addFile(pathOf(1), summary(namesOf(1).slice(0, DEFS - 1), ['f900_0']))
      opened.removeFile(pathOf(4))
      opened.finish()
      return opened
    }
    const focus = { focus: [pathOf(1)], tokens: 300 }
    const view = await changed()
    const pushed = buildRepoMap({ aggregates: view, freshness }, focus)
    assert.ok((view.symbols as OverlaidTable).laidOver, 'the table was not loaded')
    const whole = await changed()
    whole.graph.load()
    const exact = buildRepoMap({ aggregates: whole, freshness }, focus)
    assert.match(exact.map, new RegExp(`${pathOf(900)}[^]*f900_0`), 'what the changed file calls now')
    assert.doesNotMatch(exact.map, new RegExp(pathOf(2)), 'what it called before')
    assert.deepEqual(mapEntries(pushed.map), mapEntries(exact.map))
  })

  it('ranks again exactly once the files laid over are more than a small share of the stored ones', async () => {
    const opened = await loadAggregates(dir, { open: true })
    const many = Math.floor(MAX_LAID_SHARE * FILES) + 1
    for (let i = 0; i < many; i++) opened.removeFile(pathOf(FILES - 1 - i))
    opened.finish()
    const table = opened.symbols as OverlaidTable
    assert.ok(table.laidOver)
    assert.ok(opened.graph.rank(`f:${pathOf(0)}`) > 0)
    assert.equal(table.laidOver, false, 'ranked loaded whole, edges resolved again')
    assert.equal(opened.graph.rank(`f:${pathOf(FILES - 1)}`), 0)
    assert.equal(opened.symbols.fileCount, FILES - many)
  })
})
