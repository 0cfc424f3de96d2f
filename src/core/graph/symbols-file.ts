/**
 * The stored symbol table (`symbols` record, version 3), laid out for a cold query to open rather
 * than decode: `def kmalloc` reads the record's header, a directory of block offsets, the block of
 * the names hashing with `kmalloc` and the path list — tens of kilobytes of a file of tens of
 * megabytes. A build (patching the table) or a query needing every file (refs' resolution, the
 * graph) reads the whole table's block.
 *
 * The layout is the payload of an ordinary record (a msgpack bin), so the frame's whole-file CRC
 * still serves `verify`, the remote cache and shards; a query skips it and checks, instead, the
 * directory's CRC on opening and each block's CRC when it reads the block.
 *
 *   payload offset  size  field
 *   0               4     d = directory length, u32 LE
 *   4               4     CRC-32 of the directory
 *   8               d     directory, msgpack: { files, symbols, buckets, ends } — block i spans
 *                         [ends[i - 1] (8 + d for the first), ends[i]) of the payload
 *   …                     blocks, each a CRC-32 (u32 LE) of its msgpack then the msgpack:
 *                         0 the whole table (a SymbolsSnapshot); 1 the paths in path order,
 *                         NUL-joined; 2 + b the names of hash bucket b (see `SymbolBucket`)
 *
 * Buckets rather than one block per name: a block per name would make the offset table as large
 * as the names; a few hundred rows per bucket keep the directory small and a read at a few pages.
 */
import { closeSync, fstatSync } from 'node:fs'
import { crc32 } from 'node:zlib'
import { CorruptFileError } from '../errors.js'
import { Packr } from '../store/msgpack.js'
import { openConfinedSync, readAtSync } from '../store/index.js'
import { SYMBOL_KINDS } from './file-symbols.js'
import { STRING_SEPARATOR } from './strings.js'
import type { SymbolInfo, SymbolsSnapshot } from './symbol-table.js'

export const SYMBOLS_KIND = 'symbols'
/** 3: the block layout above (2: one msgpack snapshot, decoded whole by every query). */
export const SYMBOLS_VERSION = 3

/** A definition as a bucket row: [file (path order), def within the file, name, qualified name, kind code, line, end line, column, signature, scope]. */
type DefRow = [number, number, string, string, number, number, number, number, string, string]

/** One hash bucket: its names sorted; per name, the definitions named or qualified so (file, def order) and the files referencing it. */
interface SymbolBucket {
  keys: string[]
  defs: DefRow[][]
  refFiles: number[][]
  refCounts: number[][]
}

interface Directory {
  files: number
  symbols: number
  buckets: number
  ends: Uint32Array
}

/** A definition found under a key, with how it matched and where it sits in path order. */
export interface KeyedDefinition {
  info: SymbolInfo
  file: number
  def: number
  /** Its name is the key. */
  byName: boolean
  /** Its qualified name is the key. */
  byQualifiedName: boolean
}

const packr = new Packr({ moreTypes: true })
const TABLE_BLOCK = 0
const PATHS_BLOCK = 1
const FIRST_BUCKET = 2
/** Rows (definitions under a key, referencing files) aimed at per bucket. */
const ROWS_PER_BUCKET = 256

/** FNV-1a over UTF-16 code units: stable across runs and platforms, as the layout must be. */
export function bucketOf(key: string, buckets: number): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
  return (hash >>> 0) % buckets
}

/**
 * The record file of a canonical snapshot (SymbolTable.snapshot), framed as record.ts frames a
 * record, its payload the layout as a msgpack bin, in parts written one after the other: joined
 * into one buffer, or packed as a record payload, a 10k-file table would be copied once or three
 * times more at the peak of a build's memory. Rows are sorted into buckets with typed arrays,
 * and only one bucket's objects exist at a time.
 */
