/**
 * A minimal reader of the protocol-buffers wire format: SCIP needs varints, length-delimited fields
 * (strings, nested messages, packed integers) and skipping what it does not use — nothing else. A
 * generated decoder (protobufjs, @bufbuild/protobuf with the SCIP bindings) would add a dependency
 * and build an object per occurrence; this reads the few fields def/refs need straight into rows.
 * Every read is bounds-checked: a truncated or garbled file is a ScipFormatError, never a crash.
 */
export class ScipFormatError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ScipFormatError'
  }
}

/** Wire types of the protocol-buffers encoding. */
export const VARINT = 0
export const FIXED64 = 1
export const LENGTH_DELIMITED = 2
export const FIXED32 = 5

const UTF8 = new TextDecoder('utf-8')

export class WireReader {
  private pos: number

  constructor(private readonly buf: Uint8Array, start = 0, private readonly end = buf.length) {
    this.pos = start
  }

  done(): boolean {
    return this.pos >= this.end
  }

  /** A field's number and wire type. */
  tag(): { field: number; wire: number } {
    const key = this.varint()
    const field = Math.floor(key / 8)
    if (field === 0) throw new ScipFormatError(`field number 0 at byte ${this.pos}`)
    return { field, wire: key % 8 }
  }

  /** An unsigned varint up to 2^53; a negative int32 (ten bytes, two's complement) comes back as a large number. */
  varint(): number {
    let value = 0
    let scale = 1
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ScipFormatError('truncated varint')
      const byte = this.buf[this.pos++]!
      if (scale < 2 ** 53) value += (byte & 0x7f) * scale
      if (byte < 0x80) return value
      scale *= 128
    }
    throw new ScipFormatError(`varint longer than ten bytes at byte ${this.pos}`)
  }

  /** A length-delimited field's bounds, checked against the enclosing message. */
  delimited(): { start: number; end: number } {
    const length = this.varint()
    const start = this.pos
    if (length > this.end - start) throw new ScipFormatError(`a field of ${length} bytes runs past its message at byte ${start}`)
    this.pos = start + length
    return { start, end: this.pos }
  }

  string(): string {
    const { start, end } = this.delimited()
    return UTF8.decode(this.buf.subarray(start, end))
  }

  /** A reader over a nested message. */
  message(): WireReader {
    const { start, end } = this.delimited()
    return new WireReader(this.buf, start, end)
  }

  /** A repeated integer field: packed (one length-delimited run) or one varint per occurrence. */
  integers(wire: number, into: number[]): void {
    if (wire === VARINT) {
      into.push(this.varint())
      return
    }
    if (wire !== LENGTH_DELIMITED) throw new ScipFormatError(`wire type ${wire} for a repeated integer`)
    const packed = this.message()
    while (!packed.done()) into.push(packed.varint())
  }

  skip(wire: number): void {
    if (wire === VARINT) this.varint()
    else if (wire === LENGTH_DELIMITED) this.delimited()
    else if (wire === FIXED64 || wire === FIXED32) {
      const size = wire === FIXED64 ? 8 : 4
      if (size > this.end - this.pos) throw new ScipFormatError('truncated fixed-size field')
      this.pos += size
    } else throw new ScipFormatError(`unsupported wire type ${wire} at byte ${this.pos}`)
  }
}
