/**
 * SCIP columns in the unit our rows use. Our parser reads a file as a JavaScript string, so every
 * column we store (definitions, references) counts UTF-16 code units from the line's start. A SCIP
 * document says how it counts in `position_encoding` (scip.proto Document field 6): UTF-16 code
 * units, UTF-8 bytes (scip-clang, rust-analyzer) or UTF-32 code points; unspecified (older
 * indexers, scip-typescript 0.4) is read as UTF-16, what the TypeScript and pyright based indexers
 * count in. On a line holding non-ASCII text before a name the units disagree, and a SCIP
 * definition would sit at another column than ours: rows of UTF-8 and UTF-32 documents are
 * converted at import, against the text of the blob the index was built from.
 */
import { ROW } from './decode.js'

/** scip.proto PositionEncoding. */
export const POSITION_ENCODING = { unspecified: 0, utf8: 1, utf16: 2, utf32: 3 } as const

/** Whether a document's columns need its text to become ours. */
export function needsConversion(encoding: number): boolean {
  return encoding === POSITION_ENCODING.utf8 || encoding === POSITION_ENCODING.utf32
}

/**
 * The rows (line, column, end line, end column, …) with their columns in UTF-16 code units, from
 * `encoding`'s units over `text`. A column past its line's end (or on a line the text lacks) is
 * kept past the end by the same distance: the index describes another text, nothing to guess at.
 */
export function toUtf16Columns(rows: number[], text: string, encoding: number): number[] {
  const lines = text.split('\n')
  const converters = new Map<number, (column: number) => number>()
  const converter = (line: number): ((column: number) => number) => {
    let convert = converters.get(line)
    if (!convert) converters.set(line, (convert = lineConverter(lines[line] ?? '', encoding)))
    return convert
  }
  const out = rows.slice()
  for (let r = 0; r < out.length; r += ROW) {
    out[r + 1] = converter(out[r]!)(out[r + 1]!)
    out[r + 3] = converter(out[r + 2]!)(out[r + 3]!)
  }
  return out
}

/** A column in `encoding`'s units on one line → UTF-16 code units. */
function lineConverter(line: string, encoding: number): (column: number) => number {
  // ASCII lines count the same in every unit.
  if (/^[\x00-\x7f]*$/.test(line)) return (column) => column
  const starts: number[] = [] // starts[k]: the UTF-16 offset where the k-th unit of `encoding` falls
  let offset = 0
  for (const char of line) {
    const units = encoding === POSITION_ENCODING.utf8 ? Buffer.byteLength(char, 'utf8') : 1
    for (let u = 0; u < units; u++) starts.push(offset)
    offset += char.length
  }
  return (column) => (column < starts.length ? starts[column]! : offset + (column - starts.length))
}
