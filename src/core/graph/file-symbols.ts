/**
 * One file's definitions, references (aggregated) and imports as typed columns of string ids.
 * A loaded table keeps every file in one shared set of columns (a few large arrays decode far
 * faster than thousands of small ones); files added later share chunks of columns (row-chunks.ts).
 */
import { REFERENCE_KIND_ORDER, type ReferenceColumns } from '../parse/reference-columns.js'
import type { ImportRef, LanguageId, ReferenceKind, SymbolDef, SymbolKind } from '../parse/types.js'
import { importKeys } from './imports.js'
import { release } from '../release.js'
import { cut, RowChunks } from './row-chunks.js'
import { Signatures } from './signatures.js'
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
  /**
   * Signatures back to back as UTF-8 (signatures.ts), def i's from byte sigEnds[i-1] (0 for the
   * first) to sigEnds[i]: bytes rather than a string per file, which Linux's 195 MB of signatures
   * kept in the V8 heap as strings joined to strings. (A snapshot holds them as one string, its
   * sigEnds counting UTF-16 code units: SymbolsSnapshot.)
   */
  signatures: Signatures
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
    return utf8.decode(this.cols.signatures.bytes().subarray(at === 0 ? 0 : this.cols.sigEnds[at - 1], this.cols.sigEnds[at]))
  }

  /** The bytes of the file's signatures, from the first definition's to the last's end. */
  signatureBytes(): Uint8Array {
    const { sigEnds } = this.cols
    const start = this.def0 === 0 ? 0 : sigEnds[this.def0 - 1]
    return this.cols.signatures.bytes().subarray(start, this.defs === 0 ? start : sigEnds[this.def0 + this.defs - 1])
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

/**
 * Rows of each kind a chunk of added files' columns has room for: definitions, references,
 * imports, and the bytes of the definitions' signatures (Linux's average ~46 each): about 1.1 MB.
 */
const CHUNK_ROWS = [8_192, 32_768, 2_048, 8_192 * 48]

/** The chunks the rows of a table's added files go into (see row-chunks.ts). */
export function symbolChunks(): RowChunks<SymbolColumns> {
  return new RowChunks<SymbolColumns>(
    {
      allocate: ([defs, refs, imports, sigBytes]) => ({ ...emptyColumns(defs!, refs!, imports!), signatures: new Signatures(new Uint8Array(sigBytes!)) }),
      trim: (cols, [defs, refs, imports, sigBytes]) => {
        cols.signatures.seal(sigBytes!)
        // A column cut is a copy: the one it was cut from is freed at once (see core/release.ts), as
        // a cold build trims a chunk every few hundred files.
        const trim = <K extends keyof SymbolColumns>(key: K, rows: number): void => {
          const column = cols[key] as Exclude<SymbolColumns[K], Signatures>
          const kept = cut(column, rows)
          if (kept === column) return
          ;(cols[key] as typeof kept) = kept
          release(column)
        }
        for (const key of DEF_COLUMNS) trim(key, defs!)
        for (const key of REF_COLUMNS) trim(key, refs!)
        for (const key of IMPORT_COLUMNS) trim(key, imports!)
      },
    },
    CHUNK_ROWS,
  )
}

const DEF_COLUMNS = ['defName', 'defQName', 'defScope', 'defKind', 'defLine', 'defEndLine', 'defColumn', 'sigEnds'] as const
const REF_COLUMNS = ['refName', 'refFrom', 'refKind', 'refCount'] as const
const IMPORT_COLUMNS = ['importModule', 'importName', 'importLine', 'importRelative', 'importKey1', 'importKey2', 'importTarget', 'importIsDir'] as const

/** Columns with room for the given rows (imports unresolved). */
export function emptyColumns(defs: number, refs: number, imports: number): Omit<SymbolColumns, 'signatures'> {
  return {
    defName: new Uint32Array(defs),
    defQName: new Uint32Array(defs),
    defScope: new Uint32Array(defs),
    defKind: new Uint8Array(defs),
    defLine: new Uint32Array(defs),
    defEndLine: new Uint32Array(defs),
    defColumn: new Uint32Array(defs),
    sigEnds: new Uint32Array(defs),
    refName: new Uint32Array(refs),
    refFrom: new Int32Array(refs),
    refKind: new Uint8Array(refs),
    refCount: new Uint32Array(refs),
    importModule: new Uint32Array(imports),
    importName: new Uint32Array(imports),
    importLine: new Uint32Array(imports),
    importRelative: new Uint8Array(imports),
    importKey1: new Uint32Array(imports),
    importKey2: new Uint32Array(imports),
    importTarget: new Int32Array(imports).fill(-1),
    importIsDir: new Uint8Array(imports),
  }
}

/** Aggregates a file's extraction output into rows taken from `chunks`; imports are left unresolved. */
export function fileSymbolsOf(path: string, content: FileContent, strings: StringTable, chunks: RowChunks<SymbolColumns>): FileSymbols {
  const { symbols, references } = content
  const n = symbols.length
  const defOf = new Map<string, number>()
  for (let d = 0; d < n; d++) if (!defOf.has(symbols[d]!.qualifiedName)) defOf.set(symbols[d]!.qualifiedName, d)

  // One row per (enclosing, name, kind); the columns list each distinct name and enclosing
  // definition once, so each is looked up once.
  const rows = refRows.reset(references.name.length)
  const from = references.enclosings.map((enclosing) => (enclosing ? defOf.get(enclosing) ?? -1 : -1))
  const names = references.names.map((name) => strings.id(name))
  for (let i = 0; i < references.name.length; i++) {
    rows.count(names[references.name[i]!]!, from[references.enclosing[i]!]!, KIND_CODE_BY_POSITION[references.kind[i]!]!)
  }
  const imports = importRows(path, content, strings)

  const sigEnds = signatureBytes.encode(symbols)
  const sigLength = n === 0 ? 0 : sigEnds[n - 1]!
  const { cols, starts: [def0, ref0, import0, sig0] } = chunks.take([n, rows.size, imports.length, sigLength])
  cols.signatures.writable.set(signatureBytes.bytes.subarray(0, sigLength), sig0)
  for (let d = 0; d < n; d++) {
    const def = symbols[d]!
    const at = def0! + d
    cols.defName[at] = strings.id(def.name)
    cols.defQName[at] = def.qualifiedName === def.name ? cols.defName[at] : strings.id(def.qualifiedName)
    cols.defScope[at] = strings.id(def.scope)
    cols.defKind[at] = KIND_CODES.get(def.kind) ?? KIND_CODES.get('variable')!
    cols.defLine[at] = def.line
    cols.defEndLine[at] = def.endLine
    cols.defColumn[at] = def.column
    cols.sigEnds[at] = sig0! + sigEnds[d]!
  }
  cols.refName.set(rows.name.subarray(0, rows.size), ref0)
  cols.refFrom.set(rows.from.subarray(0, rows.size), ref0)
  cols.refKind.set(rows.kind.subarray(0, rows.size), ref0)
  cols.refCount.set(rows.occurrences.subarray(0, rows.size), ref0)
  imports.forEach((row, i) => {
    const at = import0! + i
    cols.importModule[at] = row.module
    cols.importName[at] = row.name
    cols.importLine[at] = row.line
    cols.importRelative[at] = row.relative
    cols.importKey1[at] = row.key1
    cols.importKey2[at] = row.key2
  })
  return new FileSymbols(path, strings.id(path), content.language, cols, def0!, n, ref0!, rows.size, import0!, imports.length)
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

  /**
   * Empties the rows, with room for `references` of them. Rows and slots grow apart: the slots
   * are a power of two, so after one large file they may have room for a later one while the
   * rows do not — rows written past their arrays' end would be lost (typed arrays drop them), and
   * how many depended on which files came before.
   */
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

const utf8 = new TextDecoder()

/** The signatures of the file being aggregated as UTF-8, back to back in a buffer reused across files. */
class SignatureBytes {
  bytes = Buffer.alloc(1 << 16)
  private ends = new Uint32Array(1024)

  /** Writes the signatures of `symbols` to `bytes`; returns where each ends (valid until the next call). */
  encode(symbols: readonly SymbolDef[]): Uint32Array {
    if (symbols.length > this.ends.length) this.ends = new Uint32Array(symbols.length * 2)
    let at = 0
    for (let d = 0; d < symbols.length; d++) {
      const text = symbols[d]!.signature
      // A UTF-16 code unit is at most three bytes of UTF-8.
      if (at + text.length * 3 > this.bytes.length) {
        const grown = Buffer.alloc(Math.max(this.bytes.length * 2, at + text.length * 3))
        this.bytes.copy(grown, 0, 0, at)
        this.bytes = grown
      }
      let ascii = true
      for (let i = 0; i < text.length && ascii; i++) ascii = text.charCodeAt(i) < 0x80
      if (ascii) for (let i = 0; i < text.length; i++) this.bytes[at++] = text.charCodeAt(i)
      else at += this.bytes.write(text, at, 'utf8')
      this.ends[d] = at
    }
    return this.ends
  }
}

const signatureBytes = new SignatureBytes()

/** Languages whose imported names may themselves be modules, each tried as `module.name`. */
const NAMES_MAY_BE_MODULES = new Set<LanguageId>(['python', 'rust', 'java'])

interface ImportRow {
  module: number
  name: number
  line: number
  relative: number
  /** Watch keys (see `pathKeys`), 0 when unused. */
  key1: number
  key2: number
}

function importRows(path: string, { language, imports }: FileContent, strings: StringTable): ImportRow[] {
  const rows: ImportRow[] = []
  for (const ref of imports) {
    const names = NAMES_MAY_BE_MODULES.has(language) && ref.names.length > 0 ? ref.names.map((n) => n.name) : ['']
    for (const imported of names) {
      const keys = importKeys({ from: path, language, module: ref.module, name: imported, relative: ref.relative })
      rows.push({
        module: strings.id(ref.module),
        name: strings.id(imported),
        line: ref.line,
        relative: ref.relative ? 1 : 0,
        key1: keys.length > 0 ? strings.id(keys[0]!) : 0,
        key2: keys.length > 1 ? strings.id(keys[1]!) : 0,
      })
    }
  }
  return rows
}
