/**
 * The BM25 index as stored: laid out so a query reads the few blocks it needs instead of decoding
 * the whole index, and numbered so the same files give the same bytes whatever order they came in.
 *
 * Payload layout (offsets from the payload's start, integers u32 LE, varints LEB128):
 *
 *   header      docEnd, fileCount, termCount, dictBlocks; then (offset, length, CRC-32) of the
 *               files, lengths and dictionary-index sections; the offsets of the dictionary blocks
 *               and of the postings; CRC-32 of the header's bytes before it
 *   files       u32 chunk count per file, then each path as varint length + UTF-8, by path
 *   lengths     u32 weighted length per document
 *   dict index  per dictionary block: offset (from the blocks' start), length, CRC-32, then its
 *               first term as varint length + UTF-8
 *   dict blocks up to DICT_BLOCK_TERMS terms each, sorted: u32 offset of the block's first postings
 *               (from the postings' start); per term: varint length + UTF-8, varint df, varint doc
 *               bytes, u32 CRC-32 of its postings
 *   postings    per term: ascending document ids as varint gaps (the first from -1), then one byte
 *               of weighted tf per document
 *
 * Documents are numbered by (path, chunk order) and terms sorted by code unit: nothing depends on
 * the order files were added in, so a sharded merge writes the bytes a single init does. Opening
 * reads and checks the header, the file table, the lengths and the dictionary index (small: a few
 * bytes per document and per block of terms); a query term costs one dictionary block and its
 * postings, each checked against its checksum when read, so damage anywhere is found by whoever
 * reads it (CorruptFileError, as a damaged record).
 */
import { closeSync } from 'node:fs'
import { crc32 } from 'node:zlib'
import { CorruptFileError } from '../errors.js'
import { readAtSync, type SizedParts } from '../store/index.js'
import { findTerm, termCount, type Segment } from './segment.js'

/** Terms per dictionary block: a query term reads one block of about this many entries. */
const DICT_BLOCK_TERMS = 64
const HEADER_BYTES = 4 * 4 + 3 * 12 + 2 * 4 + 4

/** What `storedLayout` needs of an index: one sealed segment holding every live document, and its files. */
export interface StoredSource {
  /** Undefined when the index has no document. */
  segment: Segment | undefined
  docEnd: number
  docLengths: Uint32Array
  paths: string[]
  fileStarts: number[]
  fileCounts: number[]
}

/**
 * Bytes written in order and read back in order: where the dictionary and postings go while the
 * sections before them are laid out (they come last, and are most of the bytes, so they need never
 * be held in memory whole), and where a run is written.
 */
export interface ScratchSink {
  readonly length: number
  write(bytes: Uint8Array): void
  /** Everything written, in order. */
  chunks(): Iterable<Uint8Array>
}

/**
 * Part of an index written out in the stored layout (the payload `storedLayout` produces, unframed)
 * while a build goes on without it, merged into the index when that is written.
 */
export interface StoredRun {
  readonly length: number
  readAt(position: number, length: number): Buffer
}

/**
 * The stored payload (see `frameParts` in store/record.ts): header first, then the file table, the
 * document lengths and the dictionary index (a few bytes per document and per block of terms), then
 * the dictionary and the postings, produced into `sinks` (empty when given) term by term.
 *
 * `runs` are parts of the same index written out earlier (see StoredRun), each of other files: the
 * payload is the one a single index of all their files would give. Their terms are merged in order,
 * so a run costs a few buffers here, never its whole postings.
 */