export function encodeSymbolsFile(data: SymbolsSnapshot): Buffer[] {
  const strings = data.strings.split(STRING_SEPARATOR)
  const files = data.paths.length
  const defs = data.defName.length
  const fileOfDef = new Uint32Array(defs)
  const def0 = new Uint32Array(files + 1)
  for (let f = 0, d = 0; f < files; f++) {
    def0[f] = d
    fileOfDef.fill(f, d, d + data.defCounts[f])
    d += data.defCounts[f]
    def0[f + 1] = d
  }
  // Definition entries: each definition under its name, and under its qualified name when it differs.
  let entries = defs
  for (let d = 0; d < defs; d++) if (data.defQName[d] !== data.defName[d]) entries++
  const entryDef = new Uint32Array(entries)
  const entryKey = new Uint32Array(entries)
  for (let d = 0, e = 0; d < defs; d++) {
    entryDef[e] = d
    entryKey[e++] = data.defName[d]
    if (data.defQName[d] !== data.defName[d]) {
      entryDef[e] = d
      entryKey[e++] = data.defQName[d]
    }
  }
  // Postings: (name, file, references summed over the file's rows), in file order; counted first, to be typed arrays.
  const slot = new Int32Array(strings.length).fill(-1)
  let posts = 0
  for (let f = 0, r = 0; f < files; f++) {
    for (const end = r + data.refCounts[f]; r < end; r++) {
      if (slot[data.refName[r]] !== f) {
        slot[data.refName[r]] = f
        posts++
      }
    }
  }
  const postName = new Uint32Array(posts)
  const postFile = new Uint32Array(posts)
  const postCount = new Uint32Array(posts)
  slot.fill(-1)
  for (let f = 0, r = 0, p = 0; f < files; f++) {
    const first = p
    for (const end = r + data.refCounts[f]; r < end; r++) {
      const name = data.refName[r]
      if (slot[name] < first) {
        slot[name] = p
        postName[p] = name
        postFile[p++] = f
      }
      postCount[slot[name]] += data.refCount[r]
    }
  }
  const buckets = Math.max(1, Math.ceil((entries + posts) / ROWS_PER_BUCKET))
  const bucketOfString = new Uint32Array(strings.length)
  for (let id = 0; id < strings.length; id++) bucketOfString[id] = bucketOf(strings[id]!, buckets)
  const defsByBucket = groupBy(entryKey, bucketOfString, buckets)
  const postsByBucket = groupBy(postName, bucketOfString, buckets)

  const row = (d: number): DefRow => {
    const f = fileOfDef[d]
    return [
      f, d - def0[f], strings[data.defName[d]]!, strings[data.defQName[d]]!, data.defKind[d], data.defLine[d], data.defEndLine[d], data.defColumn[d],
      data.sigText.slice(d === 0 ? 0 : data.sigEnds[d - 1], data.sigEnds[d]), strings[data.defScope[d]]!,
    ]
  }
  const bucketBlock = (b: number): Buffer => {
    const byKey = new Map<number, { defs: DefRow[]; files: number[]; counts: number[] }>()
    const entry = (key: number): { defs: DefRow[]; files: number[]; counts: number[] } => {
      let value = byKey.get(key)
      if (!value) byKey.set(key, (value = { defs: [], files: [], counts: [] }))
      return value
    }
    for (let i = defsByBucket.starts[b]; i < defsByBucket.starts[b + 1]; i++) {
      const e = defsByBucket.order[i]
      entry(entryKey[e]).defs.push(row(entryDef[e]))
    }
    for (let i = postsByBucket.starts[b]; i < postsByBucket.starts[b + 1]; i++) {
      const p = postsByBucket.order[i]
      const value = entry(postName[p])
      value.files.push(postFile[p])
      value.counts.push(postCount[p])
    }
    const keys = [...byKey.keys()].sort((x, y) => (strings[x]! < strings[y]! ? -1 : 1))
    const bucket: SymbolBucket = { keys: keys.map((k) => strings[k]!), defs: [], refFiles: [], refCounts: [] }
    for (const key of keys) {
      const value = byKey.get(key)!
      bucket.defs.push(value.defs)
      bucket.refFiles.push(value.files)
      bucket.refCounts.push(value.counts)
    }
    return block(bucket)
  }

  const blocks = [block(data), block(Array.from(data.paths, (id) => strings[id]!).join(STRING_SEPARATOR))]
  for (let b = 0; b < buckets; b++) blocks.push(bucketBlock(b))
  const symbols = defs
  const provisional: Directory = { files, symbols, buckets, ends: new Uint32Array(blocks.length) }
  // The directory's size does not depend on the offsets' values (a typed array packs at its length).
  const dirLength = packr.pack(provisional).length
  let at = 8 + dirLength
  blocks.forEach((bytes, i) => (provisional.ends[i] = at += bytes.length))
  const directory = Buffer.from(packr.pack(provisional))
  if (directory.length !== dirLength) throw new Error('the symbol block directory changed size once its offsets were set')
  const layout = at
  const kind = Buffer.from(SYMBOLS_KIND, 'latin1')
  const payload = 13 + kind.length
  const base = payload + 5
  const head = Buffer.allocUnsafe(base + 8)
  head.write('VLT', 0, 'latin1')
  head[3] = 1
  head[4] = kind.length
  kind.copy(head, 5)
  head.writeUInt32LE(SYMBOLS_VERSION, 5 + kind.length)
  head.writeUInt32LE(5 + layout, 9 + kind.length)
  head[payload] = 0xc6 // msgpack bin 32
  head.writeUInt32BE(layout, payload + 1)
  head.writeUInt32LE(directory.length, base)
  head.writeUInt32LE(crc32(directory), base + 4)
  const parts = [head, directory, ...blocks]
  let crc = 0
  for (const part of parts) crc = crc32(part, crc)
  const tail = Buffer.allocUnsafe(4)
  tail.writeUInt32LE(crc, 0)
  parts.push(tail)
  return parts
}


