/**
 * The record: the only file format under `.vlt/`. Every file is self-identifying (kind + format
 * version) and self-verifying (CRC-32), so a stale, foreign or damaged file is recognised as such
 * and rebuilt instead of being misread.
 *
 *   offset   size  field
 *   0        3     magic "VLT"
 *   3        1     container format: 1 = payload as written; 2 = payload is brotli-compressed msgpack
 *                  (bumped only if this framing itself changes)
 *   4        1     k = byte length of the kind (1..255)
 *   5        k     kind, ASCII, e.g. "blob-artifact", "tree-manifest", "bm25"
 *   5+k      4     format version of that kind, u32 LE
 *   9+k      4     n = payload length, u32 LE
 *   13+k     n     payload, msgpack (compressed in format 2; a kind may instead lay its payload out
 *                  for direct access, see `frameParts`: search/stored.ts's BM25 blocks, each with a
 *                  checksum of its own)
 *   13+k+n   4     CRC-32 (zlib) of bytes [0, 13+k+n), u32 LE
 *
 * The trailing CRC covers the whole file, so verify, the remote cache and status check a record
 * of either payload the same way; a reader of a block layout checks only the header here
 * (`openFramedSync`) and each block it reads by the block's own checksum. The checksum covers the
 * bytes as stored, so damage is found before anything is decompressed.
 */
import { closeSync, fstatSync, readSync } from 'node:fs'
import { brotliCompressSync, brotliDecompressSync, constants, crc32 } from 'node:zlib'
import { openConfinedSync } from './confine.js'
import { Packr } from './msgpack.js'
import { CorruptFileError } from '../errors.js'

const MAGIC = [0x56, 0x4c, 0x54] // "VLT"
const PLAIN = 1
const COMPRESSED = 2
const FIXED_HEADER = 5 // magic + container + kind length
const CHECKSUM_BYTES = 4

/**
 * Records mode (msgpackr's self-describing structures, written inline in each message) decodes the
 * artifact shapes, thousands of objects with the same keys, about twice as fast as plain maps.
 * moreTypes keeps typed arrays typed (without it they come back as Buffers); typed arrays are
 * copied out on decode, so a decoded value never aliases the file buffer.
 */
const packr = new Packr({ useRecords: true, moreTypes: true })
const LARGE_PAYLOAD = 1 << 24

/**
 * Brotli at quality 3: on Linux 10k's blob records (msgpack, 61 MB) it keeps 31 % of the bytes and
 * decompresses faster than deflate at level 1 (34 %), for about as much time to compress; higher
 * qualities gain a few percent for two to four times the compression time, which every cold index pays.
 */
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 3 } }

export interface EncodeOptions {
  /**
   * Store the payload brotli-compressed: for records written once and read whole (per-blob
   * artifacts), where `.vlt/`'s size matters more than a few milliseconds of decoding.
   */
  compress?: boolean
}

/** Frames a payload as a record of `kind` at format `version`. */
export function encodeRecord(kind: string, version: number, payload: unknown, options: EncodeOptions = {}): Buffer {
  const kindBytes = kindBytesOf(kind, version)
  const packed = packr.pack(payload)
  const body = options.compress ? brotliCompressSync(packed, BROTLI) : packed
  if (body.length > 0xffffffff) throw new Error(`record payload of ${body.length} bytes exceeds 4 GiB`)

  const headerBytes = FIXED_HEADER + kindBytes.length + 8
  const buf = Buffer.allocUnsafe(headerBytes + body.length + CHECKSUM_BYTES)
  writeHeader(buf, kindBytes, version, body.length, options.compress ? COMPRESSED : PLAIN)
  body.copy(buf, headerBytes)
  // msgpackr keeps packing into the buffer it last grew (module-wide): once a tree-sized payload
  // is copied out, let that buffer go rather than hold it for the life of the process.
  if (packed.length > LARGE_PAYLOAD) packr.useBuffer(Buffer.allocUnsafeSlow(1 << 16))
  const end = headerBytes + body.length
  buf.writeUInt32LE(crc32(buf.subarray(0, end)), end)
  return buf
}