export function storedLayout(source: StoredSource, sinks: { dict: ScratchSink; postings: ScratchSink }, runs: readonly StoredRun[] = []): SizedParts {
  const parts = [memoryPart(source), ...runs.map((run) => runPart(run))]
  // Files by path; a document's new id is its file's new start plus its chunk index.
  const entries: Array<{ path: string; part: number; start: number; count: number }> = []
  parts.forEach((part, k) => part.paths.forEach((path, slot) => entries.push({ path, part: k, start: part.fileStarts[slot]!, count: part.fileCounts[slot]! })))
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const docEnd = parts.reduce((sum, part) => sum + part.docEnd, 0)
  const lengths = new Uint32Array(docEnd)
  const files = new ByteSink()
  let next = 0
  for (const entry of entries) files.u32(entry.count)
  for (let e = 0; e < entries.length; e++) {
    const { path, part, start, count } = entries[e]!
    if (e > 0 && entries[e - 1]!.path === path) throw new Error(`bm25: ${path} is indexed twice`)
    files.text(path)
    const { remap, docLengths } = parts[part]!
    for (let chunk = 0; chunk < count; chunk++) {
      remap[start + chunk] = next
      lengths[next++] = docLengths[start + chunk]!
    }
  }
  if (next !== docEnd) throw new Error(`bm25: ${docEnd} documents but files hold ${next}`)

  const { dict, postings } = sinks
  const dictIndex = new ByteSink()
  const scratch = new PostingScratch()
  const block = new ByteSink(1 << 12)
  let termCount = 0
  let blockFirst = ''
  let blockTerms = 0
  const endBlock = (): void => {
    // A block is a few kilobytes: a small chunk, not the megabyte the large sections grow by.
    const bytes = block.finish()
    dictIndex.u32(dict.length)
    dictIndex.u32(bytes.length)
    dictIndex.u32(crc32(bytes))
    dictIndex.text(blockFirst)
    dict.write(bytes)
    block.reset()
    blockTerms = 0
  }
  for (;;) {
    // The least term any part is at: every part gives its terms in code-unit order.
    let term: string | undefined
    for (const part of parts) if (part.term !== undefined && (term === undefined || part.term < term)) term = part.term
    if (term === undefined) break
    scratch.clear()
    for (const part of parts) {
      if (part.term !== term) continue
      part.append(scratch)
      part.next()
    }
    const df = scratch.finish()
    const { bytes, docBytes } = scratch.encode()
    if (blockTerms === 0) {
      block.u32(postings.length)
      blockFirst = term
    }
    postings.write(bytes)
    block.text(term)
    block.varint(df)
    block.varint(docBytes)
    block.u32(crc32(bytes))
    termCount++
    if (++blockTerms === DICT_BLOCK_TERMS) endBlock()
  }
  if (blockTerms > 0) endBlock()

  const sections = [files.finish(), new Uint8Array(lengths.buffer), dictIndex.finish()]
  const header = Buffer.alloc(HEADER_BYTES)
  let at = 0
  for (const value of [docEnd, entries.length, termCount, Math.ceil(termCount / DICT_BLOCK_TERMS)]) at = header.writeUInt32LE(value, at)
  let offset = HEADER_BYTES
  for (const section of sections) {
    at = header.writeUInt32LE(offset, at)
    at = header.writeUInt32LE(section.length, at)
    at = header.writeUInt32LE(crc32(section), at)
    offset += section.length
  }
  at = header.writeUInt32LE(offset, at)
  at = header.writeUInt32LE(offset + dict.length, at)
  header.writeUInt32LE(crc32(header.subarray(0, at)), at)
  const payload = function* (): Generator<Uint8Array> {
    yield header
    yield* sections
    yield* dict.chunks()
    yield* postings.chunks()
  }
  return { length: offset + dict.length + postings.length, parts: payload() }
}

/**
 * One part of the index being laid out: its files (documents numbered from 0 in its own way), and
 * its terms one at a time in code-unit order, each with its postings.
 */
interface LayoutPart {
  docEnd: number
  paths: readonly string[]
  fileStarts: ArrayLike<number>
  fileCounts: ArrayLike<number>
  docLengths: Uint32Array
  /** Each document's id in the payload, filled in from the merged file table. */
  remap: Int32Array
  /** The current term; undefined once every term was given. */
  term: string | undefined
  /** Adds the current term's postings, under their ids in the payload, to `scratch`. */
  append(scratch: PostingScratch): void
  next(): void
}

function memoryPart(source: StoredSource): LayoutPart {
  const { segment } = source
  // In code-unit order: the order queries binary-search the dictionary index in. A segment sealed
  // for storing has its terms so already, and gives them one at a time.
  const order = segment && !segment.sorted ? termsOf(segment).sort() : undefined
  const count = segment ? termCount(segment) : 0
  const termAt = (t: number): string | undefined => (t >= count ? undefined : order ? order[t] : segment!.termText.slice(segment!.termOffsets[t], segment!.termOffsets[t + 1]))
  let t = 0
  const part: LayoutPart = {
    docEnd: source.docEnd,
    paths: source.paths,
    fileStarts: source.fileStarts,
    fileCounts: source.fileCounts,
    docLengths: source.docLengths,
    remap: new Int32Array(source.docEnd).fill(-1),
    term: termAt(0),
    append: (scratch) => {
      const index = order ? findTerm(segment!, order[t]!) : t
      const start = segment!.postingStarts[index]!
      scratch.append(segment!.docBytes, segment!.docByteStarts[index]!, segment!.tfs, start, segment!.postingStarts[index + 1]! - start, segment!.docBase, part.remap)
    },
    next: () => {
      part.term = termAt(++t)
    },
  }
  return part
}

