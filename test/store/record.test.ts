import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { CorruptFileError } from '../../src/core/errors.js'
import { checkRecord, checkRecordFileSync, ConfinementError, confineTo, decodeRecord, encodeRecord, frameParts, readRecord, readRecordSync, writeRecord, writeRecordSync } from '../../src/core/store/index.js'

function corruption(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    assert.ok(error instanceof CorruptFileError, `expected CorruptFileError, got ${String(error)}`)
    assert.equal(error.path, 'x.mpk')
    assert.ok(error.message.startsWith('x.mpk: '))
    return error.reason
  }
  assert.fail('decoded without complaint')
}

const decode = (buf: Uint8Array, kind = 'bm25', version = 3) => decodeRecord(buf, kind, version, 'x.mpk')

describe('store/record', () => {
  it('round-trips plain data and typed arrays, keeping their types', () => {
    const shared = new ArrayBuffer(64)
    const payload = {
      u32: new Uint32Array([0, 1, 0xffffffff]),
      f32: new Float32Array([1.5, -0, Number.POSITIVE_INFINITY]),
      f64: new Float64Array([Math.PI, Number.NaN, -1e300]),
      u8: new Uint8Array([0, 127, 255]),
      i32: new Int32Array([-2147483648, 7]),
      // A view at an odd offset into a bigger buffer must come back as exactly its own elements.
      view: new Uint16Array(shared, 6, 3).fill(513),
      empty: new Float32Array(0),
      text: 'héllo wörld — ✓ 🎉',
      nested: { list: [1, -2, 3.25, 2 ** 40, null, true, 'x'], deep: { chunks: [{ name: 'a', lines: new Uint32Array([1, 9]) }] } },
      emptyObject: {},
    }
    const back = decode(encodeRecord('bm25', 3, payload)) as typeof payload
    assert.deepStrictEqual(back, payload)
    for (const key of ['u32', 'f32', 'f64', 'u8', 'i32', 'view'] as const) {
      assert.equal(back[key].constructor, payload[key].constructor, key)
    }
    assert.equal(back.view.length, 3)
  })

  it('decodes records of the same shape from separate encodes independently', () => {
    const a = encodeRecord('tree-manifest', 1, { files: [{ path: 'a', blob: '1' }] })
    const b = encodeRecord('tree-manifest', 1, { files: [{ path: 'b', blob: '2' }, { path: 'c', blob: '3' }] })
    assert.deepStrictEqual(decodeRecord(b, 'tree-manifest', 1, 'b'), { files: [{ path: 'b', blob: '2' }, { path: 'c', blob: '3' }] })
    assert.deepStrictEqual(decodeRecord(a, 'tree-manifest', 1, 'a'), { files: [{ path: 'a', blob: '1' }] })
  })

  it('decoded typed arrays do not alias the file buffer', () => {
    const buf = encodeRecord('bm25', 3, { u8: new Uint8Array([1, 2, 3]), f64: new Float64Array([4, 5]) })
    const back = decode(buf) as { u8: Uint8Array; f64: Float64Array }
    buf.fill(0)
    assert.deepStrictEqual([...back.u8], [1, 2, 3])
    assert.deepStrictEqual([...back.f64], [4, 5])
  })

  it('names every kind of damage', () => {
    const good = encodeRecord('bm25', 3, { terms: ['a', 'b'], postings: new Uint32Array(100).fill(7) })
    const flip = (at: number) => {
      const copy = Buffer.from(good)
      copy[at]! ^= 0x10
      return copy
    }
    assert.match(corruption(() => decode(flip(good.length - 40))), /^checksum mismatch \(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\)$/)
    assert.match(corruption(() => decode(flip(good.length - 1))), /^checksum mismatch/)
    // A flipped bit in the kind or version is caught by the checksum, not misreported.
    assert.match(corruption(() => decode(flip(6))), /^checksum mismatch/)
    assert.match(corruption(() => decode(good.subarray(0, good.length - 10))), new RegExp(`^truncated: header announces ${good.length} bytes, file has ${good.length - 10}$`))
    assert.match(corruption(() => decode(good.subarray(0, 12))), /^truncated: 12 bytes, shorter than its/)
    assert.match(corruption(() => decode(good.subarray(0, 2))), /^truncated: 2 bytes/)
    assert.equal(corruption(() => decode(Buffer.alloc(0))), 'empty file')
    assert.equal(corruption(() => decode(Buffer.concat([good, Buffer.from('xyz')]))), '3 unexpected bytes after the record\'s end')
    assert.equal(corruption(() => decode(Buffer.from('{"json": "is not a record"}'))), 'bad magic: not a vlt record')
    assert.equal(corruption(() => decode(Buffer.from([0x00, 0x01]))), 'bad magic: not a vlt record')
    const future = flip(3)
    future[3] = 3
    assert.equal(corruption(() => decode(future)), 'unknown record container format 3 (this build reads 1 and 2)')

    assert.equal(corruption(() => decode(good, 'blob-artifact', 3)), "wrong kind: a 'bm25' record where a 'blob-artifact' record was expected")
    assert.equal(corruption(() => decode(encodeRecord('bm25', 4, {}), 'bm25', 3)), "unknown version: 'bm25' format version 4 is newer than the version 3 this build reads")
    assert.equal(corruption(() => decode(encodeRecord('bm25', 2, {}), 'bm25', 3)), "unknown version: 'bm25' format version 2 is older than the version 3 this build reads")
  })

  it('round-trips a compressed payload, smaller, and finds damage in it before decompressing', () => {
    const payload = { chunks: Array.from({ length: 200 }, (_, i) => ({ name: `kmalloc_${i % 7}`, body: 'static void *kmalloc(size_t size, gfp_t flags)\n'.repeat(3), lines: new Uint32Array([i, i + 9]) })) }
    const plain = encodeRecord('blob-artifact', 2, payload)
    const compressed = encodeRecord('blob-artifact', 2, payload, { compress: true })
    assert.equal(compressed[3], 2)
    assert.ok(compressed.length * 4 < plain.length, `${compressed.length} compressed vs ${plain.length} plain`)
    assert.deepStrictEqual(decodeRecord(compressed, 'blob-artifact', 2, 'c'), decodeRecord(plain, 'blob-artifact', 2, 'p'))
    const damaged = Buffer.from(compressed)
    damaged[damaged.length - 20]! ^= 0x01
    assert.match(corruption(() => decodeRecord(damaged, 'blob-artifact', 2, 'x.mpk')), /^checksum mismatch/)
    // Sealed again over bytes that are not brotli: reported as an undecodable payload, never thrown raw.
    const payloadAt = 5 + 'blob-artifact'.length + 8
    const garbled = Buffer.from(compressed)
    garbled.fill(0xff, payloadAt, payloadAt + 16)
    garbled.writeUInt32LE(crc32(garbled.subarray(0, garbled.length - 4)), garbled.length - 4)
    assert.match(corruption(() => decodeRecord(garbled, 'blob-artifact', 2, 'x.mpk')), /^payload does not decode: /)
  })

  it('reports a payload that passes the checksum but is not msgpack', () => {
    const good = encodeRecord('bm25', 3, 1)
    // 0xdc opens an array whose length bytes are missing; re-seal it so only the payload is wrong.
    const payloadAt = 5 + 'bm25'.length + 8
    const bad = Buffer.from(good)
    bad[payloadAt] = 0xdc
    bad.writeUInt32LE(crc32(bad.subarray(0, bad.length - 4)), bad.length - 4)
    assert.match(corruption(() => decode(bad)), /^payload does not decode: /)
  })

  it('refuses kinds and versions it could not write back faithfully', () => {
    assert.throws(() => encodeRecord('', 1, {}), /record kind/)
    assert.throws(() => encodeRecord('with space', 1, {}), /record kind/)
    assert.throws(() => encodeRecord('x'.repeat(256), 1, {}), /record kind/)
    assert.throws(() => encodeRecord('bm25', -1, {}), /u32/)
    assert.throws(() => encodeRecord('bm25', 1.5, {}), /u32/)
  })
})

