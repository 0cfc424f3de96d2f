import assert from 'node:assert/strict'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CorruptFileError } from '../../src/core/errors.js'
import { PAGERANK_TOLERANCE } from '../../src/core/graph/index.js'
import { createAggregates, finishAndSave, loadAggregates, saveAggregates, writeBm25, type IndexedSummary, type TreeAggregates } from '../../src/core/index/aggregates.js'
import type { Chunk, ImportRef, SymbolDef, SymbolRef } from '../../src/core/parse/types.js'
import { analyzeChunks, type Bm25Index } from '../../src/core/search/index.js'
import { confineTo } from '../../src/core/store/index.js'

/** A C file defining `defs`, whose function `defs[0]` calls `calls`, including `includes`. */
function summary(defs: string[], calls: string[], includes: string[] = []): IndexedSummary {
  const symbols: SymbolDef[] = defs.map((name, i) => ({ name, qualifiedName: name, kind: 'function', line: i * 10 + 1, endLine: i * 10 + 9, column: 5, signature: `int ${name}(void)`, scope: '' }))
  const references: SymbolRef[] = calls.map((name, i) => ({ name, line: i + 2, column: 2, kind: 'call', enclosing: defs[0] ?? '' }))
  const imports: ImportRef[] = includes.map((module, i) => ({ module, names: [], line: i + 1, relative: true }))
  const chunks: Chunk[] = defs.map((name, i) => ({
    kind: 'function', name, qualifiedName: name, language: 'c', startLine: i * 10 + 1, endLine: i * 10 + 9, imports: '', classContext: '',
    signature: `int ${name}(void)`, decorators: '', docstring: '', body: `int ${name}(void) { ${calls.map((c) => `${c}();`).join(' ')} }`, tokenCount: 10,
  }))
  return { language: 'c', chunkCount: chunks.length, parseErrors: 0, lineCount: defs.length * 10, analyzed: analyzeChunks(chunks), symbols, references: toReferenceColumns(references), imports }
}

const TREE_A: Record<string, IndexedSummary> = {
  'src/main.c': summary(['main', 'usage'], ['parse_args', 'run', 'usage', 'log_msg'], ['util.h']),
  'src/util.h': summary(['log_msg'], []),
  'src/args.c': summary(['parse_args'], ['log_msg', 'strtol']),
  'src/run.c': summary(['run', 'step'], ['step', 'log_msg', 'shared']),
  'lib/shared.c': summary(['shared'], []),
}

function build(files: Record<string, IndexedSummary>): TreeAggregates {
  const aggregates = createAggregates()
  for (const [path, s] of Object.entries(files)) aggregates.addFile(path, s)
  aggregates.finish()
  return aggregates
}

/** Everything a snapshot holds but the ranks, comparable with deepEqual. */
function snapshotOf(aggregates: TreeAggregates): unknown {
  const { data, remap } = aggregates.symbols.snapshot()
  const { ranks: _, ...graph } = aggregates.graph.snapshot(remap)
  return { symbols: data, graph, bm25: aggregates.bm25.search('log run args', { limit: 10 }) }
}

/**
 * A patched graph starts PageRank from its previous ranks, so it reaches the fresh build's ranks
 * within the PageRank tolerance (an L1 distance), not bit for bit.
 */
function assertSameRanks(patched: TreeAggregates, fresh: TreeAggregates): void {
  const ranksOf = (aggregates: TreeAggregates): Float64Array => aggregates.graph.snapshot(aggregates.symbols.snapshot().remap).ranks
  const a = ranksOf(patched)
  const b = ranksOf(fresh)
  assert.equal(a.length, b.length)
  let distance = 0
  for (let node = 0; node < a.length; node++) distance += Math.abs(a[node]! - b[node]!)
  assert.ok(distance < PAGERANK_TOLERANCE * 10, `ranks differ by ${distance}`)
}

