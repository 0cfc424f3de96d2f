import assert from 'node:assert/strict'
import { pack } from '#msgpackr'
import { unpack } from '#msgpackr/unpack'
import { analyzeChunks, analyzeQuery, Bm25Index, type AnalyzedChunks, type SearchHit } from '../../src/core/search/index.js'
import { CorruptFileError } from '../../src/core/errors.js'
import type { Chunk } from '../../src/core/parse/types.js'

function chunk(name: string, body: string, signature = ''): Chunk {
  return {
    kind: name ? 'function' : 'block', name, qualifiedName: name, language: 'c', startLine: 1, endLine: 1,
    imports: '', classContext: '', signature, decorators: '', docstring: '', body, tokenCount: 0,
  }
}

/** Analysed chunks built by hand: `docs` are term → tf maps. */
function handMade(docs: Array<Record<string, number>>): AnalyzedChunks {
  const terms: string[] = []
  return {
    docs: docs.map((tfs) => {
      const entries = Object.entries(tfs)
      return {
        terms: entries.map(([term]) => (terms.includes(term) ? terms.indexOf(term) : terms.push(term) - 1)),
        tfs: entries.map(([, tf]) => tf),
        length: entries.reduce((n, [, tf]) => n + tf, 0),
      }
    }),
    get terms() {
      return terms.join(' ')
    },
  }
}

