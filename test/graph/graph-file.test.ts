import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CorruptFileError } from '../../src/core/errors.js'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import { checkStoredTable, CodeGraph, encodeGraphFile, encodeSymbolsFile, GraphFile, GRAPH_VERSION, SymbolsFile, SymbolTable, type FileContent } from '../../src/core/graph/index.js'
import { checkRecord, confineTo } from '../../src/core/store/index.js'
import { blockSpans, flipInBlock } from '../helpers/block-spans.js'
import type { SymbolDef, SymbolRef } from '../../src/core/parse/types.js'

function def(name: string, line: number): SymbolDef {
  return { name, qualifiedName: name, kind: 'function', line, endLine: line + 1, column: 0, signature: '', scope: '' }
}

function c(symbols: SymbolDef[], calls: Array<[string, string]>): FileContent {
  const refs: SymbolRef[] = calls.map(([name, enclosing]) => ({ name, line: 1, column: 0, kind: 'call', enclosing }))
  return { language: 'c', symbols, references: toReferenceColumns(refs), imports: [] }
}

/** 300 files calling each other's functions: several runs of the symbol table, a graph worth ranking. `extra`: the file defining one more function. */
function graphOf(extra?: number): CodeGraph {
  const table = new SymbolTable()
  for (let f = 0; f < 300; f++) {
    const name = `fn${f}`
    const calls: Array<[string, string]> = [[`fn${(f * 7) % 300}`, name], [`fn${(f + 1) % 300}`, name], ['hub', name]]
    for (let i = 0; i < 8; i++) calls.push([`local${f}_${i}`, name])
    table.addFile(`src/f${String(f).padStart(3, '0')}.c`, c([def(name, 1), def(`other${f}`, 9), ...(f === 0 ? [def('hub', 20)] : []), ...(f === extra ? [def('extra', 30)] : [])], calls))
  }
  const graph = new CodeGraph(table)
  graph.update(table.commit())
  return graph
}

