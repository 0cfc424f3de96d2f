import { headerLength } from '../../src/core/store/index.js'
import { Packr } from '../../src/core/store/msgpack.js'

/** A block record's directory meta and each block's [start, end) in the file's bytes (see src/core/graph/block-file.ts). */
export function blockSpans<Meta>(bytes: Buffer, kind: string): { meta: Meta; spans: Array<[number, number]> } {
  const start = headerLength(kind)
  const dirLength = bytes.readUInt32LE(start)
  const directory = new Packr({ moreTypes: true }).unpack(bytes.subarray(start + 8, start + 8 + dirLength)) as { meta: Meta; ends: Uint32Array }
  const spans = Array.from(directory.ends, (end, i): [number, number] => [start + (i === 0 ? 8 + dirLength : directory.ends[i - 1]!), start + end])
  return { meta: directory.meta, spans }
}

/** `bytes` with one byte flipped in the middle of block `block`. */
export function flipInBlock(bytes: Buffer, kind: string, block: number): Buffer {
  const [from, to] = blockSpans(bytes, kind).spans[block]!
  const out = Buffer.from(bytes)
  out[(from + to) >> 1] ^= 0xff
  return out
}