function near(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`)
}

/** A small source tree whose files use the same words in different roles. */
function sourceTree(): Map<string, Chunk[]> {
  return new Map([
    ['net/http/parse.c', [
      chunk('parseHttpResponse', 'int parseHttpResponse(struct buf *b) {\n  return read_status_line(b) + read_headers(b);\n}', 'int parseHttpResponse(struct buf *b)'),
      chunk('read_headers', 'static int read_headers(struct buf *b) { while (next_line(b)) count++; }', 'static int read_headers(struct buf *b)'),
    ]],
    ['net/http/client.c', [
      chunk('fetch', 'int fetch(url) {\n  conn = open(url);\n  err = parseHttpResponse(conn->buf);\n  if (err) err = parseHttpResponse(conn->retry);\n  log("parseHttpResponse failed");\n}', 'int fetch(url)'),
      chunk('retry_fetch', 'int retry_fetch(url) { return fetch(url) || fetch(url); }', 'int retry_fetch(url)'),
    ]],
    ['drivers/serial/uart.c', [
      chunk('uart_read', 'int uart_read(struct port *p) { return read_register(p, RX); }', 'int uart_read(struct port *p)'),
      chunk('', '/* line discipline glue: read headers of frames */'),
    ]],
    ['docs/notes.c', [chunk('', '/* response parsing notes: http status, headers, response body */')]],
  ])
}

function build(tree: Map<string, Chunk[]>): Bm25Index {
  const index = new Bm25Index()
  for (const [path, chunks] of tree) index.addFile(path, analyzeChunks(chunks))
  return index
}

const QUERIES = ['parseHttpResponse', 'parse http response', 'read headers', 'fetch url', 'uart', 'line']

function answers(index: Bm25Index): SearchHit[][] {
  return QUERIES.map((q) => index.search(q, { limit: 10 }))
}

describe('Bm25Index', () => {
  it('scores with BM25 (k1 1.2, b 0.75, Lucene idf) as computed by hand', () => {
    assert.deepEqual(analyzeQuery('lock page kernel'), ['lock', 'page', 'kernel'])
    const index = new Bm25Index()
    // One-letter paths add no terms, so the documents are exactly these.
    index.addFile('x.c', handMade([{ lock: 2, page: 1 }, { lock: 1 }]))
    index.addFile('y.c', handMade([{ kernel: 3, page: 1 }]))
    // N = 3, avgdl = 8/3; e.g. page: idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)).
    const page = index.search('page', { limit: 10 })
    assert.deepEqual(page.map((h) => [h.path, h.chunkIndex]), [['x.c', 0], ['y.c', 0]])
    near(page[0].score, 0.44713858782297017)
    near(page[1].score, 0.39019169220400696)
    const lockPage = index.search('lock page', { limit: 10 })
    assert.deepEqual(lockPage.map((h) => [h.path, h.chunkIndex]), [['x.c', 0], ['x.c', 1], ['y.c', 0]])
    near(lockPage[0].score, 1.0714452953493814)
    near(lockPage[1].score, 0.6314552576125915)
    near(lockPage[2].score, 0.39019169220400696)
    near(index.search('kernel', { limit: 1 })[0].score, 1.3921447462101921)
  })

  it('ranks the definition of an exact identifier above chunks that only mention it', () => {
    const index = build(sourceTree())
    const hits = index.search('parseHttpResponse', { limit: 10 })
    assert.deepEqual([hits[0].path, hits[0].chunkIndex], ['net/http/parse.c', 0])
    assert.ok(hits.some((h) => h.path === 'net/http/client.c' && h.chunkIndex === 0), 'mentions still match')
    const prose = index.search('parse http response', { limit: 3 })
    assert.deepEqual([prose[0].path, prose[0].chunkIndex], ['net/http/parse.c', 0])
  })

  it('matches path terms', () => {
    const index = build(sourceTree())
    const hits = index.search('serial', { limit: 10 })
    assert.deepEqual(hits.map((h) => h.path), ['drivers/serial/uart.c', 'drivers/serial/uart.c'])
  })

  it('forgets removed files and replaces re-added ones', () => {
    const index = build(sourceTree())
    assert.equal(index.removeFile('net/http/parse.c'), true)
    assert.equal(index.removeFile('net/http/parse.c'), false)
    assert.ok(index.search('parseHttpResponse', { limit: 10 }).every((h) => h.path !== 'net/http/parse.c'))
    assert.equal(index.fileCount, 3)
    assert.equal(index.docCount, 5)
    index.addFile('drivers/serial/uart.c', analyzeChunks([chunk('uart_write', 'int uart_write(struct port *p) {}')]))
    assert.deepEqual(index.search('uart', { limit: 10 }).map((h) => [h.path, h.chunkIndex]), [['drivers/serial/uart.c', 0]])
    assert.deepEqual(index.search('read_register', { limit: 10 }), [])
  })

  it('answers after patches exactly as an index built from scratch', () => {
    const tree = sourceTree()
    const patched = build(tree)
    patched.snapshot()
    // A sequence of one-file commits, sealing (as a sync would) between them.
    const edits: Array<[string, Chunk[] | null]> = [
      ['net/http/client.c', [chunk('fetch', 'int fetch(url) { return parseHttpResponse(open(url)); }')]],
      ['docs/notes.c', null],
      ['net/http/headers.c', [chunk('read_header_line', 'int read_header_line(struct buf *b) { return next_line(b); }')]],
      ['net/http/parse.c', [chunk('parseHttpResponse', 'int parseHttpResponse(struct buf *b) { return 0; }')]],
    ]
    for (const [path, chunks] of edits) {
      if (chunks) {
        tree.set(path, chunks)
        patched.addFile(path, analyzeChunks(chunks))
      } else {
        tree.delete(path)
        patched.removeFile(path)
      }
      assert.deepEqual(answers(patched), answers(build(tree)), `after editing ${path}`)
      patched.snapshot()
      assert.deepEqual(answers(patched), answers(build(tree)), `after sealing ${path}`)
    }
  })

  it('keeps exact scores through tombstones and full compaction on a larger index', () => {
    const tree = new Map<string, Chunk[]>()
    for (let f = 0; f < 60; f++) {
      tree.set(`src/module${f}.c`, [0, 1, 2].map((c) => chunk(`handler${f}_${c}`, `int handler${f}_${c}(void) { return shared_state + local${c} + value${f % 7}; }`)))
    }
    const patched = build(tree)
    patched.snapshot()
    const queries = ['shared state', 'handler3_1', 'value4', 'local2 value1']
    const same = (label: string): void => {
      const fresh = build(tree)
      for (const q of queries) assert.deepEqual(patched.search(q, { limit: 20 }), fresh.search(q, { limit: 20 }), `${label}: ${q}`)
    }
    // Remove a fifth of the files: tombstones in the base, then a full merge at the next seal.
    for (let f = 0; f < 60; f += 5) {
      tree.delete(`src/module${f}.c`)
      patched.removeFile(`src/module${f}.c`)
    }
    same('tombstoned')
    patched.snapshot()
    same('compacted')
    // Small changes next: the first seal starts a tail segment, later ones merge into it.
    for (const f of [100, 101, 102]) {
      const path = `src/extra${f}.c`
      const chunks = [chunk(`extra${f}`, `int extra${f}(void) { return shared_state + value${f % 7}; }`)]
      tree.set(path, chunks)
      patched.addFile(path, analyzeChunks(chunks))
      patched.removeFile(`src/module${f - 99}.c`)
      tree.delete(`src/module${f - 99}.c`)
      same(`added ${path}`)
      patched.snapshot()
      same(`sealed ${path}`)
    }
    patched.removeFile('src/extra101.c')
    tree.delete('src/extra101.c')
    patched.snapshot()
    same('removed from the tail')
    const restored = Bm25Index.fromSnapshot(unpack(pack(patched.snapshot())))
    for (const q of queries) assert.deepEqual(restored.search(q, { limit: 20 }), build(tree).search(q, { limit: 20 }))
  })

  it('round-trips through msgpackr and stays patchable', () => {
    const index = build(sourceTree())
    const before = answers(index)
    const packed = pack(index.snapshot())
    const loaded = Bm25Index.fromSnapshot(unpack(packed))
    assert.deepEqual(answers(loaded), before)
    assert.equal(loaded.fileCount, 4)
    assert.equal(loaded.docCount, 7)
    loaded.removeFile('net/http/parse.c')
    index.removeFile('net/http/parse.c')
    assert.deepEqual(answers(loaded), answers(index))
  })

  it('hands its whole state over through a structured clone, sealed segments, tombstones and fresh postings alike', () => {
    const tree = sourceTree()
    const index = build(tree)
    // A loaded (sealed) index, patched: a tombstoned file and fresh postings on top of the segment.
    const patched = Bm25Index.fromSnapshot(unpack(pack(index.snapshot())))
    patched.search('uart', { limit: 1 })
    patched.removeFile('drivers/serial/uart.c')
    patched.addFile('drivers/serial/uart.c', analyzeChunks([chunk('uart_write', 'int uart_write(struct port *p) { return write_register(p, TX); }')]))
    const expected = answers(patched)
    const { parts, transfer } = patched.handOff()
    assert.equal(patched.docCount, 0)
    assert.deepEqual(patched.search('uart', { limit: 10 }), [])
    const moved = Bm25Index.fromParts(structuredClone(parts, { transfer }))
    assert.deepEqual(answers(moved), expected)
    assert.ok(moved.hasFile('drivers/serial/uart.c'))
    assert.equal(moved.fileCount, 4)
    // Still patchable, and its snapshot loads to the same answers.
    moved.removeFile('net/http/client.c')
    assert.deepEqual(answers(Bm25Index.fromSnapshot(unpack(pack(moved.snapshot())))), answers(moved))
  })

  it('rejects a snapshot of another version or with inconsistent tables', () => {
    const snapshot = build(sourceTree()).snapshot()
    assert.throws(() => Bm25Index.fromSnapshot({ ...snapshot, version: 99 }, 'bm25.mpk'), CorruptFileError)
    assert.throws(() => Bm25Index.fromSnapshot({ ...snapshot, docLengths: snapshot.docLengths.subarray(4) }), CorruptFileError)
    assert.throws(() => Bm25Index.fromSnapshot('garbage'), CorruptFileError)
  })

  it('applies the filter and still fills the limit from documents it accepts', () => {
    const index = build(sourceTree())
    const seen: string[] = []
    const hits = index.search('read headers', {
      limit: 2,
      filter: (path) => {
        seen.push(path)
        return path !== 'net/http/parse.c'
      },
    })
    assert.equal(hits.length, 2)
    assert.ok(hits.every((h) => h.path !== 'net/http/parse.c'))
    assert.ok(seen.includes('net/http/parse.c'))
    const byChunk = index.search('read headers', { limit: 10, filter: (_, chunkIndex) => chunkIndex === 1 })
    assert.ok(byChunk.length > 0 && byChunk.every((h) => h.chunkIndex === 1))
  })

  it('returns nothing for empty queries, stopword-only queries and a zero limit', () => {
    const index = build(sourceTree())
    assert.deepEqual(index.search('', { limit: 10 }), [])
    assert.deepEqual(index.search('the of return', { limit: 10 }), [])
    assert.deepEqual(index.search('uart', { limit: 0 }), [])
    assert.deepEqual(new Bm25Index().search('uart', { limit: 10 }), [])
  })

  it('indexes files without chunks', () => {
    const index = new Bm25Index()
    index.addFile('empty.c', analyzeChunks([]))
    index.addFile('one.c', analyzeChunks([chunk('only', 'only()')]))
    const loaded = Bm25Index.fromSnapshot(unpack(pack(index.snapshot())))
    assert.equal(loaded.hasFile('empty.c'), true)
    assert.deepEqual(loaded.search('only', { limit: 5 }).map((h) => h.path), ['one.c'])
  })
})
