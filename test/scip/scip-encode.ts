/** A few lines of protobuf encoding, enough to write SCIP indexes by hand in tests (hostile ones included). */
export function varint(n: number): Buffer {
  const out: number[] = []
  do {
    let byte = n % 128
    n = Math.floor(n / 128)
    if (n > 0) byte |= 0x80
    out.push(byte)
  } while (n > 0)
  return Buffer.from(out)
}

export function delimited(field: number, payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload
  return Buffer.concat([varint(field * 8 + 2), varint(body.length), body])
}

export function integer(field: number, n: number): Buffer {
  return Buffer.concat([varint(field * 8), varint(n)])
}

export interface HandOccurrence {
  range: number[]
  symbol: string
  definition?: boolean
  /** Write the range unpacked (one varint field per number), as some encoders do. */
  unpacked?: boolean
}

export function occurrence({ range, symbol, definition, unpacked }: HandOccurrence): Buffer {
  const rangeBytes = unpacked ? Buffer.concat(range.map((n) => integer(1, n))) : delimited(1, Buffer.concat(range.map(varint)))
  return Buffer.concat([rangeBytes, delimited(2, symbol), ...(definition ? [integer(3, 1)] : [])])
}

/** `encoding`: scip.proto PositionEncoding (1 UTF-8 bytes, 2 UTF-16 code units, 3 code points); unwritten when absent. */
export function scipDocument(path: string, occurrences: HandOccurrence[], hovers: Record<string, string> = {}, encoding?: number): Buffer {
  const symbols = Object.entries(hovers).map(([symbol, text]) => delimited(3, Buffer.concat([delimited(1, symbol), delimited(3, text)])))
  const position = encoding === undefined ? [] : [integer(6, encoding)]
  return delimited(2, Buffer.concat([delimited(1, path), ...occurrences.map((o) => delimited(2, occurrence(o))), ...symbols, ...position]))
}

export function scipIndex(tool: string, documents: Buffer[]): Buffer {
  const metadata = delimited(1, delimited(2, Buffer.concat([delimited(1, tool), delimited(2, '1.0')])))
  return Buffer.concat([metadata, ...documents])
}
