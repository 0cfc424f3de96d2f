import assert from 'node:assert/strict'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import { NodeNumbering } from '../../src/core/graph/node-numbering.js'
import { SymbolTable, type FileContent } from '../../src/core/graph/index.js'
import type { SymbolDef } from '../../src/core/parse/types.js'

function def(qualifiedName: string, line: number): SymbolDef {
  const name = qualifiedName.split('.').pop()!
  return { name, qualifiedName, kind: 'function', line, endLine: line, column: 0, signature: '', scope: '' }
}

function file(names: string[]): FileContent {
  return { language: 'c', symbols: names.map((name, i) => def(name, i + 1)), references: toReferenceColumns([]), imports: [] }
}

describe('graph node numbering (node-numbering.ts)', () => {
  it('numbers each file, then its distinct qualified names in order of first definition, as its FileSymbols list them', () => {
    const table = new SymbolTable()
    // Repeated names (#ifdef variants), one name in several files, an empty file, and strings first interned in another order.
    table.addFile('b.c', file(['zeta', 'alpha', 'zeta', 'm.beta', 'alpha', 'gamma', 'zeta']))
    table.addFile('a.c', file(['gamma', 'gamma', 'alpha']))
    table.addFile('c.c', file([]))
    table.addFile('d.c', file(['m.beta', 'omega', 'delta', 'omega', 'alpha', 'm.beta']))
    table.commit()
    const files = table.sortedFiles()
    const numbering = NodeNumbering.build(files)
    let node = 0
    files.forEach((symbols, f) => {
      assert.equal(numbering.bases[f], node, symbols.path)
      const names = symbols.symbolNodes()
      node += 1 + names.length
      names.forEach((name, offset) => assert.equal(numbering.offset(f, name), offset, `${symbols.path} ${table.strings.get(name)}`))
      for (let d = 0; d < symbols.defs; d++) assert.equal(numbering.defNode(f, d), numbering.bases[f]! + 1 + symbols.nodeOffset(symbols.cols.defQName[symbols.def0 + d]!))
      for (const missing of ['omega', 'zeta', 'nothing']) {
        const id = table.strings.find(missing)
        if (id >= 0 && symbols.nodeOffset(id) < 0) assert.equal(numbering.offset(f, id), -1, `${symbols.path} ${missing}`)
      }
    })
    assert.equal(numbering.bases[files.length], node)
  })
})
