import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CorruptFileError } from '../../src/core/errors.js'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import { checkStoredTable, CodeGraph, encodeSymbolsFile, SymbolsFile, SymbolTable, SYMBOLS_VERSION, type FileContent } from '../../src/core/graph/index.js'
import { checkRecord, confineTo, ScratchFile } from '../../src/core/store/index.js'
import { Packr } from '../../src/core/store/msgpack.js'
import { blockSpans, flipInBlock, rewriteBlock } from '../helpers/block-spans.js'
import type { SymbolDef, SymbolKind, SymbolRef } from '../../src/core/parse/types.js'

function def(qualifiedName: string, kind: SymbolKind, line: number, signature = ''): SymbolDef {
  const dot = qualifiedName.lastIndexOf('.')
  return { name: qualifiedName.slice(dot + 1), qualifiedName, kind, line, endLine: line + 2, column: 4, signature, scope: dot < 0 ? '' : qualifiedName.slice(0, dot) }
}

function content(symbols: SymbolDef[], references: string[] = []): FileContent {
  const refs: SymbolRef[] = references.map((name) => ({ name, line: 1, column: 0, kind: 'call', enclosing: '' }))
  return { language: 'python', symbols, references: toReferenceColumns(refs), imports: [] }
}

/** A table large enough for many buckets: 400 files, each defining and calling names shared with others. */
function bigTable(): SymbolTable {
  const table = new SymbolTable()
  for (let f = 0; f < 400; f++) {
    const defs = [def(`f${f}`, 'function', 1, `def f${f}():`), def(`C${f % 7}.area`, 'method', 5, 'def area(self):'), def('area', 'function', 9 + f)]
    if (f % 50 === 0) defs.push(def('area', 'function', 2000)) // a name a file defines twice
    if (f % 40 === 3) defs.push(def(`größe${f % 3}`, 'function', 3000)) // names not ASCII: bucketed by their UTF-16 code units
    table.addFile(`pkg/m${String(f).padStart(3, '0')}.py`, content(defs, [`f${(f + 1) % 400}`, 'area', 'area', `C${f % 7}`]))
  }
  table.addFile('pkg/__init__.py', { ...content([]), imports: [{ module: '.m001', names: [{ name: '*' }], line: 1, relative: true }] })
  table.commit()
  return table
}