/** A payload given in parts, with its length known before its first part is produced. */
export interface SizedParts {
  length: number
  parts: Iterable<Uint8Array>
}

/**
 * Frames a payload given in parts (a layout of its own, not msgpack) as a record of `kind`: the
 * parts are not copied into one buffer, and are taken one at a time as the frame is consumed, so a
 * large payload is written as it is produced (the checksum follows along).
 */
export function* frameParts(kind: string, version: number, payload: readonly Uint8Array[] | SizedParts): Generator<Uint8Array> {
  const { length, parts } = Array.isArray(payload) ? sized(payload) : (payload as SizedParts)
  const kindBytes = kindBytesOf(kind, version)
  if (length > 0xffffffff) throw new Error(`record payload of ${length} bytes exceeds 4 GiB`)
  const header = Buffer.allocUnsafe(FIXED_HEADER + kindBytes.length + 8)
  writeHeader(header, kindBytes, version, length, PLAIN)
  let crc = crc32(header)
  yield header
  let produced = 0
  for (const part of parts) {
    crc = crc32(part, crc)
    produced += part.length
    yield part
  }
  if (produced !== length) throw new Error(`record payload of ${produced} bytes where ${length} were announced`)
  const trailer = Buffer.allocUnsafe(CHECKSUM_BYTES)
  trailer.writeUInt32LE(crc, 0)
  yield trailer
}

function sized(parts: readonly Uint8Array[]): SizedParts {
  return { length: parts.reduce((sum, part) => sum + part.length, 0), parts }
}

/** Bytes of the header a record's payload starts after (`frameParts`' first part). */
export function headerLength(kind: string): number {
  return FIXED_HEADER + Buffer.byteLength(kind, 'latin1') + 8
}

function kindBytesOf(kind: string, version: number): Buffer {
  const kindBytes = Buffer.from(kind, 'latin1')
  if (kindBytes.length === 0 || kindBytes.length > 255 || !/^[\x21-\x7e]+$/.test(kind)) {
    throw new Error(`record kind must be 1 to 255 printable ASCII characters: ${JSON.stringify(kind)}`)
  }
  if (!Number.isInteger(version) || version < 0 || version > 0xffffffff) throw new Error(`record version must be a u32: ${version}`)
  return kindBytes
}

function writeHeader(buf: Buffer, kindBytes: Buffer, version: number, payloadLength: number, container: typeof PLAIN | typeof COMPRESSED): void {
  buf.set(MAGIC, 0)
  buf[3] = container
  buf[4] = kindBytes.length
  kindBytes.copy(buf, FIXED_HEADER)
  buf.writeUInt32LE(version, FIXED_HEADER + kindBytes.length)
  buf.writeUInt32LE(payloadLength, FIXED_HEADER + kindBytes.length + 4)
}

/** A record opened for reading its payload in place: its descriptor, and where the payload lies in the file. */
export interface OpenRecord {
  fd: number
  start: number
  end: number
}

/**
 * Opens the record of `kind` at `version` at `path` and checks its header and length against the
 * file's size, not its checksum: for a payload laid out in blocks that carry their own (see
 * `frameParts`), read as needed. Throws CorruptFileError as `checkRecord` does, also when the file
 * is missing; the caller closes the descriptor.
 */
