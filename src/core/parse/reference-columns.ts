import type { ReferenceKind, SymbolRef } from './types.js'
import { lowerBound } from '../sorted.js'

/**
 * A file's references as columns, the form blob records store and the symbol table reads: a
 * thousand Linux files' references encode in a third of the time objects take, decode in half,
 * and aggregate without a million short-lived objects. Names and enclosing definitions repeat
 * within a file, so rows point into lists of the distinct ones.
 */
export interface ReferenceColumns {
  names: string[]
  enclosings: string[]
  name: Uint32Array
  line: Uint32Array
  column: Uint32Array
  /** Position in REFERENCE_KIND_ORDER. */
  kind: Uint8Array
  enclosing: Uint32Array
  /** The rows that have a receiver, ascending, and those receivers. */
  receiverRows: Uint32Array
  receivers: string[]
}

export const REFERENCE_KIND_ORDER: readonly ReferenceKind[] = ['call', 'reference', 'type', 'inherit', 'import', 'doc']
const KIND_POSITION = new Map(REFERENCE_KIND_ORDER.map((kind, position) => [kind, position]))

export function toReferenceColumns(references: readonly SymbolRef[]): ReferenceColumns {
  const n = references.length
  const columns: ReferenceColumns = {
    names: [],
    enclosings: [],
    name: new Uint32Array(n),
    line: new Uint32Array(n),
    column: new Uint32Array(n),
    kind: new Uint8Array(n),
    enclosing: new Uint32Array(n),
    receiverRows: new Uint32Array(0),
    receivers: [],
  }
  const names = new Map<string, number>()
  const enclosings = new Map<string, number>()
  const receiverRows: number[] = []
  for (let i = 0; i < n; i++) {
    const ref = references[i]!
    columns.name[i] = positionOf(ref.name, names, columns.names)
    columns.enclosing[i] = positionOf(ref.enclosing, enclosings, columns.enclosings)
    columns.line[i] = ref.line
    columns.column[i] = ref.column
    columns.kind[i] = KIND_POSITION.get(ref.kind)!
    if (ref.receiver !== undefined) {
      receiverRows.push(i)
      columns.receivers.push(ref.receiver)
    }
  }
  columns.receiverRows = Uint32Array.from(receiverRows)
  return columns
}

export function fromReferenceColumns(columns: ReferenceColumns): SymbolRef[] {
  const references: SymbolRef[] = new Array(columns.name.length)
  for (let i = 0; i < references.length; i++) {
    references[i] = {
      name: columns.names[columns.name[i]!]!,
      line: columns.line[i]!,
      column: columns.column[i]!,
      kind: REFERENCE_KIND_ORDER[columns.kind[i]!]!,
      enclosing: columns.enclosings[columns.enclosing[i]!]!,
    }
  }
  columns.receiverRows.forEach((row, k) => (references[row]!.receiver = columns.receivers[k]!))
  return references
}

/** Row `row` of `columns` as a reference (fromReferenceColumns's, for one row). */
export function referenceAt(columns: ReferenceColumns, row: number): SymbolRef {
  const ref: SymbolRef = {
    name: columns.names[columns.name[row]!]!,
    line: columns.line[row]!,
    column: columns.column[row]!,
    kind: REFERENCE_KIND_ORDER[columns.kind[row]!]!,
    enclosing: columns.enclosings[columns.enclosing[row]!]!,
  }
  const k = lowerBound(columns.receiverRows, row)
  if (columns.receiverRows[k] === row) ref.receiver = columns.receivers[k]!
  return ref
}

/** The rows whose name is one of `names`, ascending. */
export function rowsNamed(columns: ReferenceColumns, names: ReadonlySet<string>): number[] {
  const wanted = new Set<number>()
  columns.names.forEach((name, position) => {
    if (names.has(name)) wanted.add(position)
  })
  const rows: number[] = []
  if (wanted.size > 0) for (let row = 0; row < columns.name.length; row++) if (wanted.has(columns.name[row]!)) rows.push(row)
  return rows
}

function positionOf(text: string, positions: Map<string, number>, list: string[]): number {
  let position = positions.get(text)
  if (position === undefined) {
    position = list.length
    positions.set(text, position)
    list.push(text)
  }
  return position
}