/** `order` lists the indices of `keys` grouped by the bucket of each key, stable; bucket b's are [starts[b], starts[b + 1]). */
function groupBy(keys: Uint32Array, bucketOfKey: Uint32Array, buckets: number): { order: Uint32Array; starts: Uint32Array } {
  const starts = new Uint32Array(buckets + 1)
  for (const key of keys) starts[bucketOfKey[key] + 1]++
  for (let b = 0; b < buckets; b++) starts[b + 1] += starts[b]
  const fill = starts.slice(0, buckets)
  const order = new Uint32Array(keys.length)
  keys.forEach((key, i) => (order[fill[bucketOfKey[key]]++] = i))
  return { order, starts }
}

function block(value: unknown): Buffer {
  const body = packr.pack(value)
  const out = Buffer.allocUnsafe(4 + body.length)
  out.writeUInt32LE(crc32(body), 0)
  body.copy(out, 4)
  // msgpackr keeps packing into the buffer it last grew: let a table-sized one go once copied (as record.ts does).
  if (body.length > LARGE_BLOCK) packr.useBuffer(Buffer.allocUnsafeSlow(1 << 16))
  return out
}

const LARGE_BLOCK = 1 << 24

/** Descriptors of opened files, closed once their SymbolsFile is collected. */
const descriptors = new FinalizationRegistry<number>((fd) => closeSync(fd))

/**
 * A stored symbol table opened for reading by block. The descriptor stays open with the view: the
 * tree's directory may be removed meanwhile (gc), the bytes read stay those opened.
 */
export class SymbolsFile {
  private paths: string[] | undefined
  private readonly buckets = new Map<number, SymbolBucket>()

  private constructor(
    readonly path: string,
    private readonly fd: number,
    /** File offset of the payload (the layout's offset 0). */
    private readonly base: number,
    private readonly directory: Directory,
    /** Payload offset of the first block, after the directory. */
    private readonly firstBlock: number,
  ) {
    descriptors.register(this, fd)
  }

  get fileCount(): number {
    return this.directory.files
  }

  get symbolCount(): number {
    return this.directory.symbols
  }

  /** Checks the record's header and the directory; throws CorruptFileError (missing, damaged, another version). */
  static open(path: string): SymbolsFile {
    const fd = openConfinedSync(path)
    if (fd === undefined) throw new CorruptFileError(path, 'missing')
    try {
      const size = fstatSync(fd).size
      const head = readAtSync(fd, 0, Math.min(size, 1 << 16))
      const base = payloadStart(head, size, path)
      const fail = (reason: string): never => {
        throw new CorruptFileError(path, reason)
      }
      if (base + 8 > size) fail('truncated: no block directory')
      const dirLength = head.readUInt32LE(base)
      const dirBytes = base + 8 + dirLength <= head.length ? head.subarray(base + 8, base + 8 + dirLength) : readAtSync(fd, base + 8, dirLength)
      if (dirBytes.length !== dirLength || crc32(dirBytes) !== head.readUInt32LE(base + 4)) fail('block directory checksum mismatch')
      const directory = packr.unpack(dirBytes) as Directory
      if (!(directory.ends instanceof Uint32Array) || directory.ends.length !== directory.buckets + FIRST_BUCKET) fail('malformed block directory')
      if (directory.ends[directory.ends.length - 1]! + base + 4 !== size) fail('block directory disagrees with the file size')
      return new SymbolsFile(path, fd, base, directory, 8 + dirLength)
    } catch (error) {
      closeSync(fd)
      throw error
    }
  }

  /** The whole table's snapshot, for SymbolTable.fromSnapshot. */
  table(): unknown {
    return this.block(TABLE_BLOCK)
  }

  /** Whether the table holds the file at `path`. */
  hasFile(path: string): boolean {
    const paths = this.sortedPaths()
    return paths[lowerBound(paths, path)] === path
  }

  /** Definitions named or qualified `key`, in path then definition order. */
  definitions(key: string): KeyedDefinition[] {
    const found = this.find(key)
    if (!found) return []
    const paths = this.sortedPaths()
    return found.bucket.defs[found.at]!.map(([file, def, name, qualifiedName, kind, line, endLine, column, signature, scope]) => ({
      info: { path: paths[file]!, name, qualifiedName, kind: SYMBOL_KINDS[kind]!, line, endLine, column, signature, scope },
      file,
      def,
      byName: name === key,
      byQualifiedName: qualifiedName === key,
    }))
  }