function termsOf(segment: Segment): string[] {
  const { termText, termOffsets } = segment
  const terms = new Array<string>(termOffsets.length - 1)
  for (let t = 0; t < terms.length; t++) terms[t] = termText.slice(termOffsets[t], termOffsets[t + 1])
  return terms
}

/** A run read back in order: its tables whole (small), its dictionary and postings through a window each. */
function runPart(run: StoredRun): LayoutPart {
  const fail = (reason: string): never => {
    throw new Error(`bm25: a run of the index being written is damaged: ${reason}`)
  }
  const header = run.readAt(0, HEADER_BYTES)
  if (header.length < HEADER_BYTES || header.readUInt32LE(HEADER_BYTES - 4) !== crc32(header.subarray(0, HEADER_BYTES - 4))) fail('header checksum mismatch')
  const field = (k: number): number => header.readUInt32LE(4 * k)
  const section = (k: number): Buffer => {
    const bytes = run.readAt(field(4 + 3 * k), field(5 + 3 * k))
    if (bytes.length !== field(5 + 3 * k) || crc32(bytes) !== field(6 + 3 * k)) fail('table checksum mismatch')
    return bytes
  }
  const docEnd = field(0)
  const files = new Reader(section(0), fail)
  const fileCounts = files.u32s(field(1))
  const paths = Array.from({ length: fileCounts.length }, () => files.text())
  const fileStarts = new Uint32Array(fileCounts.length)
  for (let f = 1; f < fileCounts.length; f++) fileStarts[f] = fileStarts[f - 1]! + fileCounts[f - 1]!
  const lengths = section(1)
  const docLengths = new Uint32Array(lengths.buffer.slice(lengths.byteOffset, lengths.byteOffset + lengths.length))
  const index = new Reader(section(2), fail)
  const blockLengths: number[] = []
  for (let b = 0; b < field(3); b++) {
    index.u32()
    blockLengths.push(index.u32())
    index.u32()
    index.text()
  }
  const dict = new Window(run, field(13))
  const postings = new Window(run, field(14))
  let block = -1
  let reader: Reader | undefined
  let offset = 0
  let df = 0
  let docBytes = 0
  let crc = 0
  const part: LayoutPart = {
    docEnd,
    paths,
    fileStarts,
    fileCounts,
    docLengths,
    remap: new Int32Array(docEnd).fill(-1),
    term: undefined,
    append: (scratch) => {
      const bytes = postings.read(offset, docBytes + df)
      if (crc32(bytes) !== crc) fail('postings checksum mismatch')
      scratch.append(bytes, 0, bytes, docBytes, df, 0, part.remap)
      offset += docBytes + df
    },
    next: () => {
      if (!reader || reader.done) {
        if (++block === blockLengths.length) {
          part.term = undefined
          return
        }
        reader = new Reader(dict.read(blockLengths[block]!), fail)
        offset = reader.u32()
      }
      part.term = reader.text()
      df = reader.varint()
      docBytes = reader.varint()
      crc = reader.u32()
    },
  }
  part.next()
  return part
}

/** Sequential reads of a run's section through a buffer of a megabyte. */
class Window {
  private bytes: Buffer = Buffer.alloc(0)
  /** Position in the run of `bytes`' first byte. */
  private from = 0
  /** Position in the run of the next `read()` without a position. */
  private at: number

  constructor(private readonly run: StoredRun, private readonly base: number) {
    this.at = base
  }

  /** The `length` bytes at `offset` from the section's start, or the next `length` bytes when no offset is given. */
  read(length: number): Buffer
  read(offset: number, length: number): Buffer
  read(first: number, second?: number): Buffer {
    const position = second === undefined ? this.at : this.base + first
    const length = second ?? first
    if (position < this.from || position + length > this.from + this.bytes.length) {
      this.bytes = this.run.readAt(position, Math.max(length, WINDOW_BYTES))
      this.from = position
      if (this.bytes.length < length) throw new Error('bm25: a run of the index being written ends early')
    }
    this.at = position + length
    return this.bytes.subarray(position - this.from, position - this.from + length)
  }
}

