/**
 * A record laid out in blocks a query reads one at a time (the symbol table, the code graph): the
 * record's plain payload (store/record.ts `frameParts`) is a checked directory then blocks, each
 * compressed msgpack under its own CRC-32. The frame's whole-file CRC still serves `verify`, the
 * remote cache and shards; a query skips it and checks the directory on opening and each block's
 * stored bytes when it reads the block.
 *
 *   payload offset  size  field
 *   0               4     d = directory length, u32 LE
 *   4               4     CRC-32 of the directory
 *   8               d     directory, msgpack: { meta, ends } — block i spans [ends[i - 1] (8 + d
 *                         for the first), ends[i]) of the payload
 *   …                     blocks, each a CRC-32 (u32 LE) of the bytes after it, then its msgpack
 *                         brotli-compressed
 *
 * Compressed per block, so a lookup decompresses only what it reads: brotli at quality 4 keeps
 * about a quarter of these typed columns and names, for a fraction of a build's time.
 */
import { closeSync } from 'node:fs'
import { promisify } from 'node:util'
import { brotliCompress, brotliCompressSync, brotliDecompressSync, constants, crc32 } from 'node:zlib'
import { CorruptFileError } from '../errors.js'
import { Packr } from '../store/msgpack.js'
import { frameParts, openFramedSync, readAtSync, type ScratchFile } from '../store/index.js'

const packr = new Packr({ moreTypes: true })
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }
/** msgpackr keeps packing into the buffer it last grew: one past this is let go once copied (as record.ts does). */
const LARGE_BLOCK = 1 << 24

interface Directory {
  meta: unknown
  ends: Uint32Array
}

const compress = promisify(brotliCompress)

/**
 * Blocks being compressed at once, at most: enough that packing the next ones never waits for the
 * thread pool's round trip, few enough that their packed bodies (tens of kilobytes each, but for a
 * table's paths and names) are never memory that counts.
 */
const IN_FLIGHT = 4

/**
 * Packed bodies from this size on are compressed on the thread pool. Handing one over costs this
 * thread ~0.25 ms (a stream and an encoder made and torn down), what compressing ~8 KB here costs:
 * at 30 KB it halves this thread's share, at 4 KB (most of a table's buckets) it doubles it.
 */
const ASIDE_FROM = 32 * 1024

/** One block's stored bytes: its CRC-32, then its packed value compressed. */
function storedBlock(stored: Buffer): Buffer {
  const out = Buffer.allocUnsafe(4 + stored.length)
  out.writeUInt32LE(crc32(stored), 0)
  stored.copy(out, 4)
  return out
}

/**
 * A record's blocks as they are packed (`add`), in order: held in memory, or with `spool` written
 * to that scratch file at once and read back a chunk at a time when the record is written — a
 * large record's blocks (Linux: hundreds of megabytes of symbol table) are then never all in memory
 * beside the table they were packed from. The spool stays the caller's to close.
 *
 * A block is packed on this thread and, unless small (see ASIDE_FROM), compressed on libuv's
 * thread pool (zlib's asynchronous call, the same encoder and parameters, so the same bytes), a few
 * at a time, so this thread packs the next blocks meanwhile: compressing was 1.4 s of the 3.5 s a
 * Linux 10k build spent encoding its symbol table on the main thread, with the other core idle. A
 * block past LARGE_BLOCK is waited for before the next is packed, as compressing it here was: a
 * large table's names are tens of megabytes, held no longer than they were.
 */
export class BlockSink {
  readonly lengths: number[] = []
  private readonly held: Buffer[] = []
  /** Blocks being compressed (or compressed already, behind one that is), in order. */
  private readonly pending: Array<Promise<Buffer>> = []

  constructor(private readonly spool?: ScratchFile) {}

  async add(value: unknown): Promise<void> {
    // msgpackr packs each value after the last in its buffer (a new one once full): `body` stays intact while compressed.
    const body = packr.pack(value)
    if (body.length > LARGE_BLOCK) packr.useBuffer(Buffer.allocUnsafeSlow(1 << 16))
    await this.addPacked(body)
  }

  /** A block packed already (see packedUtf8). */
  async addPacked(body: Buffer): Promise<void> {
    const large = body.length > LARGE_BLOCK
    const block = body.length >= ASIDE_FROM ? compress(body, BROTLI).then(storedBlock) : Promise.resolve(storedBlock(brotliCompressSync(body, BROTLI)))
    // Waited for in order below; handled now, so a failure while earlier blocks are awaited is not reported as unhandled.
    block.catch(() => {})
    this.pending.push(block)
    while (this.pending.length >= IN_FLIGHT || (large && this.pending.length > 0)) await this.settleOldest()
  }

  /** The blocks' bytes, in order, once every block added is compressed. */
  async body(): Promise<Iterable<Uint8Array>> {
    while (this.pending.length > 0) await this.settleOldest()
    return this.spool ? this.spool.chunks() : this.held
  }

  private async settleOldest(): Promise<void> {
    const block = await this.pending.shift()!
    this.lengths.push(block.length)
    if (this.spool) this.spool.write(block)
    else this.held.push(block)
  }
}

/** Spare bytes before a string's UTF-8 bytes where `packedUtf8` writes its msgpack header: the longest one. */
export const STRING_HEADROOM = 5