describe('tree aggregates', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-aggregates-'))
    confineTo(dir)
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('counts edges, nodes and symbols', () => {
    const aggregates = build(TREE_A)
    // import main→util.h; main→parse_args, run, usage, log_msg; args→log_msg; run→step, log_msg, shared.
    assert.deepEqual(aggregates.stats(), { edges: 9, nodes: 5 + 7, symbols: 7 })
    aggregates.finish()
    assert.equal(aggregates.stats().edges, 9)
  })

  it('a patched tree equals a fresh build of the same files', () => {
    const patched = build(TREE_A)
    const treeB = { ...TREE_A }
    delete treeB['lib/shared.c']
    treeB['src/run.c'] = summary(['run', 'step', 'shared'], ['step', 'shared', 'log_msg', 'helper'])
    treeB['src/helper.c'] = summary(['helper'], ['log_msg'])
    treeB['src/main.c'] = summary(['main', 'usage'], ['parse_args', 'run', 'usage', 'log_msg', 'helper'], ['util.h', 'helper.h'])
    treeB['src/helper.h'] = summary(['helper_inline'], [])
    patched.removeFile('lib/shared.c')
    for (const path of ['src/run.c', 'src/main.c']) patched.removeFile(path)
    for (const path of ['src/run.c', 'src/helper.c', 'src/main.c', 'src/helper.h']) patched.addFile(path, treeB[path]!)
    patched.finish()
    const fresh = build(treeB)
    assert.deepEqual(snapshotOf(patched), snapshotOf(fresh))
    assertSameRanks(patched, fresh)
    assert.deepEqual(patched.symbols.imports('src/main.c').map((i) => i.resolved?.path), ['src/util.h', 'src/helper.h'])
    assert.ok(patched.graph.rank('s:src/util.h#log_msg') > patched.graph.rank('s:src/helper.c#helper'))
  })

  it('saves and loads to the same aggregates, which can then be patched', async () => {
    const original = build(TREE_A)
    await saveAggregates(dir, original)
    const loaded = await loadAggregates(dir)
    assert.deepEqual(snapshotOf(loaded), snapshotOf(original))
    assert.deepEqual(loaded.stats(), original.stats())
    assert.deepEqual(loaded.symbols.byName('run').map((s) => `${s.path}:${s.line}:${s.signature}`), ['src/run.c:1:int run(void)'])
    assert.equal(loaded.graph.rank('s:src/util.h#log_msg'), original.graph.rank('s:src/util.h#log_msg'))

    const change = summary(['parse_args', 'parse_flag'], ['parse_flag', 'log_msg'])
    loaded.removeFile('src/args.c')
    loaded.addFile('src/args.c', change)
    loaded.finish()
    const fresh = build({ ...TREE_A, 'src/args.c': change })
    assert.deepEqual(snapshotOf(loaded), snapshotOf(fresh))
    assertSameRanks(loaded, fresh)
  })

  it('writes a large BM25 index on a worker thread beside finish() to the same index as in-thread', async function () {
    this.timeout(30_000)
    const unfinished = (): TreeAggregates => {
      const aggregates = createAggregates()
      for (const [path, s] of Object.entries(TREE_A)) aggregates.addFile(path, s)
      return aggregates
    }
    const inThread = unfinished()
    const aside = unfinished()
    const asideDir = mkdtempSync(join(tmpdir(), 'vlt-aggregates-aside-'))
    confineTo(asideDir)
    try {
      const finished = build(TREE_A)
      assert.deepEqual(await finishAndSave(dir, inThread, { asideFrom: Number.POSITIVE_INFINITY }), { edges: finished.graph.edgeCount })
      assert.deepEqual(await finishAndSave(asideDir, aside, { asideFrom: 0 }), { edges: finished.graph.edgeCount })
      // The index moved to the worker, and the graph was let go of once written: nothing is left here to answer from.
      assert.equal(aside.bm25.docCount, 0)
      assert.equal(aside.graph.edgeCount, 0)
      for (const name of ['bm25.mpk', 'symbols.mpk', 'graph.mpk']) assert.deepEqual(readFileSync(join(asideDir, name)), readFileSync(join(dir, name)), name)
      assert.deepEqual(snapshotOf(await loadAggregates(asideDir)), snapshotOf(finished))
    } finally {
      rmSync(asideDir, { recursive: true, force: true })
    }
  })

  it('runs work beside the saving once the BM25 thread has written its index, and returns only once that work is done', async function () {
    this.timeout(30_000)
    const aggregates = createAggregates()
    for (const [path, s] of Object.entries(TREE_A)) aggregates.addFile(path, s)
    const seen: string[] = []
    let done = false
    const beside = async (): Promise<void> => {
      seen.push(...readdirSync(dir).filter((name) => name === 'bm25.mpk'))
      await new Promise((resolve) => setTimeout(resolve, 200))
      done = true
    }
    await finishAndSave(dir, aggregates, { asideFrom: 0, beside })
    assert.deepEqual(seen, ['bm25.mpk'])
    assert.equal(done, true)
  })

  it('writes the BM25 index before the graph is resolved when asked to (bm25First), with the same bytes', async function () {
    this.timeout(30_000)
    const firstDir = mkdtempSync(join(tmpdir(), 'vlt-aggregates-first-'))
    confineTo(firstDir)
    try {
      const written: boolean[] = []
      for (const [target, bm25First] of [[dir, false], [firstDir, true]] as const) {
        const aggregates = createAggregates()
        for (const [path, s] of Object.entries(TREE_A)) aggregates.addFile(path, s)
        const finishSpent = aggregates.finishSpent.bind(aggregates)
        aggregates.finishSpent = (edgesResolved) => {
          written.push(existsSync(join(target, 'bm25.mpk')))
          return finishSpent(edgesResolved)
        }
        await finishAndSave(target, aggregates, { asideFrom: 0, bm25First })
      }
      assert.deepEqual(written, [false, true])
      for (const name of ['bm25.mpk', 'symbols.mpk', 'graph.mpk']) assert.deepEqual(readFileSync(join(firstDir, name)), readFileSync(join(dir, name)), name)
    } finally {
      rmSync(firstDir, { recursive: true, force: true })
    }
  })

  it('fails with the write error once the BM25 thread is settled, when the tree directory cannot be written', async function () {
    this.timeout(30_000)
    const aggregates = createAggregates()
    for (const [path, s] of Object.entries(TREE_A)) aggregates.addFile(path, s)
    // A file where the tree directory should be: no part can be written, in this thread or the BM25 one.
    const blocked = join(dir, 'not-a-directory')
    writeFileSync(blocked, '')
    await assert.rejects(finishAndSave(blocked, aggregates, { asideFrom: 0 }), /not-a-directory is not a directory/)
  })

  it('writes the same BM25 bytes whatever order the files were added in', async function () {
    this.timeout(30_000)
    const unfinished = (paths: string[]): TreeAggregates => {
      const aggregates = createAggregates()
      for (const path of paths) aggregates.addFile(path, TREE_A[path]!)
      return aggregates
    }
    const paths = Object.keys(TREE_A)
    const otherDir = mkdtempSync(join(tmpdir(), 'vlt-aggregates-order-'))
    confineTo(otherDir)
    try {
      await finishAndSave(dir, unfinished(paths))
      // Reversed, and written by the BM25 thread: a shard merge and a single init meet the files in other orders.
      await finishAndSave(otherDir, unfinished(paths.slice().reverse()), { asideFrom: 0 })
      assert.deepEqual(readFileSync(join(otherDir, 'bm25.mpk')), readFileSync(join(dir, 'bm25.mpk')))
    } finally {
      rmSync(otherDir, { recursive: true, force: true })
    }
  })

  it('bounded by a memory budget, writes runs and merges them into the BM25 bytes one index gives, leaving no file behind', async function () {
    this.timeout(30_000)
    const files: Record<string, IndexedSummary> = { ...TREE_A }
    for (let k = 0; k < 12; k++) files[`drivers/unit${k}.c`] = summary([`probe_${k}`, `remove_${k % 3}`], ['log_msg', `helper_${k % 4}`])
    const paths = Object.keys(files)
    const built = (treeDir: string, memoryBytes?: number): TreeAggregates => {
      const aggregates = createAggregates(memoryBytes === undefined ? undefined : { memoryBytes, treeDir })
      // Out of path order, so runs hold files from all over the tree.
      for (const path of paths.slice().reverse()) aggregates.addFile(path, files[path]!)
      return aggregates
    }
    const budget = createAggregates()
    for (const path of paths.slice(0, 4)) budget.addFile(path, files[path]!)
    // A run every few files.
    const memoryBytes = budget.bm25.memoryBytes
    const spilledDir = mkdtempSync(join(tmpdir(), 'vlt-aggregates-spill-'))
    const inThreadDir = mkdtempSync(join(tmpdir(), 'vlt-aggregates-spill-'))
    confineTo(spilledDir)
    confineTo(inThreadDir)
    try {
      await finishAndSave(dir, built(dir), { asideFrom: Number.POSITIVE_INFINITY })
      const spilled = built(spilledDir, memoryBytes)
      assert.ok(spilled.bm25Runs.length >= 3, `${spilled.bm25Runs.length} runs`)
      await finishAndSave(spilledDir, spilled)
      assert.deepEqual(readFileSync(join(spilledDir, 'bm25.mpk')), readFileSync(join(dir, 'bm25.mpk')))
      assert.deepEqual(readdirSync(spilledDir).sort(), ['bm25.mpk', 'graph.mpk', 'symbols.mpk'])
      // Written in this thread: the same bytes again.
      const inThread = built(inThreadDir, memoryBytes)
      inThread.finish()
      await saveAggregates(inThreadDir, inThread)
      inThread.dropBm25Runs()
      assert.deepEqual(readFileSync(join(inThreadDir, 'bm25.mpk')), readFileSync(join(dir, 'bm25.mpk')))
      assert.deepEqual(readdirSync(inThreadDir).sort(), ['bm25.mpk', 'graph.mpk', 'symbols.mpk'])
      // A save that fails (bm25.mpk cannot be replaced) removes the runs all the same.
      rmSync(spilledDir, { recursive: true, force: true })
      mkdirSync(join(spilledDir, 'bm25.mpk', 'in-the-way'), { recursive: true })
      const failing = built(spilledDir, memoryBytes)
      await assert.rejects(finishAndSave(spilledDir, failing))
      assert.deepEqual(readdirSync(spilledDir).sort(), ['bm25.mpk', 'graph.mpk', 'symbols.mpk'])
    } finally {
      rmSync(spilledDir, { recursive: true, force: true })
      rmSync(inThreadDir, { recursive: true, force: true })
    }
  })

  it('throws CorruptFileError for a damaged or missing file', async () => {
    await saveAggregates(dir, build(TREE_A))
    for (const name of ['bm25.mpk', 'symbols.mpk', 'graph.mpk']) {
      const path = join(dir, name)
      const bytes = readFileSync(path)
      const damaged = Buffer.from(bytes)
      // BM25 blocks are checked when a query reads them (test/search/stored.test.ts); its tables on loading.
      damaged[name === 'bm25.mpk' ? 40 : damaged.length >> 1] ^= 0xff
      writeFileSync(path, damaged)
      await assert.rejects(loadAggregates(dir), (error: unknown) => error instanceof CorruptFileError && error.path === path)
      rmSync(path)
      await assert.rejects(loadAggregates(dir), (error: unknown) => error instanceof CorruptFileError && error.path === path)
      writeFileSync(path, bytes)
    }
  })

  it('opened for a query, reads the BM25 index only when a search does, and rebuilds it from the files then if its tables are damaged', async () => {
    const memory = build(TREE_A)
    await saveAggregates(dir, memory)
    const path = join(dir, 'bm25.mpk')
    const pristine = readFileSync(path)
    for (const damage of ['flip', 'delete'] as const) {
      if (damage === 'flip') {
        const damaged = Buffer.from(pristine)
        damaged[40] ^= 0xff
        writeFileSync(path, damaged)
      } else rmSync(path)
      const rebuilt: string[] = []
      const recovery = {
        paths: () => Object.keys(TREE_A).sort(),
        chunksOf: (file: string) => TREE_A[file]?.analyzed,
        rebuilt: (index: Bm25Index, error: CorruptFileError) => {
          rebuilt.push(error.reason)
          writeBm25(path, index)
        },
      }
      const loaded = await loadAggregates(dir, { open: true, recovery })
      // What def and refs read: no BM25 table.
      assert.deepEqual(loaded.symbols.byName('log_msg'), memory.symbols.byName('log_msg'))
      assert.deepEqual(loaded.symbols.referencesTo('step'), memory.symbols.referencesTo('step'))
      assert.deepEqual(rebuilt, [])
      assert.deepEqual(loaded.bm25.search('log run args', { limit: 10 }), memory.bm25.search('log run args', { limit: 10 }))
      assert.equal(rebuilt.length, 1, damage)
      assert.match(rebuilt[0]!, damage === 'flip' ? /checksum mismatch/ : /missing/)
      assert.deepEqual(readFileSync(path), pristine, 'stored again as it was')
    }
  })
})
