import { strict as assert } from 'node:assert'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BlobStore, keyOf, type BlobKey } from '../../src/core/index/blob-store.js'
import { BLOB_RECORD_KIND, BLOB_RECORD_VERSION, type BlobRecord } from '../../src/core/index/blob-task.js'
import { CorruptFileError } from '../../src/core/errors.js'
import { ConfinementError, encodeRecord, vltPaths } from '../../src/core/store/index.js'

const key = (i: number): BlobKey => ({ blob: createHash('sha1').update(String(i)).digest('hex'), language: 'python' })
/** Records told apart by their content: a skip reason per number. */
const REASONS = ['binary', 'tooLarge', 'minified', 'invalidUtf8', 'secret'] as const
const record = (i: number): BlobRecord => ({ skipped: REASONS[i % REASONS.length]! })
const encoded = (i: number): Buffer => encodeRecord(BLOB_RECORD_KIND, BLOB_RECORD_VERSION, record(i))

describe('blob store: loose records and packs', () => {
  let dir: string
  let store: BlobStore
  const packFiles = (suffix: string): string[] => (existsSync(store.packsDir) ? readdirSync(store.packsDir).filter((name) => name.endsWith(suffix)) : [])
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-blobs-'))
    store = new BlobStore(vltPaths(dir))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('reads records back from packs and loose files, a loose one shadowing a packed one', () => {
    const writer = store.packWriter({ records: 3, bytes: 1 << 20 })
    for (let i = 0; i < 7; i++) writer.add(keyOf(key(i)), encoded(i))
    // Two packs finished at the limit; the seventh record waits for finish().
    assert.equal(packFiles('.idx').length, 2)
    assert.equal(new BlobStore(vltPaths(dir)).read(key(6)), undefined)
    writer.finish()
    assert.equal(packFiles('.idx').length, 3)
    assert.equal(packFiles('.pack').length, 3)

    const reader = new BlobStore(vltPaths(dir))
    for (let i = 0; i < 7; i++) assert.deepEqual(reader.read(key(i)), record(i))
    assert.equal(reader.read(key(7)), undefined)
    store.writeLoose(key(0), encoded(1))
    assert.deepEqual(reader.read(key(0)), record(1))
    assert.ok(existsSync(store.loosePath(key(0))))
  })

  it('makes a finished pack readable to the store that wrote it', () => {
    assert.equal(store.read(key(1)), undefined)
    const writer = store.packWriter()
    writer.add(keyOf(key(1)), encoded(1))
    writer.finish()
    assert.deepEqual(store.read(key(1)), record(1))
  })

  it('leaves nothing of an aborted pack', () => {
    const writer = store.packWriter()
    writer.add(keyOf(key(1)), encoded(1))
    writer.abort()
    assert.deepEqual(readdirSync(store.packsDir), [])
    assert.equal(store.read(key(1)), undefined)
  })

  it('names the pack and the offset of a damaged record', () => {
    const writer = store.packWriter()
    writer.add(keyOf(key(0)), encoded(0))
    writer.add(keyOf(key(1)), encoded(1))
    writer.finish()
    const pack = join(store.packsDir, packFiles('.pack')[0]!)
    const bytes = readFileSync(pack)
    bytes[encoded(0).length + 8] ^= 0xff
    writeFileSync(pack, bytes)
    const reader = new BlobStore(vltPaths(dir))
    assert.deepEqual(reader.read(key(0)), record(0))
    assert.throws(() => reader.read(key(1)), (error: unknown) => error instanceof CorruptFileError && error.message.includes(pack) && error.message.includes(`record at byte ${encoded(0).length}`))
  })

  it('notes a damaged pack index once; mending removes it with its pack', () => {
    const writer = store.packWriter()
    writer.add(keyOf(key(0)), encoded(0))
    writer.finish()
    writeFileSync(join(store.packsDir, packFiles('.idx')[0]!), 'not a record')
    const reader = new BlobStore(vltPaths(dir))
    assert.equal(reader.read(key(0)), undefined)
    assert.equal(reader.read(key(0)), undefined)
    assert.deepEqual([...reader.damagedFiles.values()], ['bad magic: not a vlt record'])
    const warnings: string[] = []
    reader.repairs.flush((message) => warnings.push(message))
    assert.equal(warnings.length, 1)
    assert.match(warnings[0]!, /^warning: .*\.idx: bad magic: not a vlt record$/)
    assert.equal(packFiles('.pack').length, 1, 'a reader removes nothing')
    assert.equal(reader.mendPacks(), 1)
    assert.deepEqual(readdirSync(store.packsDir), [])
  })

  it('keeps no partial map of the packed records when reading the pack indexes fails midway', () => {
    const writer = store.packWriter({ records: 1, bytes: 1 << 20 })
    for (let i = 0; i < 3; i++) writer.add(keyOf(key(i)), encoded(i))
    writer.finish()
    // One index becomes a link, which reading refuses, wherever the directory lists it.
    const index = join(store.packsDir, packFiles('.idx')[1]!)
    renameSync(index, `${index}.moved`)
    symlinkSync(`${index}.moved`, index)
    const reader = new BlobStore(vltPaths(dir))
    const keys = [key(0), key(1), key(2)]
    assert.throws(() => reader.missing(keys), ConfinementError)
    // Looked at again, the records do not seem missing (which would have them extracted again): refused the same way.
    assert.throws(() => reader.missing(keys), ConfinementError)
  })

  it('finds a record moved by gc after the reader read the pack indexes', () => {
    const writer = store.packWriter()
    for (let i = 0; i < 4; i++) writer.add(keyOf(key(i)), encoded(i))
    writer.finish()
    const reader = new BlobStore(vltPaths(dir))
    assert.deepEqual(reader.read(key(0)), record(0))
    // Three of four records die: the pack is rewritten with the live one.
    const pruned = new BlobStore(vltPaths(dir)).prunePacks(new Set([keyOf(key(3))]))
    assert.equal(pruned.removed, 3)
    assert.ok(pruned.freedBytes > 0)
    assert.deepEqual(reader.read(key(3)), record(3))
    assert.equal(reader.read(key(0)), undefined)
  })

  it('gc keeps packs at least half alive, rewrites the others, and removes dead and old orphan packs', () => {
    const pack = (...numbers: number[]): void => {
      const writer = store.packWriter()
      for (const i of numbers) writer.add(keyOf(key(i)), encoded(i))
      writer.finish()
    }
    pack(0, 1, 2, 3)
    pack(4, 5, 6, 7)
    pack(9)
    const orphan = join(store.packsDir, '0000000000000000.pack')
    writeFileSync(orphan, encoded(0))
    const young = join(store.packsDir, '1111111111111111.pack')
    writeFileSync(young, encoded(0))
    const old = (Date.now() - 2 * 60 * 60 * 1000) / 1000
    utimesSync(orphan, old, old)

    const result = new BlobStore(vltPaths(dir)).prunePacks(new Set([0, 1, 2, 4].map((i) => keyOf(key(i)))))
    assert.equal(result.removed, 4, '5, 6, 7 from the rewritten pack, 9 with its pack')
    assert.ok(!existsSync(orphan), 'an hour-old pack without an index is removed')
    assert.ok(existsSync(young), 'a young pack without an index may still get one')
    assert.equal(packFiles('.idx').length, 2)
    const reader = new BlobStore(vltPaths(dir))
    for (const i of [0, 1, 2, 3, 4]) assert.deepEqual(reader.read(key(i)), record(i), `record ${i}`)
    for (const i of [5, 6, 7, 9]) assert.equal(reader.read(key(i)), undefined, `record ${i}`)
  })

  it('gc keeps one copy of a record packed twice', () => {
    for (let copy = 0; copy < 2; copy++) {
      const writer = store.packWriter()
      writer.add(keyOf(key(0)), encoded(0))
      writer.finish()
    }
    assert.equal(new BlobStore(vltPaths(dir)).prunePacks(new Set([keyOf(key(0))])).removed, 1)
    assert.equal(packFiles('.idx').length, 1)
    assert.deepEqual(new BlobStore(vltPaths(dir)).read(key(0)), record(0))
  })

  it('retires the packs a rewrite stored again in full, and only those', () => {
    const pack = (...numbers: number[]) => {
      const writer = store.packWriter()
      for (const i of numbers) writer.add(keyOf(key(i)), encoded(i))
      writer.finish()
      return writer
    }
    pack(0, 1, 2, 3)
    pack(4, 5)
    const rewrite = pack(0, 1, 2, 3, 4)
    assert.equal(store.retireSuperseded(rewrite), 1)
    assert.equal(packFiles('.idx').length, 2)
    const reader = new BlobStore(vltPaths(dir))
    for (const i of [0, 1, 2, 3, 4, 5]) assert.deepEqual(reader.read(key(i)), record(i), `record ${i}`)
  })
})