describe('stored code graph (graph-file.ts)', () => {
  let dir: string
  let symbolsPath: string
  let graphPath: string
  const memory = graphOf()

  const write = async (graph: CodeGraph): Promise<Buffer> => {
    const { data } = graph.symbols.snapshot()
    writeFileSync(symbolsPath, Buffer.concat([...await encodeSymbolsFile(data)]))
    const bytes = Buffer.concat([...await encodeGraphFile(graph.storedSource())])
    writeFileSync(graphPath, bytes)
    return bytes
  }
  const open = (): CodeGraph => CodeGraph.open(GraphFile.open(graphPath), SymbolTable.open(SymbolsFile.open(symbolsPath)))

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-graph-file-'))
    confineTo(dir)
    symbolsPath = join(dir, 'symbols.mpk')
    graphPath = join(dir, 'graph.mpk')
    await write(memory)
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('is a record whose frame checks whole, and ranks nodes and files as the graph it was made from', () => {
    assert.equal(checkRecord(readFileSync(graphPath), 'graph', GRAPH_VERSION, graphPath).kind, 'graph')
    const stored = open()
    assert.equal(stored.edgeCount, memory.edgeCount)
    assert.equal(stored.nodeCount, memory.nodeCount)
    for (const key of ['s:src/f000.c#hub', 's:src/f017.c#fn17', 's:src/f299.c#other299', 'f:src/f123.c', 's:src/f017.c#missing', 'f:src/none.c', 'x:nothing']) {
      assert.equal(stored.rank(key), memory.rank(key), key)
    }
    assert.ok(stored.rank('s:src/f000.c#hub') > stored.rank('s:src/f017.c#other17'))
    for (const path of ['src/f000.c', 'src/f250.c', 'src/none.c']) assert.equal(stored.fileRank(path), memory.fileRank(path), path)
    // Numbered as stored (the repo map's view) before the edges are read, and after.
    const hub = (graph: CodeGraph): number => graph.symbolNode(graph.symbols.file('src/f000.c')!, graph.symbols.strings.find('hub'))
    assert.equal(hub(stored), hub(memory))
    // Whatever needs the edges reads them, and the whole table.
    assert.deepEqual(stored.nodeRanks(), memory.nodeRanks())
    assert.equal(stored.toGraphology().size, memory.toGraphology().size)
  })

  it('ranks without reading the edges or the whole symbol table; damage there is found by what reads it', () => {
    const bytes = readFileSync(graphPath)
    // 300 files are two slices: blocks 0 and 1 hold their ranks, 2 and 3 their edges.
    assert.equal(blockSpans(bytes, 'graph').spans.length, 4)
    writeFileSync(graphPath, flipInBlock(bytes, 'graph', 3))
    // A symbol run no rank below needs is damaged too: the first file's run is all they read.
    const symbols = readFileSync(symbolsPath)
    assert.ok(blockSpans<{ runs: number }>(symbols, 'symbols').meta.runs >= 2)
    writeFileSync(symbolsPath, flipInBlock(symbols, 'symbols', 2 + 1))
    const stored = open()
    assert.equal(stored.rank('s:src/f000.c#hub'), memory.rank('s:src/f000.c#hub'))
    assert.equal(stored.fileRank('src/f001.c'), memory.fileRank('src/f001.c'))
    assert.equal(stored.fileRank('src/f299.c'), memory.fileRank('src/f299.c'))
    assert.deepEqual(stored.nodeRanks(), memory.nodeRanks())
    assert.throws(() => stored.personalizedRanks(new Float64Array(stored.nodeCount)), (error: unknown) => error instanceof CorruptFileError && error.path === graphPath && /block 3 checksum mismatch/.test(error.reason))
    writeFileSync(symbolsPath, symbols)

    // A file's rank reads its own slice alone.
    writeFileSync(graphPath, flipInBlock(bytes, 'graph', 1))
    const sliced = open()
    assert.equal(sliced.rank('s:src/f000.c#hub'), memory.rank('s:src/f000.c#hub'))
    assert.equal(sliced.fileRank('src/f255.c'), memory.fileRank('src/f255.c'))
    assert.throws(() => sliced.fileRank('src/f256.c'), (error: unknown) => error instanceof CorruptFileError && error.path === graphPath && /block 1 checksum mismatch/.test(error.reason))
    assert.throws(() => open().nodeRanks(), (error: unknown) => error instanceof CorruptFileError && /block 1 checksum mismatch/.test(error.reason))
  })

  it('is checked a block at a time against the symbol table (verify), as loading it whole would: another table or a damaged block is a damaged record', async () => {
    const check = (): void => {
      const symbols = SymbolsFile.open(symbolsPath)
      GraphFile.open(graphPath).checkBlocks(checkStoredTable(symbols))
    }
    check()
    const corrupt = (reason: RegExp) => (error: unknown): boolean => error instanceof CorruptFileError && error.path === graphPath && reason.test(error.reason)
    const graph = readFileSync(graphPath)
    writeFileSync(graphPath, flipInBlock(graph, 'graph', 3))
    assert.throws(check, corrupt(/^block 3 checksum mismatch$/))
    writeFileSync(graphPath, graph)
    // The same files, one defining one more function: loading the pair whole fails, and so does the check, naming the file.
    const other = graphOf(5)
    writeFileSync(symbolsPath, Buffer.concat([...await encodeSymbolsFile(other.symbols.snapshot().data)]))
    assert.throws(() => open().load(), corrupt(/graph ranks do not match the symbol table/))
    assert.throws(check, corrupt(/^graph ranks do not match the symbols of file 5$/))
  })

  it('lays out the same graph in the same bytes, and a graph read back writes them again', async () => {
    const bytes = readFileSync(graphPath)
    assert.deepEqual(await write(graphOf()), bytes)
    const stored = open()
    stored.load()
    assert.deepEqual(await write(stored), bytes)
  })

  it('refuses a graph of another version or one not matching the symbol table', async () => {
    const bytes = readFileSync(graphPath)
    const older = Buffer.from(bytes)
    older.writeUInt32LE(1, 10)
    writeFileSync(graphPath, older)
    assert.throws(() => GraphFile.open(graphPath), (error: unknown) => error instanceof CorruptFileError && /unknown version.*format version 1/.test(error.reason))
    writeFileSync(graphPath, bytes)
    const small = new SymbolTable()
    small.addFile('a.c', c([def('a', 1)], []))
    small.commit()
    writeFileSync(symbolsPath, Buffer.concat([...await encodeSymbolsFile(small.snapshot().data)]))
    assert.throws(() => open(), (error: unknown) => error instanceof CorruptFileError && /does not match the symbol table/.test(error.reason))
  })
})