const WINDOW_BYTES = 1 << 20

/** One term's postings under their ids in the payload, gathered from the parts that have it, sorted when renumbering broke their order. */
class PostingScratch {
  private docs = new Int32Array(1024)
  private tfs = new Uint8Array(1024)
  private keys = new Float64Array(0)
  private out = new Uint8Array(6 * 1024)
  private df = 0
  private sorted = true

  clear(): void {
    this.df = 0
    this.sorted = true
  }

  /**
   * Adds `count` postings: document gaps (varints, the first from `docBase - 1`) from
   * `docBytes[docAt]`, weighted tfs from `tfs[tfAt]`; each document is renumbered by `remap`.
   */
  append(docBytes: Uint8Array, docAt: number, tfs: Uint8Array, tfAt: number, count: number, docBase: number, remap: Int32Array): void {
    const end = this.df + count
    if (end > this.docs.length) {
      const size = Math.max(end, this.docs.length * 2)
      const docs = new Int32Array(size)
      docs.set(this.docs.subarray(0, this.df))
      const weights = new Uint8Array(size)
      weights.set(this.tfs.subarray(0, this.df))
      this.docs = docs
      this.tfs = weights
    }
    const { docs } = this
    let at = docAt
    let doc = docBase - 1
    for (let p = this.df; p < end; p++) {
      let byte = docBytes[at++]!
      let gap = byte & 0x7f
      for (let shift = 7; byte & 0x80; shift += 7) {
        byte = docBytes[at++]!
        gap |= (byte & 0x7f) << shift
      }
      doc += gap
      docs[p] = remap[doc]!
      if (p > 0 && docs[p]! < docs[p - 1]!) this.sorted = false
    }
    this.tfs.set(tfs.subarray(tfAt, tfAt + count), this.df)
    this.df = end
  }

  /** Sorts the postings by document; returns how many there are. */
  finish(): number {
    const { df, docs, tfs } = this
    if (!this.sorted) {
      if (this.keys.length < df) this.keys = new Float64Array(Math.max(df, this.docs.length))
      const keys = this.keys.subarray(0, df)
      for (let p = 0; p < df; p++) keys[p] = docs[p]! * 256 + tfs[p]!
      keys.sort()
      for (let p = 0; p < df; p++) {
        docs[p] = Math.floor(keys[p]! / 256)
        tfs[p] = keys[p]! % 256
      }
    }
    return df
  }

  /** The loaded postings as stored: document gaps (varints), then tfs. */
  encode(): { bytes: Uint8Array; docBytes: number } {
    const { df, docs, tfs } = this
    if (this.out.length < 6 * df) this.out = new Uint8Array(6 * df)
    const out = this.out
    let at = 0
    let last = -1
    for (let p = 0; p < df; p++) {
      let gap = docs[p]! - last
      last = docs[p]!
      while (gap >= 0x80) {
        out[at++] = (gap & 0x7f) | 0x80
        gap >>>= 7
      }
      out[at++] = gap
    }
    const docBytes = at
    out.set(tfs.subarray(0, df), at)
    return { bytes: out.subarray(0, at + df), docBytes }
  }
}

/** Bytes appended into fixed-size chunks, so a large payload never needs one contiguous buffer. */
class ByteSink {
  private full: Uint8Array[] = []
  private chunk: Uint8Array
  private at = 0
  /** Bytes in the chunks before the current one. */
  private before = 0

  constructor(private readonly chunkSize = 1 << 20) {
    this.chunk = new Uint8Array(chunkSize)
  }

  get length(): number {
    return this.before + this.at
  }

  u32(value: number): void {
    this.room(4)
    const chunk = this.chunk
    chunk[this.at++] = value & 0xff
    chunk[this.at++] = (value >>> 8) & 0xff
    chunk[this.at++] = (value >>> 16) & 0xff
    chunk[this.at++] = value >>> 24
  }

  varint(value: number): void {
    this.room(5)
    while (value >= 0x80) {
      this.chunk[this.at++] = (value & 0x7f) | 0x80
      value >>>= 7
    }
    this.chunk[this.at++] = value
  }

