import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CorruptFileError } from '../../src/core/errors.js'
import { BM25_RECORD_KIND, openBm25, writeBm25 } from '../../src/core/index/aggregates.js'
import type { Chunk } from '../../src/core/parse/types.js'
import { analyzeChunks, analyzeQuery, Bm25Index, type SearchHit } from '../../src/core/search/index.js'
import { confineTo, headerLength } from '../../src/core/store/index.js'

function chunk(name: string, body: string): Chunk {
  return {
    kind: name ? 'function' : 'block', name, qualifiedName: name, language: 'c', startLine: 1, endLine: 1,
    imports: '', classContext: '', signature: '', decorators: '', docstring: '', body, tokenCount: 0,
  }
}

/** Enough files and words that the dictionary spans several blocks and words recur across files. */
function tree(): Map<string, Chunk[]> {
  const files = new Map<string, Chunk[]>()
  for (let f = 0; f < 40; f++) {
    files.set(`drivers/dev${f % 5}/unit${f}.c`, [0, 1, 2].map((c) => chunk(`probe_unit${f}_${c}`, `int probe_unit${f}_${c}(void) { return shared_lock + word${(f * 3 + c) % 17} + count${f}; }`)))
  }
  files.set('empty.c', [])
  return files
}

function build(files: Map<string, Chunk[]>, order = [...files.keys()]): Bm25Index {
  const index = new Bm25Index()
  for (const path of order) index.addFile(path, analyzeChunks(files.get(path)!))
  return index
}

/** Every word of the tree as a query, a few prose ones, and a filter that reads the path and chunk. */
function answers(index: Bm25Index): SearchHit[][] {
  const queries = ['shared lock', 'probe unit7', 'word3 word11 count9', 'drivers dev2', 'nothing here']
  for (let f = 0; f < 40; f += 3) queries.push(`probe_unit${f}_1`, `count${f}`)
  const filtered = index.search('shared lock', { limit: 7, filter: (path, chunkIndex) => path.includes('dev3') && chunkIndex !== 1 })
  return [...queries.map((q) => index.search(q, { limit: 12 })), filtered]
}

