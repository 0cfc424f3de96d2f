/**
 * One file's definitions, references (aggregated) and imports as typed columns of string ids.
 * A loaded table keeps every file in one shared set of columns (a few large arrays decode far
 * faster than thousands of small ones); a file added later gets columns of its own.
 */
import { REFERENCE_KIND_ORDER, type ReferenceColumns } from '../parse/reference-columns.js'
import type { ImportRef, LanguageId, ReferenceKind, SymbolDef, SymbolKind } from '../parse/types.js'
import { importKeys } from './imports.js'
import type { StringTable } from './strings.js'

export const SYMBOL_KINDS: readonly SymbolKind[] = [
  'function', 'method', 'class', 'interface', 'struct', 'enum', 'trait', 'type',
  'module', 'constant', 'variable', 'field', 'macro', 'namespace',
]

/** Reference kinds as stored: an imported name or a doc comment's link is a plain reference to what it names. */
export const REFERENCE_KINDS = ['call', 'reference', 'type', 'inherit'] as const
const REFERENCE_CODES: Record<ReferenceKind, number> = { call: 0, reference: 1, type: 2, inherit: 3, import: 1, doc: 1 }
const KIND_CODE_BY_POSITION = REFERENCE_KIND_ORDER.map((kind) => REFERENCE_CODES[kind])
const KIND_CODES = new Map(SYMBOL_KINDS.map((kind, code) => [kind, code]))

export interface SymbolColumns {
  defName: Uint32Array
  defQName: Uint32Array
  defScope: Uint32Array
  defKind: Uint8Array
  defLine: Uint32Array
  defEndLine: Uint32Array
  defColumn: Uint32Array
  /** Signatures back to back; def i's runs from sigEnds[i-1] (0 for the first) to sigEnds[i]. */
  sigText: string
  sigEnds: Uint32Array
  /** One row per distinct (enclosing definition, name, kind) of a file, with its occurrence count. */
  refName: Uint32Array
  /** Index of the enclosing definition within the file, -1 for file level. */
  refFrom: Int32Array
  refKind: Uint8Array
  refCount: Uint32Array
  importModule: Uint32Array
  importName: Uint32Array
  importLine: Uint32Array
  importRelative: Uint8Array
  /** Watch keys (see `pathKeys`), 0 when unused. */
  importKey1: Uint32Array
  importKey2: Uint32Array
  /** String id of the resolved file or directory, -1 when unresolved. */
  importTarget: Int32Array
  importIsDir: Uint8Array
}

export class FileSymbols {
  /** Distinct qualified names in definition order: the file's symbol nodes. */
  private nodeNames: Uint32Array | undefined
  private nodeOf: Map<number, number> | undefined

  constructor(
    readonly path: string,
    readonly pathId: number,
    readonly language: LanguageId,
    readonly cols: SymbolColumns,
    readonly def0: number,
    readonly defs: number,
    readonly ref0: number,
    readonly refs: number,
    readonly import0: number,
    readonly imports: number,
  ) {}

  signature(def: number): string {
    const at = this.def0 + def
    return this.cols.sigText.slice(at === 0 ? 0 : this.cols.sigEnds[at - 1], this.cols.sigEnds[at])
  }

  symbolNodes(): Uint32Array {
    this.indexNodes()
    return this.nodeNames!
  }

  /** Offset among the file's symbol nodes of the definition named `qualifiedName`, -1 if none. */
  nodeOffset(qualifiedName: number): number {
    this.indexNodes()
    return this.nodeOf!.get(qualifiedName) ?? -1
  }

  private indexNodes(): void {
    if (this.nodeOf) return
    const nodeOf = new Map<number, number>()
    const names: number[] = []
    const { defQName } = this.cols
    for (let d = this.def0; d < this.def0 + this.defs; d++) {
      const qname = defQName[d]
      if (!nodeOf.has(qname)) {
        nodeOf.set(qname, names.length)
        names.push(qname)
      }
    }
    this.nodeOf = nodeOf
    this.nodeNames = Uint32Array.from(names)
  }
}

export interface FileContent {
  language: LanguageId
  symbols: SymbolDef[]
  references: ReferenceColumns
  imports: ImportRef[]
}