/**
 * The msgpack string of the UTF-8 bytes after STRING_HEADROOM spare bytes of `buffer`, its header
 * as msgpackr writes it for that string (the shortest that holds the length): a block of names
 * packed without decoding them into a JS string for msgpackr to encode again (Linux: 60 MB each).
 */
export function packedUtf8(buffer: Buffer): Buffer {
  const length = buffer.length - STRING_HEADROOM
  if (length < 0x20) {
    buffer[4] = 0xa0 | length
    return buffer.subarray(4)
  }
  if (length < 0x100) {
    buffer[3] = 0xd9
    buffer[4] = length
    return buffer.subarray(3)
  }
  if (length < 0x10000) {
    buffer[2] = 0xda
    buffer.writeUInt16BE(length, 3)
    return buffer.subarray(2)
  }
  buffer[0] = 0xdb
  buffer.writeUInt32BE(length, 1)
  return buffer
}

/** The record's parts (`frameParts`): header, the directory with `meta`, the blocks of each sink in turn, trailer. */
export async function blockFileParts(kind: string, version: number, meta: unknown, ...sinks: BlockSink[]): Promise<Iterable<Uint8Array>> {
  const bodies: Array<Iterable<Uint8Array>> = []
  for (const sink of sinks) bodies.push(await sink.body())
  const lengths = sinks.flatMap((sink) => sink.lengths)
  const provisional: Directory = { meta, ends: new Uint32Array(lengths.length) }
  // The directory's size does not depend on the offsets' values (a typed array packs at its length).
  const dirLength = packr.pack(provisional).length
  let at = 8 + dirLength
  lengths.forEach((length, i) => (provisional.ends[i] = at += length))
  const directory = Buffer.from(packr.pack(provisional))
  if (directory.length !== dirLength) throw new Error(`the ${kind} block directory changed size once its offsets were set`)
  const head = Buffer.allocUnsafe(8)
  head.writeUInt32LE(directory.length, 0)
  head.writeUInt32LE(crc32(directory), 4)
  return frameParts(kind, version, { length: at, parts: concat([head, directory], ...bodies) })
}

function* concat(...parts: Array<Iterable<Uint8Array>>): Generator<Uint8Array> {
  for (const part of parts) yield* part
}

/** Descriptors of opened files, closed once their BlockFile is collected. */
const descriptors = new FinalizationRegistry<number>((fd) => closeSync(fd))

/**
 * A block record opened for reading. The descriptor stays open with the view: the tree's
 * directory may be removed meanwhile (gc), the bytes read stay those opened.
 */
export class BlockFile {
  private constructor(
    readonly path: string,
    private readonly fd: number,
    /** File offset of the payload. */
    private readonly start: number,
    readonly meta: unknown,
    private readonly ends: Uint32Array,
    /** Payload offset of the first block, after the directory. */
    private readonly firstBlock: number,
  ) {
    descriptors.register(this, fd)
  }

  get blockCount(): number {
    return this.ends.length
  }

  /** Checks the record's header and the directory; throws CorruptFileError (missing, damaged, another version). */
  static open(path: string, kind: string, version: number): BlockFile {
    const { fd, start, end } = openFramedSync(path, kind, version)
    try {
      const fail = (reason: string): never => {
        throw new CorruptFileError(path, reason)
      }
      if (start + 8 > end) fail('truncated: no block directory')
      const head = readAtSync(fd, start, 8)
      const dirLength = head.readUInt32LE(0)
      if (start + 8 + dirLength > end) fail('truncated: block directory')
      const dirBytes = readAtSync(fd, start + 8, dirLength)
      if (dirBytes.length !== dirLength || crc32(dirBytes) !== head.readUInt32LE(4)) fail('block directory checksum mismatch')
      let directory: Directory | undefined
      try {
        directory = packr.unpack(dirBytes) as Directory
      } catch {
        fail('malformed block directory')
      }
      if (!(directory?.ends instanceof Uint32Array)) return fail('malformed block directory')
      const { ends } = directory
      const last = ends.length === 0 ? 8 + dirLength : ends[ends.length - 1]!
      if (start + last !== end) fail('block directory disagrees with the file size')
      return new BlockFile(path, fd, start, directory.meta, ends, 8 + dirLength)
    } catch (error) {
      closeSync(fd)
      throw error
    }
  }

  /** Block `i`, its checksum checked: a damaged block is a damaged record. */
  read(i: number): unknown {
    const { ends } = this
    const from = i === 0 ? this.firstBlock : ends[i - 1]!
    const to = ends[i]!
    if (!(i >= 0 && i < ends.length && from <= to)) throw new CorruptFileError(this.path, `block ${i} is out of the directory`)
    const bytes = readAtSync(this.fd, this.start + from, to - from)
    if (bytes.length < 4 || crc32(bytes.subarray(4)) !== bytes.readUInt32LE(0)) throw new CorruptFileError(this.path, `block ${i} checksum mismatch`)
    try {
      return packr.unpack(brotliDecompressSync(bytes.subarray(4)))
    } catch (error) {
      throw new CorruptFileError(this.path, `block ${i} does not decode: ${(error as Error).message}`)
    }
  }
}