  /** Varint length + UTF-8; an ASCII string (most terms) is copied in place rather than encoded into a buffer of its own. */
  text(value: string): void {
    let ascii = true
    for (let i = 0; i < value.length && ascii; i++) ascii = value.charCodeAt(i) < 0x80
    if (!ascii) {
      const bytes = Buffer.from(value, 'utf8')
      this.varint(bytes.length)
      this.bytes(bytes)
      return
    }
    this.varint(value.length)
    if (this.at + value.length > this.chunk.length) {
      this.bytes(Buffer.from(value, 'latin1'))
      return
    }
    const chunk = this.chunk
    for (let i = 0; i < value.length; i++) chunk[this.at++] = value.charCodeAt(i)
  }

  bytes(bytes: Uint8Array): void {
    for (let from = 0; from < bytes.length; ) {
      if (this.at === this.chunk.length) this.room(1)
      const count = Math.min(bytes.length - from, this.chunk.length - this.at)
      this.chunk.set(bytes.subarray(from, from + count), this.at)
      this.at += count
      from += count
    }
  }

  chunks(): Uint8Array[] {
    return this.at === 0 ? this.full : [...this.full, this.chunk.subarray(0, this.at)]
  }

  finish(): Uint8Array {
    return Buffer.concat(this.chunks())
  }

  /** Empties the sink to be filled again. */
  reset(): void {
    this.full = []
    this.before = 0
    this.at = 0
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.chunk.length) return
    this.full.push(this.chunk.subarray(0, this.at))
    this.before += this.at
    this.chunk = new Uint8Array(this.chunkSize)
    this.at = 0
  }
}

/** Descriptors of stored indexes no longer referenced: closed when their index is collected. */
const descriptors = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd)
  } catch {
    // Closed already: nothing holds it.
  }
})

/**
 * A stored index opened for queries: its file and length tables in memory, its terms and postings
 * read from the file when a query names them.
 */
export class StoredPostings {
  readonly docEnd: number
  readonly paths: string[]
  readonly fileCounts: Uint32Array
  readonly docLengths: Uint32Array
  readonly termCount: number
  private readonly blockOffsets: Uint32Array
  private readonly blockLengths: Uint32Array
  private readonly blockCrcs: Uint32Array
  private readonly firstTerms: string[]
  private readonly dictBase: number
  private readonly postingsBase: number
  private closed = false

  /**
   * Opens the payload at bytes [start, end) of the file `fd` (which this object owns from now on);
   * `path` names the file in errors. Throws CorruptFileError when a table fails its checks.
   */
  constructor(private readonly fd: number, private readonly start: number, private readonly end: number, private readonly path: string) {
    descriptors.register(this, fd, this)
    try {
      const header = this.read(0, HEADER_BYTES, undefined, 'header')
      const crcAt = HEADER_BYTES - 4
      if (header.readUInt32LE(crcAt) !== crc32(header.subarray(0, crcAt))) this.fail('header checksum mismatch')
      const field = (k: number): number => header.readUInt32LE(4 * k)
      this.docEnd = field(0)
      const fileCount = field(1)
      this.termCount = field(2)
      const blocks = field(3)
      const section = (k: number, name: string): Buffer => this.read(field(4 + 3 * k), field(5 + 3 * k), field(6 + 3 * k), name)
      const files = new Reader(section(0, 'file table'), this.fail)
      this.fileCounts = files.u32s(fileCount)
      this.paths = Array.from({ length: fileCount }, () => files.text())
      const lengths = section(1, 'document lengths')
      if (lengths.length !== 4 * this.docEnd) this.fail('document lengths disagree with the document count')
      this.docLengths = new Uint32Array(lengths.buffer.slice(lengths.byteOffset, lengths.byteOffset + lengths.length))
      const index = new Reader(section(2, 'dictionary index'), this.fail)
      this.blockOffsets = new Uint32Array(blocks)
      this.blockLengths = new Uint32Array(blocks)
      this.blockCrcs = new Uint32Array(blocks)
      this.firstTerms = new Array<string>(blocks)
      for (let b = 0; b < blocks; b++) {
        this.blockOffsets[b] = index.u32()
        this.blockLengths[b] = index.u32()
        this.blockCrcs[b] = index.u32()
        this.firstTerms[b] = index.text()
      }
      this.dictBase = field(13)
      this.postingsBase = field(14)
      let documents = 0
      for (const count of this.fileCounts) documents += count
      if (documents !== this.docEnd) this.fail('the file table disagrees with the document count')
      if (this.dictBase > this.postingsBase || this.postingsBase > end - start) this.fail('sections lie past the end')
    } catch (error) {
      this.close()
      throw error
    }
  }