/** Aggregates a file's extraction output into columns; imports are left unresolved. */
export function fileSymbolsOf(path: string, content: FileContent, strings: StringTable): FileSymbols {
  const { symbols, references, language } = content
  const n = symbols.length
  const defName = new Uint32Array(n)
  const defQName = new Uint32Array(n)
  const defScope = new Uint32Array(n)
  const defKind = new Uint8Array(n)
  const defLine = new Uint32Array(n)
  const defEndLine = new Uint32Array(n)
  const defColumn = new Uint32Array(n)
  const sigEnds = new Uint32Array(n)
  const signatures: string[] = new Array(n)
  const defOf = new Map<string, number>()
  let sigLength = 0
  for (let d = 0; d < n; d++) {
    const def = symbols[d]!
    defName[d] = strings.id(def.name)
    defQName[d] = def.qualifiedName === def.name ? defName[d] : strings.id(def.qualifiedName)
    defScope[d] = strings.id(def.scope)
    defKind[d] = KIND_CODES.get(def.kind) ?? KIND_CODES.get('variable')!
    defLine[d] = def.line
    defEndLine[d] = def.endLine
    defColumn[d] = def.column
    signatures[d] = def.signature
    sigLength += def.signature.length
    sigEnds[d] = sigLength
    if (!defOf.has(def.qualifiedName)) defOf.set(def.qualifiedName, d)
  }

  // One row per (enclosing, name, kind); the columns list each distinct name and enclosing
  // definition once, so each is looked up once.
  const rows = refRows.reset(references.name.length)
  const from = references.enclosings.map((enclosing) => (enclosing ? defOf.get(enclosing) ?? -1 : -1))
  const names = references.names.map((name) => strings.id(name))
  for (let i = 0; i < references.name.length; i++) {
    rows.count(names[references.name[i]!]!, from[references.enclosing[i]!]!, KIND_CODE_BY_POSITION[references.kind[i]!]!)
  }

  const imports = importRows(path, content, strings)
  const cols: SymbolColumns = {
    defName, defQName, defScope, defKind, defLine, defEndLine, defColumn,
    sigText: signatures.join(''),
    sigEnds,
    refName: rows.name.slice(0, rows.size),
    refFrom: rows.from.slice(0, rows.size),
    refKind: rows.kind.slice(0, rows.size),
    refCount: rows.occurrences.slice(0, rows.size),
    ...imports,
  }
  return new FileSymbols(path, strings.id(path), language, cols, 0, n, 0, rows.size, 0, imports.importModule.length)
}

/**
 * The distinct (name, enclosing, kind) rows of the file being aggregated, with their counts:
 * open addressing over reusable typed arrays, so a cold build's millions of references allocate
 * nothing but each file's final columns.
 */
class RefRows {
  size = 0
  name = new Uint32Array(1024)
  from = new Int32Array(1024)
  kind = new Uint8Array(1024)
  occurrences = new Uint32Array(1024)
  /** Row + 1 per slot, 0 = empty; cleared through the rows it holds (a file's are few). */
  private slots = new Int32Array(4096)
  private mask = 4095

  /** Empties the rows, with room for `references` of them. */
  reset(references: number): this {
    const slots = this.slots
    if (references * 2 > slots.length) {
      let size = slots.length
      while (size < references * 2) size *= 2
      this.slots = new Int32Array(size)
      this.mask = size - 1
    } else {
      // Latest first: an earlier row's slot may lie on a later row's probe path, never the reverse.
      for (let row = this.size - 1; row >= 0; row--) slots[this.slotOf(this.name[row], this.from[row], this.kind[row])] = 0
    }
    // The rows grow apart from the slots: a file with more rows than the buffers hold but fewer
    // than half the slots wrote its last rows past the typed arrays' end, where writes vanish.
    if (references > this.name.length) {
      this.name = new Uint32Array(references)
      this.from = new Int32Array(references)
      this.kind = new Uint8Array(references)
      this.occurrences = new Uint32Array(references)
    }
    this.size = 0
    return this
  }

  count(name: number, from: number, kind: number): void {
    const slot = this.slotOf(name, from, kind)
    const row = this.slots[slot] - 1
    if (row >= 0) {
      this.occurrences[row]++
      return
    }
    const at = this.size++
    this.slots[slot] = at + 1
    this.name[at] = name
    this.from[at] = from
    this.kind[at] = kind
    this.occurrences[at] = 1
  }

  /** The slot holding the row, or the empty slot where it belongs. */
  private slotOf(name: number, from: number, kind: number): number {
    const { slots, mask } = this
    let slot = (Math.imul(name, 0x9e3779b1) ^ Math.imul(from + 1, 0x85ebca6b) ^ kind) & mask
    for (;; slot = (slot + 1) & mask) {
      const row = slots[slot] - 1
      if (row < 0 || (this.name[row] === name && this.from[row] === from && this.kind[row] === kind)) return slot
    }
  }
}

const refRows = new RefRows()

/** Languages whose imported names may themselves be modules, each tried as `module.name`. */
const NAMES_MAY_BE_MODULES = new Set<LanguageId>(['python', 'rust', 'java'])

type ImportColumns = Pick<SymbolColumns,
  'importModule' | 'importName' | 'importLine' | 'importRelative' | 'importKey1' | 'importKey2' | 'importTarget' | 'importIsDir'>

function importRows(path: string, { language, imports }: FileContent, strings: StringTable): ImportColumns {
  const module: number[] = []
  const name: number[] = []
  const line: number[] = []
  const relative: number[] = []
  const key1: number[] = []
  const key2: number[] = []
  for (const ref of imports) {
    const names = NAMES_MAY_BE_MODULES.has(language) && ref.names.length > 0 ? ref.names.map((n) => n.name) : ['']
    for (const imported of names) {
      const keys = importKeys({ from: path, language, module: ref.module, name: imported, relative: ref.relative })
      module.push(strings.id(ref.module))
      name.push(strings.id(imported))
      line.push(ref.line)
      relative.push(ref.relative ? 1 : 0)
      key1.push(keys.length > 0 ? strings.id(keys[0]!) : 0)
      key2.push(keys.length > 1 ? strings.id(keys[1]!) : 0)
    }
  }
  return {
    importModule: Uint32Array.from(module),
    importName: Uint32Array.from(name),
    importLine: Uint32Array.from(line),
    importRelative: Uint8Array.from(relative),
    importKey1: Uint32Array.from(key1),
    importKey2: Uint32Array.from(key2),
    importTarget: new Int32Array(module.length).fill(-1),
    importIsDir: new Uint8Array(module.length),
  }
}
