import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { confineTo, ScratchFile, sweepTempFiles } from '../../src/core/store/index.js'

describe('store/scratch-file', () => {
  let root: string
  beforeEach(() => {
    root = join(mkdtempSync(join(tmpdir(), 'vlt-scratch-')), '.vlt')
    confineTo(root)
  })
  afterEach(() => rmSync(join(root, '..'), { recursive: true, force: true }))

  it('gives back what was written, in order, across buffer and chunk boundaries; closing removes it', () => {
    const scratch = new ScratchFile(join(root, 'trees', 'abc', 'bm25.mpk.postings'))
    const pieces = [3, (1 << 20) - 1, 5, 3 << 20, 1].map((size, k) => Buffer.alloc(size, k + 1))
    for (const piece of pieces) scratch.write(piece)
    assert.equal(scratch.length, pieces.reduce((sum, piece) => sum + piece.length, 0))
    // Each chunk is read into the buffer of the one before: copied as it comes, as a reader writes it out.
    const buffers = new Set<ArrayBufferLike>()
    const chunks = Array.from(scratch.chunks(), (chunk) => {
      buffers.add(chunk.buffer)
      return Buffer.from(chunk)
    })
    assert.ok(chunks.length > 4 && chunks.every((chunk) => chunk.length <= 1 << 20))
    assert.equal(buffers.size, 1, 'one buffer for every chunk read back, not a megabyte of garbage each')
    assert.deepEqual(Buffer.concat(chunks), Buffer.concat(pieces))
    assert.equal(readdirSync(join(root, 'trees', 'abc')).length, 1)
    scratch.close()
    scratch.close()
    assert.deepEqual(readdirSync(join(root, 'trees', 'abc')), [])
  })

  it('is named as a temp file, so one left behind by a dead process is swept', async () => {
    const scratch = new ScratchFile(join(root, 'trees', 'bm25.mpk.postings'))
    scratch.write(Buffer.from('left behind'))
    const [name] = readdirSync(join(root, 'trees'))
    assert.match(name!, /^bm25\.mpk\.postings\.\d+-\d+-[0-9a-f]+\.vlt-tmp$/)
    // Its writer (this process) is alive: only age lets the sweep take it.
    assert.equal(await sweepTempFiles(root), 0)
    utimesSync(join(root, 'trees', name!), new Date(0), new Date(0))
    assert.equal(await sweepTempFiles(root), 1)
    scratch.close()
  })
})