export function openFramedSync(path: string, kind: string, version: number): OpenRecord {
  const fd = openConfinedSync(path)
  if (fd === undefined) throw new CorruptFileError(path, 'missing')
  try {
    const size = fstatSync(fd).size
    const head = Buffer.alloc(Math.min(size, FIXED_HEADER + 255 + 8))
    readSync(fd, head, 0, head.length, 0)
    const fail = (reason: string): never => {
      throw new CorruptFileError(path, reason)
    }
    if (size === 0) fail('empty file')
    if (MAGIC.some((byte, i) => i < size && head[i] !== byte)) fail('bad magic: not a vlt record')
    if (size < FIXED_HEADER) fail(`truncated: ${size} bytes, shorter than a record header`)
    if (head[3] === COMPRESSED) fail('a compressed payload where a block layout was expected')
    if (head[3] !== PLAIN) fail(`unknown record container format ${head[3]} (this build reads ${PLAIN} and ${COMPRESSED})`)
    const kindLength = head[4]!
    const headerBytes = FIXED_HEADER + kindLength + 8
    if (size < headerBytes + CHECKSUM_BYTES) fail(`truncated: ${size} bytes, shorter than its ${headerBytes + CHECKSUM_BYTES}-byte header and checksum`)
    const found = head.toString('latin1', FIXED_HEADER, FIXED_HEADER + kindLength)
    if (found !== kind) fail(`wrong kind: a '${found}' record where a '${kind}' record was expected`)
    const foundVersion = head.readUInt32LE(FIXED_HEADER + kindLength)
    if (foundVersion !== version) {
      fail(`unknown version: '${kind}' format version ${foundVersion} is ${foundVersion > version ? 'newer than' : 'older than'} the version ${version} this build reads`)
    }
    const end = headerBytes + head.readUInt32LE(FIXED_HEADER + kindLength + 4)
    if (size < end + CHECKSUM_BYTES) fail(`truncated: header announces ${end + CHECKSUM_BYTES} bytes, file has ${size}`)
    if (size > end + CHECKSUM_BYTES) fail(`${size - end - CHECKSUM_BYTES} unexpected bytes after the record's end`)
    return { fd, start: headerBytes, end }
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/** A record whose framing holds: its kind, its version, and where its payload lies in `bytes`. */
export interface RecordFrame {
  kind: string
  version: number
  bytes: Buffer
  start: number
  end: number
  /** The payload between start and end is brotli-compressed msgpack (container format 2). */
  compressed: boolean
}

/**
 * Checks a record's framing (magic, lengths, checksum) whatever its kind, without decoding its
 * payload: for records another module owns (verify checks caches it cannot decode). Throws
 * CorruptFileError as `decodeRecord` does.
 */
export function checkFraming(buf: Uint8Array, path: string): RecordFrame {
  const bytes = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)
  const { kindLength, headerBytes, end } = checkHeader(bytes, bytes.length, path)
  checkSum(bytes.readUInt32LE(end), crc32(bytes.subarray(0, end)), path)
  // Kind and version are read only after the checksum passed, so they are what the writer meant.
  const kind = bytes.toString('latin1', FIXED_HEADER, FIXED_HEADER + kindLength)
  return { kind, version: bytes.readUInt32LE(FIXED_HEADER + kindLength), bytes, start: headerBytes, end, compressed: bytes[3] === COMPRESSED }
}

/**
 * Checks a record of `kind` at `version` without decoding its payload: what `decodeRecord` checks
 * first, for callers that only need to know a record is sound (status) or decode it later.
 */
export function checkRecord(buf: Uint8Array, kind: string, version: number, path: string): RecordFrame {
  const frame = checkFraming(buf, path)
  requireKind(frame.kind, frame.version, kind, version, path)
  return frame
}

/** Bytes read at a time by `checkRecordFileSync`. */
const CHECK_CHUNK_BYTES = 1 << 20

/**
 * `checkRecord` of the file at `path`, read a megabyte at a time, never whole: for records of
 * hundreds of megabytes (a tree's aggregates taken from the remote cache). Throws CorruptFileError
 * as `checkRecord` does, also when the file is missing. Returns where the payload lies in the file.
 */
export function checkRecordFileSync(path: string, kind: string, version: number): { start: number; end: number } {
  const fd = openConfinedSync(path)
  if (fd === undefined) throw new CorruptFileError(path, 'missing')
  try {
    const size = fstatSync(fd).size
    const chunk = Buffer.allocUnsafe(Math.min(size, CHECK_CHUNK_BYTES))
    const head = chunk.subarray(0, readSync(fd, chunk, 0, chunk.length, 0))
    const { kindLength, headerBytes, end } = checkHeader(head, size, path)
    const found = { kind: head.toString('latin1', FIXED_HEADER, FIXED_HEADER + kindLength), version: head.readUInt32LE(FIXED_HEADER + kindLength) }
    // The first read (the header's) is checksummed as it is, not read again; `chunk` is reused after it.
    let at = Math.min(head.length, end)
    let crc = crc32(head.subarray(0, at))
    while (at < end) {
      const read = readSync(fd, chunk, 0, Math.min(chunk.length, end - at), at)
      if (read === 0) throw new CorruptFileError(path, `truncated while read: ${at} bytes of ${size}`)
      crc = crc32(chunk.subarray(0, read), crc)
      at += read
    }
    const stored = Buffer.allocUnsafe(CHECKSUM_BYTES)
    readSync(fd, stored, 0, CHECKSUM_BYTES, end)
    checkSum(stored.readUInt32LE(0), crc, path)
    requireKind(found.kind, found.version, kind, version, path)
    return { start: headerBytes, end }
  } finally {
    closeSync(fd)
  }
}

/**
 * The header checks of a record of `size` bytes whose first bytes (at least its header's) are
 * `head`: where its payload starts and ends.
 */
function checkHeader(head: Buffer, size: number, path: string): { kindLength: number; headerBytes: number; end: number } {
  const fail = (reason: string): never => {
    throw new CorruptFileError(path, reason)
  }
  if (size === 0) fail('empty file')
  if (MAGIC.some((byte, i) => i < size && head[i] !== byte)) fail('bad magic: not a vlt record')
  if (size < FIXED_HEADER) fail(`truncated: ${size} bytes, shorter than a record header`)
  if (head[3] !== PLAIN && head[3] !== COMPRESSED) fail(`unknown record container format ${head[3]} (this build reads ${PLAIN} and ${COMPRESSED})`)

  const kindLength = head[4]!
  const headerBytes = FIXED_HEADER + kindLength + 8
  if (kindLength === 0) fail('bad header: empty record kind')
  if (size < headerBytes + CHECKSUM_BYTES) fail(`truncated: ${size} bytes, shorter than its ${headerBytes + CHECKSUM_BYTES}-byte header and checksum`)
  const payloadLength = head.readUInt32LE(FIXED_HEADER + kindLength + 4)
  const expected = headerBytes + payloadLength + CHECKSUM_BYTES
  if (size < expected) fail(`truncated: header announces ${expected} bytes, file has ${size}`)
  if (size > expected) fail(`${size - expected} unexpected bytes after the record's end`)
  return { kindLength, headerBytes, end: headerBytes + payloadLength }
}

function checkSum(stored: number, computed: number, path: string): void {
  if (stored !== computed) throw new CorruptFileError(path, `checksum mismatch (stored ${hex(stored)}, computed ${hex(computed)})`)
}

function requireKind(foundKind: string, foundVersion: number, kind: string, version: number, path: string): void {
  if (foundKind !== kind) throw new CorruptFileError(path, `wrong kind: a '${foundKind}' record where a '${kind}' record was expected`)
  if (foundVersion !== version) {
    const relation = foundVersion > version ? 'newer than' : 'older than'
    throw new CorruptFileError(path, `unknown version: '${kind}' format version ${foundVersion} is ${relation} the version ${version} this build reads`)
  }
}

/** Unpacks the payload of a record whose framing was checked. */
export function decodePayload<T>(frame: RecordFrame, path: string): T {
  try {
    const stored = frame.bytes.subarray(frame.start, frame.end)
    return packr.unpack(frame.compressed ? brotliDecompressSync(stored) : stored) as T
  } catch (error) {
    throw new CorruptFileError(path, `payload does not decode: ${(error as Error).message}`)
  }
}

/**
 * Checks and unpacks a record; `path` only names the file in the error. Throws CorruptFileError
 * whose reason says what is wrong: truncated, bad magic, checksum mismatch, wrong kind, unknown
 * version, undecodable payload.
 */
export function decodeRecord<T>(buf: Uint8Array, kind: string, version: number, path: string): T {
  return decodePayload<T>(checkRecord(buf, kind, version, path), path)
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`
}
