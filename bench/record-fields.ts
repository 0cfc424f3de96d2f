/**
 * `node --import tsx bench/record-fields.ts <repo> [--every N]`: what the blob records under
 * `<repo>/.vlt/objects/` hold, field by field, in the stored form of this build's record version.
 * Each field's share is measured by leaving it out of each record (a chunk field blanked in every
 * chunk; any other part with its strings, arrays and typed arrays emptied) and comparing the record's msgpack and brotli sizes with and without it, as the
 * store encodes them: so a field's compressed figure is what storing it costs, context included.
 * `--every N` measures every Nth record only (the figures are then scaled by N). Prints a table.
 */
import { join } from 'node:path'
import { brotliCompressSync, constants } from 'node:zlib'
import { BlobStore } from '../src/core/index/blob-store.js'
import { BLOB_RECORD_KIND, BLOB_RECORD_VERSION } from '../src/core/index/blob-task.js'
import { decodeRecord } from '../src/core/store/record.js'
import { Packr } from '../src/core/store/msgpack.js'
import { vltPaths } from '../src/core/store/layout.js'

/** A record's payload as stored, whatever its version's shape (see blob-task.ts). */
type Payload = { skipped?: string; artifact: Record<string, unknown> & { chunks: Array<Record<string, unknown>> }; analyzed: Record<string, unknown> }
type Variant = (record: Payload) => Payload

const CHUNK_TEXT_FIELDS = ['body', 'imports', 'classContext', 'signature', 'decorators', 'docstring', 'name', 'qualifiedName'] as const

/** The value with every string, array and typed array in it emptied. */
function emptied(value: unknown): unknown {
  if (typeof value === 'string') return ''
  if (Array.isArray(value)) return []
  if (ArrayBuffer.isView(value)) return new (value.constructor as new (length: number) => unknown)(0)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, part]) => [key, emptied(part)]))
  return value
}

function blankChunks(field: string): Variant {
  return (record) => ({ ...record, artifact: { ...record.artifact, chunks: record.artifact.chunks.map((chunk) => (field in chunk ? { ...chunk, [field]: '' } : chunk)) } })
}

const artifactPart = (part: string): Variant => (record) => ({ ...record, artifact: { ...record.artifact, [part]: emptied(record.artifact[part]) } })

const VARIANTS: Record<string, Variant> = {
  ...Object.fromEntries(CHUNK_TEXT_FIELDS.map((field) => [`chunk.${field}`, blankChunks(field)])),
  'chunks (all)': artifactPart('chunks'),
  symbols: artifactPart('symbols'),
  references: artifactPart('references'),
  imports: artifactPart('imports'),
  'analyzed.terms': (record) => ({ ...record, analyzed: { ...record.analyzed, terms: '' } }),
  'analyzed docs': (record) => ({ ...record, analyzed: { ...(emptied(record.analyzed) as Record<string, unknown>), terms: record.analyzed.terms } }),
}

const packr = new Packr({ useRecords: true, moreTypes: true })
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 3 } }

function sizes(value: unknown): { raw: number; compressed: number } {
  const packed = packr.pack(value)
  return { raw: packed.length, compressed: brotliCompressSync(packed, BROTLI).length }
}

const repo = process.argv[2]
if (!repo) throw new Error('usage: record-fields.ts <repo> [--every N]')
const everyAt = process.argv.indexOf('--every')
const every = everyAt > 0 ? Number(process.argv[everyAt + 1]) : 1
const store = new BlobStore(vltPaths(join(repo, '.vlt')))
let records = 0
let skipped = 0
let stored = 0
const whole = { raw: 0, compressed: 0 }
const saved: Record<string, { raw: number; compressed: number }> = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, { raw: 0, compressed: 0 }]))
let seen = 0
for (const { encoded, path } of store.storedRecords()) {
  stored += encoded.length
  if (seen++ % every !== 0) continue
  const record = decodeRecord<Payload>(encoded, BLOB_RECORD_KIND, BLOB_RECORD_VERSION, path)
  records++
  if (record.skipped) {
    skipped++
    continue
  }
  const full = sizes(record)
  whole.raw += full.raw
  whole.compressed += full.compressed
  for (const [name, variant] of Object.entries(VARIANTS)) {
    const without = sizes(variant(record))
    saved[name]!.raw += full.raw - without.raw
    saved[name]!.compressed += full.compressed - without.compressed
  }
}

const mb = (bytes: number): string => ((bytes * every) / 1e6).toFixed(1).padStart(7)
const share = (part: number, of: number): string => `${((100 * part) / of).toFixed(1).padStart(5)} %`
console.log(`${seen} records stored (${(stored / 1e6).toFixed(1)} MB as stored, headers included); measured ${records} (${skipped} skipped), scaled ×${every}`)
console.log(`${'field'.padEnd(20)} ${'msgpack MB'.padStart(10)} ${'share'.padStart(7)} ${'brotli MB'.padStart(10)} ${'share'.padStart(7)}`)
console.log(`${'whole record'.padEnd(20)} ${mb(whole.raw).padStart(10)} ${''.padStart(7)} ${mb(whole.compressed).padStart(10)}`)
for (const [name, { raw, compressed }] of Object.entries(saved)) {
  console.log(`${name.padEnd(20)} ${mb(raw).padStart(10)} ${share(raw, whole.raw)} ${mb(compressed).padStart(10)} ${share(compressed, whole.compressed)}`)
}
