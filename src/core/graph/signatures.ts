/**
 * The signatures of a set of symbol columns (SymbolColumns.signatures): UTF-8 back to back, and
 * once their row chunk is full (row-chunks.ts), deflated. A cold build of Linux holds 195 MB of
 * signatures until it saves them, and C signatures deflate to a fifth; they are read back when
 * the table is stored (files in path order, which is about the order they were added in, so
 * chunks are inflated about once each) and by lookups of definitions.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib'

export class Signatures {
  private raw: Uint8Array | undefined
  private packed: Buffer | undefined

  constructor(bytes: Uint8Array) {
    this.raw = bytes
  }

  /** The bytes to write signatures into, while the chunk is open. */
  get writable(): Uint8Array {
    if (!this.raw) throw new Error('signatures written after their chunk was sealed')
    return this.raw
  }

  /** Keeps the first `length` bytes, deflated: the chunk is full. */
  seal(length: number): void {
    this.packed = deflateRawSync(this.writable.subarray(0, length), { level: 1 })
    this.raw = undefined
  }

  /** All the bytes: inflated again for a sealed chunk, a few kept at a time. */
  bytes(): Uint8Array {
    if (this.raw) return this.raw
    let bytes = inflatedLately.get(this)
    if (bytes) inflatedLately.delete(this)
    else {
      bytes = inflateRawSync(this.packed!)
      if (inflatedLately.size >= INFLATED_KEPT) inflatedLately.delete(inflatedLately.keys().next().value!)
    }
    inflatedLately.set(this, bytes)
    return bytes
  }
}

/** Sealed chunks inflated most recently (a Map iterates oldest first): files arrive a little out of path order. */
const inflatedLately = new Map<Signatures, Uint8Array>()
const INFLATED_KEPT = 4