describe('Bm25Index stored in blocks', () => {
  let dir: string
  let file: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-bm25-stored-'))
    confineTo(dir)
    file = join(dir, 'bm25.mpk')
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  /** Writes `index` and opens it again. */
  function stored(index: Bm25Index): Bm25Index {
    writeBm25(file, index)
    return Bm25Index.fromStored(openBm25(file))
  }

  it('answers from the file as the index it was written from', () => {
    const index = build(tree())
    const loaded = stored(index)
    assert.ok(openBm25(file).termCount > 64 * 2, 'the dictionary spans several blocks')
    assert.deepEqual(answers(loaded), answers(index))
    assert.equal(loaded.fileCount, index.fileCount)
    assert.equal(loaded.docCount, index.docCount)
    assert.equal(loaded.hasFile('empty.c'), true)
    assert.deepEqual(stored(new Bm25Index()).search('shared', { limit: 5 }), [])
  })

  it('writes the same bytes whatever order the files came in', () => {
    const files = tree()
    const paths = [...files.keys()]
    writeBm25(file, build(files, paths))
    const forward = readFileSync(file)
    writeBm25(file, build(files, paths.slice().reverse()))
    assert.deepEqual(readFileSync(file), forward, 'reversed')
    // Patched: files removed and added again after a seal, documents renumbered.
    const patched = build(files, paths)
    patched.snapshot()
    for (const path of paths.slice(0, 10)) patched.removeFile(path)
    for (const path of paths.slice(0, 10).reverse()) patched.addFile(path, analyzeChunks(files.get(path)!))
    writeBm25(file, patched)
    assert.deepEqual(readFileSync(file), forward, 'patched')
    // The postings went through a scratch file beside it, removed once written.
    assert.deepEqual(readdirSync(dir), ['bm25.mpk'])
  })

  it('takes changes once loaded, and stores them as a fresh build of the same files would', () => {
    const files = tree()
    const loaded = stored(build(files))
    loaded.removeFile('drivers/dev1/unit6.c')
    files.delete('drivers/dev1/unit6.c')
    const changed = [chunk('probe_unit9_0', 'int probe_unit9_0(void) { return brand_new_word; }')]
    loaded.addFile('drivers/dev4/unit9.c', analyzeChunks(changed))
    files.set('drivers/dev4/unit9.c', changed)
    loaded.addFile('a/first.c', analyzeChunks(changed))
    files.set('a/first.c', changed)
    // Queried with the stored postings and the fresh ones side by side, then sealed and written.
    assert.deepEqual(answers(loaded), answers(build(files)))
    assert.deepEqual(loaded.search('brand_new_word', { limit: 2 }).map((h) => h.path), ['a/first.c', 'drivers/dev4/unit9.c'])
    const again = stored(loaded)
    assert.deepEqual(answers(again), answers(build(files)))
    const bytes = readFileSync(file)
    writeBm25(join(dir, 'fresh.mpk'), build(files))
    assert.deepEqual(bytes, readFileSync(join(dir, 'fresh.mpk')))
  })

  it('hands a loaded index to another thread whole', () => {
    const index = build(tree())
    const loaded = stored(index)
    const { parts } = loaded.handOff()
    assert.deepEqual(answers(Bm25Index.fromParts(structuredClone(parts))), answers(index))
  })

  it('rebuilds a damaged stored index from its files, under the changes laid over it', () => {
    const files = tree()
    writeBm25(file, build(files))
    const bytes = readFileSync(file)
    const payload = headerLength(BM25_RECORD_KIND)
    bytes[payload + bytes.readUInt32LE(payload + 14 * 4)] ^= 0xff
    writeFileSync(file, bytes)
    const damage: string[] = []
    const recovery = {
      paths: () => [...files.keys()].sort(),
      chunksOf: (path: string) => analyzeChunks(files.get(path)!),
      rebuilt: (_: Bm25Index, error: CorruptFileError) => void damage.push(error.reason),
    }
    const changed = [chunk('probe_unit3_0', 'int probe_unit3_0(void) { return count0 + other; }')]
    // A query reading the damaged postings, after changes (an overlay's) were laid over the stored tier.
    const loaded = Bm25Index.fromStored(openBm25(file), recovery)
    loaded.removeFile('drivers/dev3/unit3.c')
    loaded.addFile('drivers/dev3/unit3.c', analyzeChunks(changed))
    const expected = build(new Map([...files, ['drivers/dev3/unit3.c', changed]]))
    assert.deepEqual(answers(loaded), answers(expected))
    assert.deepEqual(loaded.search('count0', { limit: 12 }), expected.search('count0', { limit: 12 }))
    assert.equal(damage.length, 1)
    assert.match(damage[0]!, /postings at byte \d+ checksum mismatch/)
    // Sealing reads every block: the damage is met there too.
    const sealed = Bm25Index.fromStored(openBm25(file), recovery)
    sealed.removeFile('drivers/dev0/unit0.c')
    sealed.snapshot()
    assert.equal(damage.length, 2)
    files.delete('drivers/dev0/unit0.c')
    assert.deepEqual(answers(sealed), answers(build(files)))
  })

  it('is checked a block at a time (verify): every term read and decoded; a damaged dictionary block or postings is a damaged record', () => {
    const index = build(tree())
    const loaded = stored(index)
    const terms = openBm25(file).termCount
    openBm25(file).checkBlocks()
    // Terms whose only files are gone, once the index is written again.
    loaded.removeFile('drivers/dev0/unit0.c')
    loaded.removeFile('drivers/dev1/unit1.c')
    writeBm25(file, loaded)
    assert.ok(openBm25(file).termCount < terms, 'written without them')
    openBm25(file).checkBlocks()
    writeBm25(file, index)
    const pristine = readFileSync(file)
    const payload = headerLength(BM25_RECORD_KIND)
    const dictionary = payload + pristine.readUInt32LE(payload + 13 * 4)
    const postings = payload + pristine.readUInt32LE(payload + 14 * 4)
    for (const [at, reason] of [[dictionary + 5, /^dictionary block at byte \d+ checksum mismatch$/], [postings, /^postings of a term in dictionary block 0 checksum mismatch$/], [pristine.length - 20, /checksum mismatch$/]] as const) {
      const damaged = Buffer.from(pristine)
      damaged[at] ^= 0xff
      writeFileSync(file, damaged)
      assert.throws(() => openBm25(file).checkBlocks(), (error: unknown) => error instanceof CorruptFileError && error.path === file && reason.test(error.reason), String(at))
    }
  })

  it('finds a damaged block when a query reads it, and answers queries that do not', () => {
    const index = build(tree())
    writeBm25(file, index)
    const pristine = readFileSync(file)
    const payload = headerLength(BM25_RECORD_KIND)
    const dictionary = payload + pristine.readUInt32LE(payload + 13 * 4)
    const postings = payload + pristine.readUInt32LE(payload + 14 * 4)
    const terms = openBm25(file).termCount
    // '0', the first term in code-unit order, has the first dictionary block's first entry and the first postings.
    const firstTermQuery = 'count0'
    assert.ok(analyzeQuery(firstTermQuery).includes('0') && terms > 0 && index.search(firstTermQuery, { limit: 3 }).length > 0)
    for (const at of [dictionary + 5, postings]) {
      const damaged = Buffer.from(pristine)
      damaged[at] ^= 0xff
      writeFileSync(file, damaged)
      const loaded = Bm25Index.fromStored(openBm25(file))
      assert.throws(() => loaded.search(firstTermQuery, { limit: 3 }), (error: unknown) => error instanceof CorruptFileError && error.path === file && /checksum mismatch/.test(error.reason))
      // Words of later blocks are read from sound ones.
      assert.deepEqual(loaded.search('shared lock', { limit: 12 }), index.search('shared lock', { limit: 12 }))
    }
    // The header and tables are checked on opening.
    for (const at of [payload + 3, payload + 70]) {
      const damaged = Buffer.from(pristine)
      damaged[at] ^= 0xff
      writeFileSync(file, damaged)
      assert.throws(() => openBm25(file), CorruptFileError)
    }
    writeFileSync(file, pristine.subarray(0, pristine.length - 10))
    assert.throws(() => openBm25(file), /truncated/)
  })
})