  /** The postings of `term` as a segment of that one term, or undefined when no document has it. */
  termSegment(term: string): Segment | undefined {
    // The last block whose first term is not after `term`.
    let low = 0
    let high = this.firstTerms.length - 1
    if (high < 0 || term < this.firstTerms[0]!) return undefined
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (this.firstTerms[middle]! <= term) low = middle
      else high = middle - 1
    }
    for (const { text, df, docBytes, crc, offset } of dictEntries(this.read(this.dictBase + this.blockOffsets[low]!, this.blockLengths[low]!, this.blockCrcs[low]!, 'dictionary block'), this.fail)) {
      if (text !== term) continue
      const bytes = this.read(this.postingsBase + offset, docBytes + df, crc, 'postings')
      return oneTermSegment(term, this.docEnd, df, bytes.subarray(0, docBytes), bytes.subarray(docBytes))
    }
    return undefined
  }

  /** The whole index as one in-memory segment (every block read and checked): for an index about to change. */
  toSegment(): Segment {
    const terms: string[] = []
    const postingStarts = new Uint32Array(this.termCount + 1)
    const docByteStarts = new Uint32Array(this.termCount + 1)
    const dict = this.read(this.dictBase, this.postingsBase - this.dictBase, undefined, 'dictionary')
    const postings = this.read(this.postingsBase, this.end - this.start - this.postingsBase, undefined, 'postings')
    // Sized by the postings region: doc bytes plus one tf byte per posting.
    const docBytes = new Uint8Array(postings.length)
    const tfs = new Uint8Array(postings.length)
    let postingCount = 0
    let docByteCount = 0
    for (let b = 0; b < this.firstTerms.length; b++) {
      const bytes = dict.subarray(this.blockOffsets[b]!, this.blockOffsets[b]! + this.blockLengths[b]!)
      if (bytes.length !== this.blockLengths[b] || crc32(bytes) !== this.blockCrcs[b]) this.fail(`dictionary block ${b} checksum mismatch`)
      for (const { text, df, docBytes: termDocBytes, crc, offset } of dictEntries(bytes, this.fail)) {
        terms.push(text)
        const posting = postings.subarray(offset, offset + termDocBytes + df)
        if (posting.length !== termDocBytes + df || crc32(posting) !== crc) this.fail(`postings of a term in dictionary block ${b} checksum mismatch`)
        docBytes.set(posting.subarray(0, termDocBytes), docByteCount)
        tfs.set(posting.subarray(termDocBytes), postingCount)
        docByteCount += termDocBytes
        postingCount += df
        postingStarts[terms.length] = postingCount
        docByteStarts[terms.length] = docByteCount
      }
    }
    if (terms.length !== this.termCount) this.fail('the dictionary disagrees with the term count')
    const termOffsets = new Uint32Array(terms.length + 1)
    for (let t = 0; t < terms.length; t++) termOffsets[t + 1] = termOffsets[t]! + terms[t]!.length
    return {
      docBase: 0,
      docEnd: this.docEnd,
      // The dictionary's order.
      sorted: true,
      termText: terms.join(''),
      termOffsets,
      postingStarts,
      docByteStarts,
      docBytes: docBytes.slice(0, docByteCount),
      tfs: tfs.slice(0, postingCount),
    }
  }

  /**
   * Reads and checks every dictionary block and every term's postings, one block at a time, none
   * kept (`verify`; toSegment holds them all): their checksums, each block's first term as the index
   * has it, terms in code-unit order and as many as the header says, and each term's postings as a
   * search decodes them: df ascending documents below the document count, in exactly its doc bytes.
   */
  checkBlocks(): void {
    let terms = 0
    let previous = ''
    for (let b = 0; b < this.firstTerms.length; b++) {
      const entries = [...dictEntries(this.read(this.dictBase + this.blockOffsets[b]!, this.blockLengths[b]!, this.blockCrcs[b]!, 'dictionary block'), this.fail)]
      if (entries[0]?.text !== this.firstTerms[b]) this.fail(`dictionary block ${b} does not start with the term its index names`)
      // The block's postings lie back to back: read at once.
      const first = entries[0]!.offset
      const last = entries[entries.length - 1]!
      const postings = this.read(this.postingsBase + first, last.offset + last.docBytes + last.df - first, undefined, 'postings')
      for (const { text, df, docBytes, crc, offset } of entries) {
        if (terms++ > 0 && !(previous < text)) this.fail(`dictionary block ${b} lists its terms out of order`)
        previous = text
        const posting = postings.subarray(offset - first, offset - first + docBytes + df)
        if (crc32(posting) !== crc) this.fail(`postings of a term in dictionary block ${b} checksum mismatch`)
        const docs = new Reader(posting.subarray(0, docBytes), this.fail)
        let doc = -1
        for (let k = 0; k < df; k++) {
          const gap = docs.varint()
          if (gap === 0) this.fail(`postings of a term in dictionary block ${b} repeat a document`)
          doc += gap
        }
        if (!docs.done || doc >= this.docEnd) this.fail(`postings of a term in dictionary block ${b} disagree with its entry`)
      }
    }
    if (terms !== this.termCount) this.fail('the dictionary disagrees with the term count')
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    descriptors.unregister(this)
    closeSync(this.fd)
  }

  private readonly fail = (reason: string): never => {
    throw new CorruptFileError(this.path, reason)
  }

  /** Bytes [offset, offset + length) of the payload, checked against `crc` when given. */
  private read(offset: number, length: number, crc: number | undefined, what: string): Buffer {
    if (this.closed) throw new Error(`bm25: ${this.path} was closed`)
    if (offset + length > this.end - this.start) this.fail(`${what} lies past the end`)
    const bytes = readAtSync(this.fd, this.start + offset, length)
    if (bytes.length < length) this.fail(`truncated inside the ${what}`)
    if (crc !== undefined && crc32(bytes) !== crc) this.fail(`${what} at byte ${this.start + offset} checksum mismatch`)
    return bytes
  }
}

