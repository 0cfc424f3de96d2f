import assert from 'node:assert/strict'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { packedUtf8, STRING_HEADROOM } from '../../src/core/graph/block-file.js'
import { StringTable, utf16Fnv1a } from '../../src/core/graph/strings.js'
import { Packr } from '../../src/core/store/msgpack.js'

/** V8's collector, reachable without starting node with --expose-gc. */
function collector(): () => void {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

describe('StringTable', () => {
  it('numbers strings in order of first interning and gives each back as it was, across pages, long and non-ASCII', () => {
    const table = new StringTable()
    // ~3 MB of names: several pages of bytes; one string longer than a page; text that is not ASCII.
    const texts = Array.from({ length: 50_000 }, (_, i) => `drivers/net/ethernet/intel/e1000e/netdev_${i}.c`)
    texts.push('x'.repeat(1_500_000), 'après', '名前', 'emoji 🦀 pair', 'é'.repeat(200), 'after the long one')
    const ids = texts.map((text) => table.id(text))
    assert.deepEqual(ids, texts.map((_, i) => i + 1))
    assert.equal(table.size, texts.length + 1)
    assert.equal(table.get(0), '')
    texts.forEach((text, i) => assert.equal(table.get(i + 1), text))
    texts.forEach((text, i) => assert.equal(table.id(text), i + 1))
    assert.equal(table.find('après'), texts.indexOf('après') + 1)
    for (const absent of ['apres', 'après ', '名', 'x'.repeat(1_499_999), 'drivers/net/ethernet/intel/e1000e/netdev_50000.c']) assert.equal(table.find(absent), -1)
    assert.throws(() => table.get(table.size), RangeError)
  })

  it('answers for a stored list by position, and interns after it', () => {
    const table = new StringTable(['', 'a', 'ü', 'a/b.c'])
    assert.deepEqual([table.size, table.get(2), table.join([3, 2])], [4, 'ü', 'a/b.c\u0000ü'])
    assert.throws(() => table.get(4), RangeError)
    assert.deepEqual([table.find('ü'), table.find('a/b.c'), table.find('b')], [2, 3, -1])
    assert.equal(table.id('b'), 4)
    assert.equal(table.id('a'), 1)
    assert.deepEqual([0, 1, 2, 3, 4].map((id) => table.get(id)), ['', 'a', 'ü', 'a/b.c', 'b'])
  })

  it("gives a string's first character code as the string itself would, without decoding it", () => {
    const texts = ['', '_private', 'kmalloc', 'Éclair', '\u{1F600}smile', '9lives']
    const interned = new StringTable()
    const ids = texts.map((text) => interned.id(text))
    const listed = new StringTable(texts)
    texts.forEach((text, k) => {
      assert.deepEqual(interned.firstCharCode(ids[k]!), text.charCodeAt(0), text)
      assert.deepEqual(listed.firstCharCode(k), text.charCodeAt(0), text)
    })
  })

  it('joins the strings of a list of ids as the strings themselves would join', () => {
    const table = new StringTable(['', 'kmalloc', 'après', '名前', 'x'.repeat(2_000_000)])
    for (const ids of [[], [0], [1, 2, 3], [3, 0, 1, 4, 1], [4]]) assert.equal(table.join(ids), ids.map((id) => table.get(id)).join('\u0000'))
    assert.throws(() => table.join([5]), RangeError)
  })

  it("hashes a string as utf16Fnv1a hashes the string itself, from its bytes when ASCII", () => {
    const texts = ['', 'kmalloc', 'Éclair', '名前', '\u{1F600}smile', 'x'.repeat(70_000)]
    const interned = new StringTable()
    const ids = texts.map((text) => interned.id(text))
    const listed = new StringTable(texts)
    texts.forEach((text, k) => {
      assert.equal(interned.fnv1a(ids[k]!), utf16Fnv1a(text), text.slice(0, 20))
      assert.equal(listed.fnv1a(k), utf16Fnv1a(text), text.slice(0, 20))
    })
    assert.equal(utf16Fnv1a('a'), 0xe40c292c, 'FNV-1a of "a"')
  })

  it('packs joined bytes into the msgpack string msgpackr writes for the joined text, at every header size', () => {
    const packr = new Packr({ moreTypes: true })
    for (const size of [0, 1, 31, 32, 255, 256, 65_535, 65_536, 70_000]) {
      for (const texts of [['x'.repeat(size)], ['é'.repeat(Math.ceil(size / 2)), '名前']]) {
        for (const table of [new StringTable(texts), (() => { const t = new StringTable(); texts.forEach((text) => t.id(text)); return t })()]) {
          const ids = table.size === texts.length ? texts.map((_, k) => k) : texts.map((_, k) => k + 1)
          assert.deepEqual(packedUtf8(table.joinBytes(ids, STRING_HEADROOM)), packr.pack(table.join(ids)), `${size} ${texts[0]!.slice(0, 3)}`)
        }
      }
    }
  })

  it('keeps its text outside the JS heap: a build interns millions of names and paths', () => {
    const gc = collector()
    gc()
    const before = process.memoryUsage()
    const table = new StringTable()
    for (let i = 0; i < 200_000; i++) table.id(`include/linux/some_header_${i}.h`)
    gc()
    const after = process.memoryUsage()
    // ~6 MB of text: as strings of their own (and a dictionary of them) the heap grew by ~18 MB.
    assert.ok(after.heapUsed - before.heapUsed < 2 * 2 ** 20, `heap grew by ${after.heapUsed - before.heapUsed} bytes`)
    assert.equal(table.get(200_000), 'include/linux/some_header_199999.h')
  })
})
