import { writeFileSync } from 'node:fs'
import { BlockFile, blockFileParts, BlockSink } from '../../src/core/graph/block-file.js'
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

/**
 * Writes the block record at `path` again with block `block`'s value replaced by `edit`'s: a record
 * whose every checksum holds, with content its writer would never produce.
 */
export async function rewriteBlock(path: string, kind: string, version: number, block: number, edit: (value: unknown) => unknown): Promise<void> {
  const file = BlockFile.open(path, kind, version)
  const sink = new BlockSink()
  for (let i = 0; i < file.blockCount; i++) await sink.add(i === block ? edit(file.read(i)) : file.read(i))
  writeFileSync(path, Buffer.concat([...await blockFileParts(kind, version, file.meta, sink)]))
}
