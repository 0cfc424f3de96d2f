/**
 * A SCIP index (github.com/sourcegraph/scip, scip.proto) reduced to what def, refs and hover need:
 * each document's occurrences as rows of integers, the symbols they name, and a hover text per
 * symbol. Field numbers are scip.proto's:
 *
 *   Index { 1 metadata: Metadata, 2 documents: Document*, 3 external_symbols: SymbolInformation* }
 *   Metadata { 2 tool_info: ToolInfo { 1 name, 2 version } }
 *   Document { 1 relative_path, 2 occurrences: Occurrence*, 3 symbols: SymbolInformation*, 6 position_encoding }
 *   Occurrence { 1 range: int32* (line, char, [end line,] end char; 0-based), 2 symbol, 3 symbol_roles }
 *   SymbolInformation { 1 symbol, 3 documentation: string*, 7 signature_documentation: Document { 5 text } }
 *
 * An index may be streamed as several Index messages back to back, which the wire format reads
 * as one (repeated fields concatenate); a document met twice is merged.
 */
import { LENGTH_DELIMITED, ScipFormatError, WireReader } from './protobuf.js'

/** Per occurrence: line, column, end line, end column (0-based), symbol id, roles. */
export const ROW = 6
/** scip.proto SymbolRole.Definition. */
export const DEFINITION_ROLE = 1
/** A hover longer than this is cut: a type, not a page of documentation. */
const MAX_HOVER = 1_000

export interface DecodedDocument {
  /** As the index wrote it: untrusted, confined by the importer. */
  path: string
  rows: number[]
  /** scip.proto PositionEncoding: what the rows' columns count (columns.ts converts them to ours). */
  encoding: number
}

export interface DecodedScip {
  /** The indexer that wrote it (`scip-typescript 0.4.0`), '' when it did not say. */
  tool: string
  documents: DecodedDocument[]
  /** Symbol ids to SCIP symbols. A `local N` symbol is per document: each document's gets an id of its own. */
  symbols: string[]
  /** Hover text (signature, else first documentation block) by symbol id. */
  hovers: Map<number, string>
}

export function decodeScip(buf: Uint8Array): DecodedScip {
  const decoded: DecodedScip = { tool: '', documents: [], symbols: [], hovers: new Map() }
  const ids = new Map<string, number>()
  const byPath = new Map<string, DecodedDocument>()
  const hoverText = new Map<string, string>()
  const intern = (symbol: string, document: string): number => {
    const key = symbol.startsWith('local ') ? `${document}\0${symbol}` : symbol
    let id = ids.get(key)
    if (id === undefined) {
      ids.set(key, (id = decoded.symbols.length))
      decoded.symbols.push(symbol)
    }
    return id
  }
  const reader = new WireReader(buf)
  while (!reader.done()) {
    const { field, wire } = reader.tag()
    if (wire !== LENGTH_DELIMITED) reader.skip(wire)
    else if (field === 1) decoded.tool = toolOf(reader.message()) || decoded.tool
    else if (field === 2) readDocument(reader.message(), byPath, decoded, intern, hoverText)
    else if (field === 3) readSymbolInformation(reader.message(), hoverText)
    else reader.skip(wire)
  }
  // A local's hover would need its document's symbols kept apart: locals are not what def and refs are asked about.
  for (const [key, id] of ids) {
    const text = key.includes('\0') ? undefined : hoverText.get(key)
    if (text !== undefined) decoded.hovers.set(id, text)
  }
  return decoded
}

function toolOf(metadata: WireReader): string {
  let tool = ''
  while (!metadata.done()) {
    const { field, wire } = metadata.tag()
    if (field !== 2 || wire !== LENGTH_DELIMITED) {
      metadata.skip(wire)
      continue
    }
    const info = metadata.message()
    const parts: string[] = []
    while (!info.done()) {
      const tag = info.tag()
      if ((tag.field === 1 || tag.field === 2) && tag.wire === LENGTH_DELIMITED) parts[tag.field - 1] = info.string()
      else info.skip(tag.wire)
    }
    tool = parts.filter(Boolean).join(' ')
  }
  return tool
}

