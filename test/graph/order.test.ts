import assert from 'node:assert/strict'
import { createAggregates, type IndexedSummary, type TreeAggregates } from '../../src/core/index/aggregates.js'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import type { ImportRef, LanguageId, SymbolDef, SymbolRef } from '../../src/core/parse/types.js'
import { analyzeChunks } from '../../src/core/search/index.js'

/** A file defining `defs`, whose first definition (or the file) references `calls`, importing `imports`. */
function summary(language: LanguageId, defs: string[], calls: string[], imports: ImportRef[] = []): IndexedSummary {
  const symbols: SymbolDef[] = defs.map((name, i) => ({ name, qualifiedName: name, kind: 'function', line: i + 1, endLine: i + 1, column: 0, signature: `${name}()`, scope: '' }))
  const references: SymbolRef[] = calls.map((name, i) => ({ name, line: i + 1, column: 4, kind: 'call', enclosing: defs[0] ?? '' }))
  return { language, chunkCount: 0, parseErrors: 0, lineCount: defs.length + calls.length, analyzed: analyzeChunks([]), symbols, references: toReferenceColumns(references), imports }
}

const include = (module: string): ImportRef => ({ module, names: [], line: 1, relative: true })
const names = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`)

function build(files: Array<[string, IndexedSummary]>): TreeAggregates {
  const aggregates = createAggregates()
  for (const [path, s] of files) aggregates.addFile(path, s)
  aggregates.finish()
  return aggregates
}

/** The stored form of the symbol table and the graph (ranks included), comparable with deepEqual. */
function stored(aggregates: TreeAggregates): unknown {
  const { data, remap } = aggregates.symbols.snapshot()
  return { symbols: data, graph: aggregates.graph.snapshot(remap) }
}

describe('aggregates are a function of the set of files, not of the order they are added in', () => {
  it('a file with many distinct references keeps them all whatever file came before', () => {
    // Extraction hands files over in worker-completion order. The per-file reference rows reuse
    // buffers whose slots and rows grew apart: after a file of 20,000 references the slots had room
    // for 30,000 rows the rows had not, and the rows past 20,000 were dropped (redis: 91,432 edges
    // in tree order, 90,420 reversed).
    const files: Array<[string, IndexedSummary]> = [
      ['src/mid.c', summary('c', ['mid'], names('low_', 20_000), [include('defs.h')])],
      ['src/big.c', summary('c', ['big'], names('high_', 30_000), [include('defs.h')])],
      ['src/defs.h', summary('c', [...names('low_', 20_000), ...names('high_', 30_000)], [])],
    ]
    const forward = build(files)
    const reverse = build([...files].reverse())
    // Each reference resolves to its one definition, plus the two includes.
    assert.equal(forward.stats().edges, 50_000 + 2)
    assert.equal(reverse.stats().edges, 50_000 + 2)
    assert.deepEqual(stored(forward), stored(reverse))
  })

  it('resolves includes, imports and names alike in every order', () => {
    // Ties the resolution could break by arrival: two util.h (the nearest wins), a name defined in
    // two files (shared weight), a Python package import, a file-local definition shadowing others.
    const files: Array<[string, IndexedSummary]> = [
      ['src/main.c', summary('c', ['main', 'log_msg'], ['log_msg', 'util_init', 'twice'], [include('util.h')])],
      ['src/util.h', summary('c', ['util_init'], [])],
      ['deps/util.h', summary('c', ['util_init', 'log_msg'], [])],
      ['src/a.c', summary('c', ['twice'], ['util_init'])],
      ['src/b.c', summary('c', ['twice'], ['log_msg'])],
      ['pkg/__init__.py', summary('python', ['setup'], ['helper'], [{ module: '.core', names: [{ name: 'helper' }], line: 1, relative: true }])],
      ['pkg/core.py', summary('python', ['helper', 'setup'], ['setup'])],
    ]
    const expected = stored(build(files))
    for (const order of [[...files].reverse(), [files[3]!, files[6]!, files[0]!, files[5]!, files[2]!, files[4]!, files[1]!]]) {
      assert.deepEqual(stored(build(order)), expected)
    }
  })
})