/** A term's entry in a dictionary block, with where its postings start (from the postings' start). */
interface DictEntry {
  text: string
  df: number
  docBytes: number
  crc: number
  offset: number
}

/** The entries of a checked dictionary block, in order: its first postings' offset, then per term text, df, doc bytes and CRC. */
function* dictEntries(bytes: Buffer, fail: (reason: string) => never): Generator<DictEntry> {
  const block = new Reader(bytes, fail)
  let offset = block.u32()
  while (!block.done) {
    const entry = { text: block.text(), df: block.varint(), docBytes: block.varint(), crc: block.u32(), offset }
    offset += entry.docBytes + entry.df
    yield entry
  }
}

function oneTermSegment(term: string, docEnd: number, df: number, docBytes: Uint8Array, tfs: Uint8Array): Segment {
  return {
    docBase: 0,
    docEnd,
    termText: term,
    termOffsets: Uint32Array.of(0, term.length),
    postingStarts: Uint32Array.of(0, df),
    docByteStarts: Uint32Array.of(0, docBytes.length),
    docBytes,
    tfs,
  }
}

/** Sequential reads over a checked block; running past its end is damage. */
class Reader {
  private at = 0
  /** The bytes as latin1, made on the first ASCII text: a table's texts are then slices of one string, not a decode each. */
  private latin1: string | undefined

  constructor(private readonly bytes: Buffer, private readonly fail: (reason: string) => never) {}

  get done(): boolean {
    return this.at >= this.bytes.length
  }

  u32(): number {
    if (this.at + 4 > this.bytes.length) this.fail('a table ends early')
    const value = this.bytes.readUInt32LE(this.at)
    this.at += 4
    return value
  }

  u32s(count: number): Uint32Array {
    const values = new Uint32Array(count)
    for (let k = 0; k < count; k++) values[k] = this.u32()
    return values
  }

  varint(): number {
    let value = 0
    for (let shift = 0; ; shift += 7) {
      if (this.at >= this.bytes.length || shift > 28) this.fail('a table ends early')
      const byte = this.bytes[this.at++]!
      value += (byte & 0x7f) * 2 ** shift
      if (!(byte & 0x80)) return value
    }
  }

  text(): string {
    const length = this.varint()
    const start = this.at
    const end = start + length
    if (end > this.bytes.length) this.fail('a table ends early')
    this.at = end
    const { bytes } = this
    for (let k = start; k < end; k++) if (bytes[k]! >= 0x80) return bytes.toString('utf8', start, end)
    return (this.latin1 ??= bytes.toString('latin1')).slice(start, end)
  }
}