function readDocument(
  message: WireReader,
  byPath: Map<string, DecodedDocument>,
  decoded: DecodedScip,
  intern: (symbol: string, document: string) => number,
  hoverText: Map<string, string>,
): void {
  let path: string | undefined
  let encoding = 0
  const occurrences: Array<{ range: number[]; symbol: string; roles: number }> = []
  while (!message.done()) {
    const { field, wire } = message.tag()
    if (field === 1 && wire === LENGTH_DELIMITED) path = message.string()
    else if (field === 2 && wire === LENGTH_DELIMITED) occurrences.push(readOccurrence(message.message()))
    else if (field === 3 && wire === LENGTH_DELIMITED) readSymbolInformation(message.message(), hoverText)
    else if (field === 6 && wire === 0) encoding = message.varint()
    else message.skip(wire)
  }
  if (path === undefined) throw new ScipFormatError('a document without relative_path')
  let document = byPath.get(path)
  if (!document) {
    byPath.set(path, (document = { path, rows: [], encoding }))
    decoded.documents.push(document)
  } else if (document.encoding !== encoding && occurrences.length > 0) {
    throw new ScipFormatError(`${JSON.stringify(path)} is streamed with two position encodings`)
  }
  for (const { range, symbol, roles } of occurrences) {
    if (symbol === '') continue
    const [line, column, third, fourth] = range
    if (range.length !== 3 && range.length !== 4) throw new ScipFormatError(`an occurrence in ${JSON.stringify(path)} has a range of ${range.length} numbers`)
    const [endLine, endColumn] = range.length === 3 ? [line!, third!] : [third!, fourth!]
    document.rows.push(line!, column!, endLine, endColumn, intern(symbol, path), roles)
  }
}

function readOccurrence(message: WireReader): { range: number[]; symbol: string; roles: number } {
  const occurrence = { range: [] as number[], symbol: '', roles: 0 }
  while (!message.done()) {
    const { field, wire } = message.tag()
    if (field === 1) message.integers(wire, occurrence.range)
    else if (field === 2 && wire === LENGTH_DELIMITED) occurrence.symbol = message.string()
    else if (field === 3 && wire === 0) occurrence.roles = message.varint()
    else message.skip(wire)
  }
  return occurrence
}

function readSymbolInformation(message: WireReader, hoverText: Map<string, string>): void {
  let symbol = ''
  let signature: string | undefined
  let documentation: string | undefined
  while (!message.done()) {
    const { field, wire } = message.tag()
    if (field === 1 && wire === LENGTH_DELIMITED) symbol = message.string()
    else if (field === 3 && wire === LENGTH_DELIMITED) {
      const text = message.string()
      documentation ??= text
    } else if (field === 7 && wire === LENGTH_DELIMITED) signature = textOf(message.message())
    else message.skip(wire)
  }
  const hover = signature ?? (documentation === undefined ? undefined : unfenced(documentation))
  if (symbol !== '' && hover !== undefined && hover.trim() !== '' && !hoverText.has(symbol)) hoverText.set(symbol, hover.trim().slice(0, MAX_HOVER))
}

/** signature_documentation is a Document whose `text` (5) is the signature. */
function textOf(document: WireReader): string | undefined {
  let text: string | undefined
  while (!document.done()) {
    const { field, wire } = document.tag()
    if (field === 5 && wire === LENGTH_DELIMITED) text = document.string()
    else document.skip(wire)
  }
  return text
}

/** scip-typescript writes the signature as a fenced block (```ts … ```): the code inside it. */
function unfenced(markdown: string): string {
  const fenced = /^\s*```[\w-]*\n([\s\S]*?)\n```/.exec(markdown)
  return fenced ? fenced[1]! : markdown
}