  /** Files referencing `key` with their counts, in path order. */
  references(key: string): Array<{ path: string; count: number }> {
    const found = this.find(key)
    if (!found) return []
    const paths = this.sortedPaths()
    const counts = found.bucket.refCounts[found.at]!
    return found.bucket.refFiles[found.at]!.map((file, i) => ({ path: paths[file]!, count: counts[i]! }))
  }

  private find(key: string): { bucket: SymbolBucket; at: number } | undefined {
    const b = bucketOf(key, this.directory.buckets)
    let bucket = this.buckets.get(b)
    if (!bucket) {
      bucket = this.block(FIRST_BUCKET + b) as SymbolBucket
      if (!Array.isArray(bucket?.keys) || !Array.isArray(bucket.defs) || !Array.isArray(bucket.refFiles) || !Array.isArray(bucket.refCounts)) {
        throw new CorruptFileError(this.path, `malformed symbol bucket ${b}`)
      }
      this.buckets.set(b, bucket)
    }
    const at = lowerBound(bucket.keys, key)
    return bucket.keys[at] === key ? { bucket, at } : undefined
  }

  private sortedPaths(): string[] {
    if (!this.paths) {
      const joined = this.block(PATHS_BLOCK)
      if (typeof joined !== 'string') throw new CorruptFileError(this.path, 'malformed path block')
      this.paths = joined === '' ? [] : joined.split(STRING_SEPARATOR)
      if (this.paths.length !== this.directory.files) throw new CorruptFileError(this.path, 'path block disagrees with the directory')
    }
    return this.paths
  }

  /** Block `i`, its checksum checked: a damaged block is a damaged record. */
  private block(i: number): unknown {
    const { ends } = this.directory
    const start = i === 0 ? this.firstBlock : ends[i - 1]!
    const bytes = readAtSync(this.fd, this.base + start, ends[i]! - start)
    if (bytes.length < 4 || crc32(bytes.subarray(4)) !== bytes.readUInt32LE(0)) throw new CorruptFileError(this.path, `block ${i} checksum mismatch`)
    try {
      return packr.unpack(bytes.subarray(4))
    } catch (error) {
      throw new CorruptFileError(this.path, `block ${i} does not decode: ${(error as Error).message}`)
    }
  }
}

/**
 * Where the layout starts in the file: after the record frame's header (record.ts) and the
 * msgpack bin header around it. Kind and version are checked as checkRecord does; the frame's
 * CRC is left to whole-file checks.
 */
function payloadStart(head: Buffer, size: number, path: string): number {
  const fail = (reason: string): never => {
    throw new CorruptFileError(path, reason)
  }
  if (size === 0) fail('empty file')
  if (head.length < 13 || head.toString('latin1', 0, 3) !== 'VLT' || head[3] !== 1) fail('bad magic: not a vlt record')
  const kindLength = head[4]!
  const kind = head.toString('latin1', 5, 5 + kindLength)
  if (kind !== SYMBOLS_KIND) fail(`wrong kind: a '${kind}' record where a '${SYMBOLS_KIND}' record was expected`)
  const version = head.readUInt32LE(5 + kindLength)
  if (version !== SYMBOLS_VERSION) fail(`unknown version: '${SYMBOLS_KIND}' format version ${version} is ${version > SYMBOLS_VERSION ? 'newer' : 'older'} than the version ${SYMBOLS_VERSION} this build reads`)
  const payload = 13 + kindLength
  const payloadLength = head.readUInt32LE(9 + kindLength)
  if (payload + payloadLength + 4 !== size) fail(`truncated: header announces ${payload + payloadLength + 4} bytes, file has ${size}`)
  const tag = head[payload]
  const lengthBytes = tag === 0xc4 ? 1 : tag === 0xc5 ? 2 : tag === 0xc6 ? 4 : fail('payload is not a block layout')
  const binLength = lengthBytes === 1 ? head[payload + 1]! : lengthBytes === 2 ? head.readUInt16BE(payload + 1) : head.readUInt32BE(payload + 1)
  if (1 + lengthBytes + binLength !== payloadLength) fail('payload is not a block layout')
  return payload + 1 + lengthBytes
}

/** The first index of the sorted `values` whose value is not below `key` (values.length when none). */
function lowerBound<T extends string | number>(values: readonly T[], key: T): number {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (values[mid]! < key) lo = mid + 1
    else hi = mid
  }
  return lo
}
