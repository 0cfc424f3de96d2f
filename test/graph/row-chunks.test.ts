import assert from 'node:assert/strict'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import { CodeGraph, SymbolTable } from '../../src/core/graph/index.js'
import { RowChunks } from '../../src/core/graph/row-chunks.js'
import type { SymbolDef, SymbolRef } from '../../src/core/parse/types.js'

function def(name: string, line: number): SymbolDef {
  return { name, qualifiedName: name, kind: 'function', line, endLine: line + 1, column: 0, signature: `void ${name}(void)`, scope: '' }
}

function call(name: string, enclosing: string): SymbolRef {
  return { name, line: 1, column: 0, kind: 'call', enclosing }
}

/** A C file defining `count` functions, each calling the previous file's function of the same rank. */
function file(index: number, count: number): { symbols: SymbolDef[]; references: SymbolRef[] } {
  const symbols = Array.from({ length: count }, (_, d) => def(`f${index}_${d}`, 10 * d + 1))
  const references = index === 0 ? [] : symbols.map((symbol, d) => call(`f${index - 1}_${d}`, symbol.name))
  return { symbols, references }
}

describe('RowChunks', () => {
  it('hands out consecutive rows of one chunk, and a chunk of its own size to a larger request', () => {
    const allocated: number[][] = []
    const trimmed: number[][] = []
    const chunks = new RowChunks<{ id: number }>({ allocate: (rows) => ({ id: allocated.push([...rows]) }), trim: (_, rows) => void trimmed.push([...rows]) }, [10, 4])
    const first = chunks.take([3, 1])
    const second = chunks.take([7, 3])
    assert.equal(second.cols, first.cols)
    assert.deepEqual([first.starts, second.starts], [[0, 0], [3, 1]])
    const large = chunks.take([1, 9])
    assert.notEqual(large.cols, first.cols)
    assert.deepEqual(large.starts, [0, 0])
    // The full chunk was cut to the rows it holds before the next was allocated.
    assert.deepEqual(trimmed, [[10, 4]])
    assert.deepEqual(allocated, [[10, 4], [10, 9]])
  })

  it('keeps every file of a table and its graph whole across chunks, small files sharing columns', () => {
    const table = new SymbolTable()
    // Enough definitions and references to fill several chunks, one file larger than a chunk.
    const sizes = Array.from({ length: 300 }, (_, i) => (i === 150 ? 20_000 : 40))
    sizes.forEach((count, i) => {
      const { symbols, references } = file(i, count)
      table.addFile(`f${String(i).padStart(3, '0')}.c`, { language: 'c', symbols, references: toReferenceColumns(references), imports: [] })
    })
    const graph = new CodeGraph(table)
    graph.update(table.commit())
    assert.equal(table.file('f000.c')!.cols, table.file('f001.c')!.cols)
    assert.notEqual(table.file('f150.c')!.cols, table.file('f000.c')!.cols)
    sizes.forEach((count, i) => {
      const path = `f${String(i).padStart(3, '0')}.c`
      const defs = table.definitions(path)
      assert.equal(defs.length, count)
      assert.deepEqual(defs[count - 1], { path, ...def(`f${i}_${count - 1}`, 10 * (count - 1) + 1) })
      if (i > 0) assert.deepEqual(table.referencesTo(`f${i - 1}_0`), [{ path, count: 1 }])
    })
    // Each file's functions call the previous file's: one edge per function of the smaller file.
    const expected = sizes.slice(1).reduce((sum, count, i) => sum + Math.min(count, sizes[i]!), 0)
    assert.equal(graph.edgeCount, expected)
  })
})