describe('store/record files', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-record-'))
    confineTo(dir)
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('writes into missing directories and reads back, async and sync', async () => {
    const path = join(dir, 'objects', '1', 'ab', 'cdef.c.mpk')
    assert.equal(await readRecord(path, 'blob-artifact', 1), undefined)
    assert.equal(readRecordSync(path, 'blob-artifact', 1), undefined)
    await writeRecord(path, 'blob-artifact', 1, { n: 1, ids: new Uint32Array([5]) })
    assert.deepStrictEqual(await readRecord(path, 'blob-artifact', 1), { n: 1, ids: new Uint32Array([5]) })
    const other = join(dir, 'trees', 'x', 'bm25.mpk')
    writeRecordSync(other, 'bm25', 2, { n: 2 }, { durable: false })
    assert.deepStrictEqual(readRecordSync(other, 'bm25', 2), { n: 2 })
    await writeRecord(other, 'bm25', 2, { n: 3 })
    assert.deepStrictEqual(await readRecord(other, 'bm25', 2), { n: 3 })
  })

  it('throws CorruptFileError with the file path for a damaged file', async () => {
    const path = join(dir, 'state.mpk')
    await writeRecord(path, 'state', 1, { treeHash: 'abc' })
    const bytes = await readFile(path)
    await writeFile(path, bytes.subarray(0, bytes.length - 1))
    await assert.rejects(readRecord(path, 'state', 1), (error: unknown) => error instanceof CorruptFileError && error.path === path && /^truncated/.test(error.reason))
    assert.throws(() => readRecordSync(path, 'state', 1), CorruptFileError)
  })

  it('checks a record file a megabyte at a time exactly as checkRecord checks its bytes', async () => {
    // A block layout of 3 MB (so the checksum runs over several reads) and a compressed record.
    const large = Buffer.concat([...frameParts('bm25', 3, [Buffer.alloc(2_000_000, 7), Buffer.alloc(1_100_000, 9)])])
    const small = encodeRecord('tree-manifest', 2, { files: ['a', 'b'] }, { compress: true })
    const flip = (bytes: Buffer, at: number): Buffer => {
      const copy = Buffer.from(bytes)
      copy[at]! ^= 0x04
      return copy
    }
    const cases: Array<[string, Buffer, string, number]> = [
      ['whole', large, 'bm25', 3],
      ['whole compressed', small, 'tree-manifest', 2],
      ['flipped past the first megabyte', flip(large, 2_500_000), 'bm25', 3],
      ['flipped in the kind', flip(large, 6), 'bm25', 3],
      ['flipped checksum', flip(small, small.length - 2), 'tree-manifest', 2],
      ['truncated', large.subarray(0, large.length - 5), 'bm25', 3],
      ['header only', large.subarray(0, 12), 'bm25', 3],
      ['trailing bytes', Buffer.concat([small, Buffer.from('x')]), 'tree-manifest', 2],
      ['empty', Buffer.alloc(0), 'bm25', 3],
      ['not a record', Buffer.from('{"json": true}'), 'bm25', 3],
      ['wrong kind', small, 'bm25', 2],
      ['older version', large, 'bm25', 4],
    ]
    const outcome = (check: () => unknown): string => {
      try {
        check()
        return 'sound'
      } catch (error) {
        assert.ok(error instanceof CorruptFileError, String(error))
        return error.reason
      }
    }
    const path = join(dir, 'trees', 't', 'part.mpk')
    await mkdir(join(dir, 'trees', 't'), { recursive: true })
    for (const [label, bytes, kind, version] of cases) {
      await writeFile(path, bytes)
      const expected = outcome(() => checkRecord(bytes, kind, version, path))
      assert.equal(outcome(() => checkRecordFileSync(path, kind, version)), expected, label)
      assert.equal(expected === 'sound', label.startsWith('whole'), label)
    }
    assert.equal(outcome(() => checkRecordFileSync(join(dir, 'trees', 't', 'absent.mpk'), 'bm25', 3)), 'missing')
  })

  it('refuses what is not a regular file (a folder here) in one line, rather than an I/O error', async () => {
    await mkdir(join(dir, 'state.mpk'))
    await assert.rejects(readRecord(join(dir, 'state.mpk'), 'state', 1), (error: unknown) => error instanceof ConfinementError && /\/state\.mpk is not a regular file \(a directory\)/.test(error.message))
  })
})
