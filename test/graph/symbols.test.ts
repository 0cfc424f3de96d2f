import assert from 'node:assert/strict'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import { SymbolTable, type FileContent } from '../../src/core/graph/index.js'
import type { ImportRef, LanguageId, ReferenceKind, SymbolDef, SymbolKind, SymbolRef } from '../../src/core/parse/types.js'

function def(qualifiedName: string, kind: SymbolKind, line: number, signature = ''): SymbolDef {
  const dot = qualifiedName.lastIndexOf('.')
  return { name: qualifiedName.slice(dot + 1), qualifiedName, kind, line, endLine: line + 2, column: 4, signature, scope: dot < 0 ? '' : qualifiedName.slice(0, dot) }
}

function ref(name: string, enclosing = '', kind: ReferenceKind = 'call'): SymbolRef {
  return { name, line: 1, column: 0, kind, enclosing }
}

function content(language: LanguageId, symbols: SymbolDef[], references: SymbolRef[] = [], imports: ImportRef[] = []): FileContent {
  return { language, symbols, references: toReferenceColumns(references), imports }
}

describe('SymbolTable', () => {
  const table = new SymbolTable()
  table.addFile('pkg/shapes.py', content('python', [def('Shape', 'class', 1, 'class Shape:'), def('Shape.area', 'method', 3, 'def area(self):'), def('area', 'function', 10, 'def area(s):')]))
  table.addFile('pkg/main.py', content('python', [def('main', 'function', 1)], [ref('area', 'main'), ref('area', 'main'), ref('Shape', 'main'), ref('area')]))
  table.addFile('pkg/other.py', content('python', [], [ref('area')]))
  table.commit()

  it('finds definitions by name, qualified name and path:name', () => {
    assert.deepEqual(table.byName('area').map((s) => `${s.path}:${s.qualifiedName}:${s.line}`), ['pkg/shapes.py:Shape.area:3', 'pkg/shapes.py:area:10'])
    assert.deepEqual(table.byQualifiedName('Shape.area'), [{
      path: 'pkg/shapes.py', name: 'area', qualifiedName: 'Shape.area', kind: 'method', line: 3, endLine: 5, column: 4, signature: 'def area(self):', scope: 'Shape',
    }])
    assert.deepEqual(table.lookup('pkg/shapes.py:Shape').map((s) => s.qualifiedName), ['Shape'])
    assert.deepEqual(table.lookup('pkg/shapes.py:area').map((s) => s.qualifiedName), ['Shape.area', 'area'])
    assert.deepEqual(table.lookup('Shape.area').map((s) => s.line), [3])
    assert.deepEqual(table.lookup('main').map((s) => s.path), ['pkg/main.py'])
    assert.deepEqual(table.lookup('nothing'), [])
  })

  it('counts referencing files per name', () => {
    assert.deepEqual(table.referencesTo('area'), [{ path: 'pkg/main.py', count: 3 }, { path: 'pkg/other.py', count: 1 }])
    assert.deepEqual(table.referencesTo('Shape'), [{ path: 'pkg/main.py', count: 1 }])
    assert.deepEqual(table.referencesTo('main'), [])
  })

  it('forgets a removed file and reports the names it defined', () => {
    const local = new SymbolTable()
    local.addFile('a.py', content('python', [def('f', 'function', 1), def('g', 'function', 5)]))
    local.addFile('b.py', content('python', [def('k', 'function', 1)]))
    // Every file changed (a cold build): each is resolved again, so no name is diffed.
    assert.equal(local.commit().dirtyNames.size, 0)
    local.removeFile('a.py')
    local.addFile('a.py', content('python', [def('f', 'function', 2), def('h', 'function', 5)]))
    const changes = local.commit()
    assert.deepEqual([...changes.changed], ['a.py'])
    // f moved a line but is still defined: not dirty; g went away, h appeared.
    assert.deepEqual([...changes.dirtyNames].map(([name, delta]) => [local.strings.get(name), delta]).sort(), [['g', -1], ['h', 1]])
    assert.equal(local.byName('g').length, 0)
    assert.equal(local.byName('f')[0]!.line, 2)
    assert.equal(local.symbolCount, 3)
  })

  it('keeps every reference row of a file with more than a thousand of them', () => {
    // Row buffers are reused between files and grown on demand: each size below is past the
    // buffers some earlier size leaves (a file of 1,500 rows after none lost its last 476).
    const large = new SymbolTable()
    const sizes = [1_100, 1_500, 2_100, 3_000, 4_500, 7_000, 9_000, 13_000, 17_000, 25_000]
    for (const size of sizes) large.addFile(`big/${size}.py`, content('python', [], Array.from({ length: size }, (_, i) => ref(`name${i}`))))
    large.commit()
    for (const size of sizes) assert.deepEqual(large.referencesTo(`name${size - 1}`).map((p) => p.path).includes(`big/${size}.py`), true, `big/${size}.py`)
  })
})