describe('stored symbol table (symbols-file.ts)', () => {
  let dir: string
  let path: string
  const memory = bigTable()

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-symbols-file-'))
    confineTo(dir)
    path = join(dir, 'symbols.mpk')
    writeFileSync(path, Buffer.concat([...await encodeSymbolsFile(memory.snapshot().data)]))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('is a record whose frame checks whole, and answers lookups as the table it was made from', () => {
    assert.equal(checkRecord(readFileSync(path), 'symbols', SYMBOLS_VERSION, path).kind, 'symbols')
    const stored = SymbolTable.open(SymbolsFile.open(path))
    assert.equal(stored.fileCount, 401)
    assert.equal(stored.symbolCount, memory.symbolCount)
    for (const name of ['area', 'C3.area', 'f17', 'f399', 'größe1', 'missing']) {
      assert.deepEqual(stored.byName(name), memory.byName(name), name)
      assert.deepEqual(stored.byQualifiedName(name), memory.byQualifiedName(name), name)
      assert.deepEqual(stored.lookup(name), memory.lookup(name), name)
      assert.deepEqual(stored.keyed(name), memory.keyed(name), name)
      assert.deepEqual(stored.referencesTo(name), memory.referencesTo(name), name)
    }
    assert.deepEqual(stored.lookup('pkg/m050.py:area'), memory.lookup('pkg/m050.py:area'))
    assert.equal(stored.hasFile('pkg/m050.py'), true)
    assert.equal(stored.hasFile('pkg/m050'), false)
    // Whatever needs more than a lookup loads the whole table.
    assert.deepEqual(stored.sortedFiles().map((file) => file.path), memory.sortedFiles().map((file) => file.path))
    assert.deepEqual(stored.snapshot().data, memory.snapshot().data)
  })

  it('keeps signatures that are not ASCII as written: UTF-8 in the table, UTF-16 code units in the stored form', async () => {
    const signatures = ['def café(x):', 'def 名前():', 'def crab(): # 🦀', 'def plain():']
    const table = new SymbolTable()
    table.addFile('a.py', content(signatures.slice(0, 2).map((signature, d) => def(`a${d}`, 'function', d + 1, signature))))
    table.addFile('b.py', content(signatures.slice(2).map((signature, d) => def(`b${d}`, 'function', d + 1, signature))))
    table.commit()
    const { data } = table.snapshot()
    assert.equal(data.sigText, signatures.join(''))
    assert.deepEqual([...data.sigEnds], signatures.map((_, d) => signatures.slice(0, d + 1).join('').length))
    writeFileSync(path, Buffer.concat([...await encodeSymbolsFile(table.rows().rows)]))
    const stored = SymbolTable.open(SymbolsFile.open(path))
    assert.deepEqual([...stored.definitions('a.py'), ...stored.definitions('b.py')].map((d) => d.signature), signatures)
    // Loaded whole (a build's load), then stored again: the same snapshot.
    assert.equal(stored.sortedFiles().length, 2)
    assert.deepEqual(stored.snapshot().data, data)
    assert.deepEqual(stored.definitions('b.py').map((d) => d.signature), signatures.slice(2))
  })

  it('reads only the blocks a lookup needs: damage elsewhere is not read, damage there is a damaged record', () => {
    const bytes = readFileSync(path)
    assert.equal(blockSpans<{ runs: number }>(bytes, 'symbols').meta.runs, 2, 'two runs of files')
    // Block 2 + 1: the second run (files from m2xx on).
    writeFileSync(path, flipInBlock(bytes, 'symbols', 2 + 1))
    const stored = SymbolTable.open(SymbolsFile.open(path))
    assert.deepEqual(stored.byName('f17'), memory.byName('f17'))
    assert.deepEqual(stored.referencesTo('area'), memory.referencesTo('area'))
    assert.deepEqual(stored.definitions('pkg/m017.py'), memory.definitions('pkg/m017.py'))
    const corrupt = (error: unknown): boolean => error instanceof CorruptFileError && error.path === path && /block 3 checksum mismatch/.test(error.reason)
    assert.throws(() => stored.byName('f399'), corrupt)
    assert.throws(() => stored.definitions('pkg/m399.py'), corrupt)
    assert.throws(() => stored.sortedFiles(), corrupt)

    // Each name's bucket: one byte flipped in the last block makes some lookup fail, as a damaged record.
    const tail = Buffer.from(bytes)
    tail[tail.length - 8] ^= 0xff
    writeFileSync(path, tail)
    const names = Array.from({ length: 400 }, (_, f) => `f${f}`)
    const failed = names.filter((name) => {
      try {
        SymbolTable.open(SymbolsFile.open(path)).byName(name)
        return false
      } catch (error) {
        assert.ok(error instanceof CorruptFileError && /block \d+ checksum mismatch/.test(error.reason), String(error))
        return true
      }
    })
    assert.ok(failed.length > 0 && failed.length < names.length, `${failed.length} lookups failed`)
  })

  it("is checked a block at a time (verify), giving each file's graph nodes; a damaged block, or a run whose checksums hold but which lacks a file, is a damaged record", async () => {
    const bases = new CodeGraph(memory).nodeBases()
    assert.deepEqual(checkStoredTable(SymbolsFile.open(path)), Uint32Array.from({ length: 401 }, (_, f) => bases[f + 1]! - bases[f]!))
    const bytes = readFileSync(path)
    const { spans } = blockSpans(bytes, 'symbols')
    // The paths, the names, each run, a bucket.
    for (const block of [0, 1, 2, 3, spans.length - 1]) {
      writeFileSync(path, flipInBlock(bytes, 'symbols', block))
      assert.throws(() => checkStoredTable(SymbolsFile.open(path)), (error: unknown) => error instanceof CorruptFileError && error.path === path && error.reason === `block ${block} checksum mismatch`, `block ${block}`)
    }
    writeFileSync(path, bytes)
    // The first run names its second file where its first should be: no checksum fails, a lookup of the first file would.
    await rewriteBlock(path, 'symbols', SYMBOLS_VERSION, 2, (run) => {
      const { paths } = run as { paths: Uint32Array }
      paths[0] = paths[1]!
      return run
    })
    assert.throws(() => checkStoredTable(SymbolsFile.open(path)), (error: unknown) => error instanceof CorruptFileError && error.reason === 'run 0 lacks pkg/__init__.py')
  })

  it('answers by file (definitions, imports, star importers) and lists defined names as the table it was made from', () => {
    const stored = SymbolTable.open(SymbolsFile.open(path))
    for (const file of ['pkg/m000.py', 'pkg/m050.py', 'pkg/m399.py', 'pkg/__init__.py', 'pkg/missing.py']) {
      assert.deepEqual(stored.definitions(file), memory.definitions(file), file)
      assert.deepEqual(stored.imports(file), memory.imports(file), file)
    }
    assert.deepEqual(stored.imports('pkg/__init__.py').map((row) => row.resolved?.path), ['pkg/m001.py'])
    assert.deepEqual(stored.starImporters(), ['pkg/__init__.py'])
    assert.deepEqual(stored.starImporters(), memory.starImporters())
    // Import rows by key: `.m001` is keyed m001, whatever it resolves to.
    for (const key of ['m001', 'm002', '']) assert.deepEqual(stored.importsKeyed(key), memory.importsKeyed(key), key)
    assert.deepEqual(stored.importsKeyed('m001'), [{ from: 'pkg/__init__.py', target: 'pkg/m001.py' }])
    assert.deepEqual([...stored.definedNames()], [...memory.definedNames()])
    assert.ok([...stored.definedNames()].includes('C3.area'))
  })

  it('keeps each fact once: a table of many files takes a fraction of its uncompressed snapshot', () => {
    const snapshot = Buffer.byteLength(new Packr({ moreTypes: true }).pack(memory.snapshot().data))
    // v3 held the whole snapshot as a block beside buckets spelling each definition out again.
    assert.ok(readFileSync(path).length < snapshot * 0.6, `${readFileSync(path).length} bytes stored for a ${snapshot}-byte snapshot`)
  })

  it('refuses a damaged directory, another version or a truncated file on opening', () => {
    const bytes = readFileSync(path)
    const cases: Array<[Buffer, RegExp]> = [
      [Buffer.from(bytes.subarray(0, bytes.length - 100)), /truncated/],
      [Buffer.concat([bytes.subarray(0, 40), Buffer.from([bytes[40]! ^ 0xff]), bytes.subarray(41)]), /block directory checksum mismatch/],
      [(() => { const b = Buffer.from(bytes); b.writeUInt32LE(2, 12); return b })(), /unknown version.*format version 2/],
    ]
    for (const [damaged, reason] of cases) {
      writeFileSync(path, damaged)
      assert.throws(() => SymbolsFile.open(path), (error: unknown) => error instanceof CorruptFileError && reason.test(error.reason), String(reason))
    }
    rmSync(path)
    assert.throws(() => SymbolsFile.open(path), (error: unknown) => error instanceof CorruptFileError && error.reason === 'missing')
  })

  it('lays out the same table in the same bytes', async () => {
    assert.deepEqual(Buffer.concat([...await encodeSymbolsFile(bigTable().snapshot().data)]), readFileSync(path))
  })

  it('lays out the same bytes with its blocks spooled to a scratch file', async () => {
    const spool = new ScratchFile(join(dir, 'spooled.mpk'))
    try {
      const parts = await encodeSymbolsFile(bigTable().snapshot().data, { spool })
      // Packed to the spool, not held: its blocks are most of the record.
      assert.ok(spool.length > readFileSync(path).length * 0.9, `${spool.length} bytes spooled`)
      assert.deepEqual(Buffer.concat([...parts]), readFileSync(path))
    } finally {
      spool.close()
    }
  })

  it("lays out a table's rows, read a run of files at a time, in the same bytes as its snapshot", async () => {
    const { rows, remap } = bigTable().rows()
    const taken: Array<[number, number]> = []
    const columns = rows.columns
    const bytes = Buffer.concat([...await encodeSymbolsFile({ ...rows, columns: (from, to) => (taken.push([from, to]), columns(from, to)) })])
    assert.deepEqual(bytes, readFileSync(path))
    assert.deepEqual(remap, bigTable().snapshot().remap)
    assert.ok(taken.every(([from, to]) => to - from < rows.paths.length), 'never every file at once')
  })
})
