/**
 * A stored symbol table with files laid over it — a working tree's uncommitted files, a delta
 * tree's committed ones — answering lookups without loading the table. Lookups by name and by file
 * read the stored table's blocks (as `SymbolTable.open` does), leave out the paths laid over and add
 * those files' rows from a small table of their own. Loading Linux's table whole to lay one file
 * over it took 9 of a dirty tree's 12 s per cold query, and 2 GB.
 *
 * File numbers (`fileNumber`, `pathAt`, a keyed definition's `file`) are positions in the path
 * order of the table as laid over, as in any table. An unchanged file's imports resolve as stored,
 * unless a path was added or removed that an import row may name (the watch keys `commit()` uses):
 * such a row is resolved again among the paths as laid over, as `commit()` would; so is every
 * Python row when a packaging configuration is laid over (its package directories are import roots).
 *
 * Whatever needs the whole table (`sortedFiles`, `file`, `strings`, `paths`, a change) materialises
 * it (see layOver): the stored table is loaded whole and the files are applied as a build applies
 * them, so answers from then on are a patched table's.
 */
import { toReferenceColumns } from '../parse/reference-columns.js'
import type { LanguageId, SymbolDef } from '../parse/types.js'
import { AMBIGUITY_LIMIT, edgeChunks, IMPORT_EDGE, resolveFileEdges, type FileEdges } from './edges.js'
import type { FileContent } from './file-symbols.js'
import { importKeys, resolveImport, type ImportSpec } from './imports.js'
import { declaredDir, PACKAGE_CONFIGS } from '../parse/package-dirs.js'
import { basename, PathIndex, pathKeys } from './paths.js'
import { byReferences, DIRECTORY, SymbolTable, type FileImport, type KeyedImport, type ReferencePosting, type SymbolInfo } from './symbol-table.js'
import type { KeyedDefinition, SymbolsFile } from './symbols-file.js'
import { editedNameList, type NameList } from './name-list.js'

/** An edge out of a laid file (TableView.laidOutEdges): from its definition qualified `from` (null: the file), to a file (`toName` null: an import) or a definition in it. */
export interface LaidEdge {
  from: string | null
  toPath: string
  toName: string | null
  weight: number
}

/** Files laid over a stored table: a path's content, or null for a path removed. */
export type LaidFiles = ReadonlyMap<string, FileContent | null>

export class OverlaidTable extends SymbolTable {
  /** The view, until the table is materialised. */
  private view: TableView | undefined

  constructor(stored: SymbolsFile, view: TableView) {
    super()
    this.stored = stored
    this.view = view
  }

  /** True until the table is materialised (see layOver). */
  get laidOver(): boolean {
    return this.view !== undefined
  }

  /** Forgets the view: the table is being materialised (see layOver), and answers as loaded from now on. */
  dropView(): void {
    this.view = undefined
  }

  protected override load(): void {
    if (this.view) this.view.materialize()
    else super.load()
  }

  override get fileCount(): number {
    return this.view ? this.view.ordering().order.length : super.fileCount
  }

  override get symbolCount(): number {
    return this.view ? this.view.symbolCount() : super.symbolCount
  }

  override pathAt(index: number): string {
    if (!this.view) return super.pathAt(index)
    const entry = this.view.ordering().order[index]
    if (entry === undefined) throw new RangeError(`no file at position ${index} of ${this.fileCount}`)
    return this.view.pathOfEntry(entry)
  }

  override fileNumber(path: string): number {
    if (!this.view) return super.fileNumber(path)
    const { storedToView, extraToView } = this.view.ordering()
    if (!this.view.hidden.has(path)) {
      const s = this.view.base.fileNumber(path)
      return s < 0 ? -1 : storedToView[s]!
    }
    const e = this.view.extra().fileNumber(path)
    return e < 0 ? -1 : extraToView[e]!
  }

  override symbolNodeOffset(path: string, qualifiedName: string): number {
    return this.view ? this.view.tableOf(path).symbolNodeOffset(path, qualifiedName) : super.symbolNodeOffset(path, qualifiedName)
  }

  override hasFile(path: string): boolean {
    return this.view ? this.view.tableOf(path).hasFile(path) : super.hasFile(path)
  }

  override languageOf(path: string): LanguageId | undefined {
    return this.view ? this.view.tableOf(path).languageOf(path) : super.languageOf(path)
  }

  override keyed(key: string): KeyedDefinition[] {
    return this.view ? this.view.keyed(key) : super.keyed(key)
  }

  override definitions(path: string): SymbolInfo[] {
    return this.view ? this.view.tableOf(path).definitions(path) : super.definitions(path)
  }

  override referencesTo(name: string): ReferencePosting[] {
    return this.view ? this.view.referencesTo(name) : super.referencesTo(name)
  }

  override definedNames(): NameList {
    return this.view ? this.view.definedNames() : super.definedNames()
  }

  override imports(path: string): FileImport[] {
    return this.view ? this.view.imports(path) : super.imports(path)
  }

  override importsKeyed(key: string): KeyedImport[] {
    return this.view ? this.view.importsKeyed(key) : super.importsKeyed(key)
  }

  override starImporters(): readonly string[] {
    return this.view?.starImporters() ?? super.starImporters()
  }
}

/** Where the files of the table as laid over are, in path order: a stored file's number (≥ 0), or −1 − its number among the laid files. */
interface Ordering {
  order: Int32Array
  /** Stored file number → position, −1 for a path laid over. */
  storedToView: Int32Array
  /** Laid file number (the small table's path order) → position. */
  extraToView: Int32Array
}

/** What an OverlaidTable answers from until it is materialised; shared with the OverlaidGraph over it. */
export class TableView {
  /** The stored table as stored: its lookups number files as stored (the stored graph's ranks use them). */
  readonly base: SymbolTable
  /** Every path laid over: its stored rows, if any, are not the table's. */
  readonly hidden: ReadonlySet<string>
  /** Keys (see pathKeys) of the paths added or removed: an unchanged file's import rows keyed so may resolve elsewhere now. */
  private readonly watched = new Set<string>()
  /** A packaging configuration is laid over: every Python import may resolve elsewhere. */
  private readonly packagesChanged: boolean
  /** A Python path was added or removed: a star import may resolve where it did not (see starImporters). */
  private readonly pythonPathsChanged: boolean
  private laidTable: SymbolTable | undefined
  private pathIndex: PathIndex | undefined
  private numbering: Ordering | undefined
  private defined: NameList | undefined
  /** Stored files' import rows resolved again, by path (see imports). */
  private readonly reresolved = new Map<string, FileImport[]>()

  constructor(private readonly stored: SymbolsFile, private readonly laid: LaidFiles, readonly materialize: () => void) {
    this.base = SymbolTable.open(stored)
    this.hidden = new Set(laid.keys())
    let python = false
    for (const [path, content] of laid) {
      if ((content === null) !== (stored.fileIndex(path) >= 0)) continue
      // Added or removed: its keys are watched, as commit() watches them.
      for (const key of pathKeys(path)) if (key) this.watched.add(key)
      if (path.endsWith('.py')) python = true
    }
    this.pythonPathsChanged = python
    this.packagesChanged = [...laid.keys()].some((path) => PACKAGE_CONFIGS.has(basename(path)))
  }

  /** The laid files in a table of their own, their imports resolved among the paths as laid over. */
  extra(): SymbolTable {
    if (!this.laidTable) {
      const table = new SymbolTable()
      const contents = [...this.laid].filter((entry): entry is [string, FileContent] => entry[1] !== null)
      if (contents.some(([, content]) => content.imports.length > 0)) table.resolveAmong(this.paths())
      for (const [path, content] of contents) table.addFile(path, content)
      table.commit()
      this.laidTable = table
    }
    return this.laidTable
  }

  /** The table answering for `path`: the laid files' for a path laid over (removed: none holds it), the stored one otherwise. */
  tableOf(path: string): SymbolTable {
    return this.hidden.has(path) ? this.extra() : this.base
  }

  pathOfEntry(entry: number): string {
    return entry >= 0 ? this.stored.pathOf(entry) : this.extra().pathAt(-1 - entry)
  }

  ordering(): Ordering {
    if (!this.numbering) {
      const paths = this.stored.allPaths()
      const extra = this.extra()
      const laid = extra.fileCount
      const storedToView = new Int32Array(paths.length).fill(-1)
      const extraToView = new Int32Array(laid)
      const order: number[] = []
      let e = 0
      const takeLaidBefore = (path: string | undefined): void => {
        for (; e < laid && (path === undefined || extra.pathAt(e) < path); e++) {
          extraToView[e] = order.length
          order.push(-1 - e)
        }
      }
      paths.forEach((path, s) => {
        if (this.hidden.has(path)) return
        takeLaidBefore(path)
        storedToView[s] = order.length
        order.push(s)
      })
      takeLaidBefore(undefined)
      this.numbering = { order: Int32Array.from(order), storedToView, extraToView }
    }
    return this.numbering
  }

  symbolCount(): number {
    let count = this.base.symbolCount + this.extra().symbolCount
    for (const path of this.hidden) count -= this.base.definitions(path).length
    return count
  }

  keyed(key: string): KeyedDefinition[] {
    const { storedToView, extraToView } = this.ordering()
    const out: KeyedDefinition[] = []
    for (const d of this.base.keyed(key)) if (!this.hidden.has(d.info.path)) out.push({ ...d, file: storedToView[d.file]! })
    for (const d of this.extra().keyed(key)) out.push({ ...d, file: extraToView[d.file]! })
    return out.sort((a, b) => a.file - b.file || a.def - b.def)
  }

  referencesTo(name: string): ReferencePosting[] {
    const out = this.base.referencesTo(name).filter((posting) => !this.hidden.has(posting.path))
    out.push(...this.extra().referencesTo(name))
    return out.sort(byReferences)
  }

  /**
   * The stored names, less those only the files laid over defined, then the laid files' new ones.
   * Not in first-definition order over the files as laid over: its one use (suggesting a name) does
   * not depend on it. Whether a name is defined elsewhere is read from its bucket's entries, not
   * its definitions (which read their files' runs), and the stored list (Linux: 4 M names) is never
   * copied (see editedNameList).
   */
  definedNames(): NameList {
    if (!this.defined) {
      const stored = this.base.definedNames()
      const gone = new Set<string>()
      for (const path of this.hidden) for (const def of this.base.definitions(path)) gone.add(def.name).add(def.qualifiedName)
      for (const name of gone) if (this.definedBesideLaid(name)) gone.delete(name)
      const added = [...this.extra().definedNames()].filter((name) => (this.stored.entries(name)?.defs.length ?? 0) === 0)
      this.defined = gone.size === 0 && added.length === 0 ? stored : editedNameList(stored, gone, added)
    }
    return this.defined
  }

  /** Whether a file laid over, or a stored file not laid over, defines `name` (as a name or a qualified name). */
  private definedBesideLaid(name: string): boolean {
    if (this.extra().keyed(name).length > 0) return true
    return (this.stored.entries(name)?.defs ?? []).some(({ file }) => !this.hidden.has(this.stored.pathOf(file)))
  }

  imports(path: string): FileImport[] {
    if (this.hidden.has(path)) return this.extra().imports(path)
    const rows = this.base.imports(path)
    if (rows.length === 0 || (this.watched.size === 0 && !this.packagesChanged)) return rows
    let again = this.reresolved.get(path)
    if (!again) {
      const language = this.base.languageOf(path)!
      again = rows.map((row) => {
        const spec = specOf(path, language, row)
        const moved = (this.packagesChanged && language === 'python') || importKeys(spec).some((key) => this.watched.has(key))
        return moved ? { ...row, resolved: resolveImport(this.paths(), spec) } : row
      })
      this.reresolved.set(path, again)
    }
    return again
  }

  /** The rows keyed `key` as SymbolTable.importsKeyed lists them, an unchanged file's resolved again where its imports are (see imports). */
  importsKeyed(key: string): KeyedImport[] {
    const again = this.watched.has(key) || this.packagesChanged
    const out: KeyedImport[] = []
    let last: string | undefined
    for (const row of this.base.importsKeyed(key)) {
      if (this.hidden.has(row.from)) continue
      if (!again) out.push(row)
      else if (row.from !== last) out.push(...this.keyedRows(row.from, key))
      last = row.from
    }
    for (const row of this.extra().importsKeyed(key)) out.push(row)
    // Each list is in path order; a stable sort merges them.
    return out.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0))
  }

  /**
   * Python files with a resolved `from m import *`. Which stored files have an unresolved one is
   * not stored: when a Python path was added or removed, or a packaging configuration laid over,
   * one may resolve now, and the table is materialised to know (undefined: ask the loaded table).
   */
  starImporters(): readonly string[] | undefined {
    if (this.pythonPathsChanged || this.packagesChanged) {
      this.materialize()
      return undefined
    }
    return [...this.base.starImporters().filter((path) => !this.hidden.has(path)), ...this.extra().starImporters()]
  }

  /**
   * The edges out of the laid file at `path` (none for a path removed), resolved as a build would
   * resolve them in the table as laid over (edges.ts), without loading it: in a table of that file
   * and its neighbourhood — the files it imports (a directory's every file), and for each name it
   * references the files defining it, up to one past AMBIGUITY_LIMIT (all resolution tells apart:
   * beyond it only its own and imported files count, and those are there). Its imports resolve among
   * the paths as laid over, as its own table's do. A packaging configuration is left out of the
   * neighbourhood: added without its import rows, it would withdraw the package roots it declares.
   */
  laidOutEdges(path: string): LaidEdge[] {
    if (!this.laid.get(path)) return []
    const { table, edges } = this.resolveLaid([path])
    const file = table.file(path)!
    const { cols, start, count } = edges.get(path)!
    const out: LaidEdge[] = []
    for (let e = start; e < start + count; e++) {
      const toName = cols.type[e] === IMPORT_EDGE ? null : table.strings.get(cols.toName[e]!)
      const from = cols.from[e]! < 0 ? null : table.strings.get(file.cols.defQName[file.def0 + cols.from[e]!]!)
      out.push({ from, toPath: table.strings.get(cols.toPath[e]!), toName, weight: cols.weight[e]! })
    }
    return out
  }

  /** How many edges leave the laid files (none for paths removed), each resolved as laidOutEdges resolves it; in one table of them all and their neighbourhoods. */
  laidEdgeCount(): number {
    const present = [...this.laid].filter(([, content]) => content !== null).map(([path]) => path)
    if (present.length === 0) return 0
    let count = 0
    for (const edges of this.resolveLaid(present).edges.values()) count += edges.count
    return count
  }

  /**
   * The edges of the laid files at `paths` (each with content), resolved in one table of them and
   * their neighbourhoods (see laidOutEdges). One table for several files resolves each as its own
   * would: a name another file's neighbourhood adds definitions of is defined, in this table as in
   * the whole, in more files than resolution tells apart, or in all of them.
   */
  private resolveLaid(paths: readonly string[]): { table: SymbolTable; edges: Map<string, FileEdges> } {
    const table = new SymbolTable()
    table.resolveAmong(this.paths())
    for (const path of paths) table.addFile(path, this.laid.get(path)!)
    const neighbours = new Set<string>()
    for (const path of paths) {
      for (const other of this.importedFiles(path)) neighbours.add(other)
      const laidFile = table.file(path)!
      const referenced = new Set<string>()
      for (let r = laidFile.ref0; r < laidFile.ref0 + laidFile.refs; r++) referenced.add(table.strings.get(laidFile.cols.refName[r]!))
      for (const name of referenced) for (const other of this.filesNaming(name, AMBIGUITY_LIMIT + 1)) neighbours.add(other)
    }
    for (const path of paths) neighbours.delete(path)
    for (const other of neighbours) {
      if (PACKAGE_CONFIGS.has(basename(other))) continue
      const laid = this.laid.get(other)
      if (laid) table.addFile(other, laid)
      else if (laid === undefined) {
        const symbols = this.base.definitions(other).map(({ path: _path, ...def }): SymbolDef => def)
        table.addFile(other, { language: this.base.languageOf(other)!, symbols, references: toReferenceColumns([]), imports: [] })
      }
    }
    table.commit()
    const index = table.buildNameIndex()
    const chunks = edgeChunks()
    return { table, edges: new Map(paths.map((path) => [path, resolveFileEdges(table, table.file(path)!, index, chunks)])) }
  }

  /** The files the import edges of `path` (as laid over) go to, as edges.ts importEdges finds them: each resolved target, a directory's files but `path` itself. */
  importedFiles(path: string): Set<string> {
    const out = new Set<string>()
    for (const { resolved } of this.imports(path)) {
      if (!resolved) continue
      if (!resolved.isDir) out.add(resolved.path)
      else for (const member of this.paths().filesIn(resolved.path)) if (member !== path) out.add(member)
    }
    return out
  }

  /**
   * Whether an unchanged file's imports may resolve elsewhere in ways the watch keys do not name: a
   * packaging configuration laid over (every Python import), or a Python path added or removed (a
   * star import unresolved when stored). Counting edges without the whole table then cannot tell.
   */
  importsMoveUnwatched(): boolean {
    return this.packagesChanged || this.pythonPathsChanged
  }

  /** The watch keys of the paths added or removed (see `watched`). */
  watchedKeys(): ReadonlySet<string> {
    return this.watched
  }

  /**
   * Up to `limit` files (as laid over) defining something named `name`: the laid ones first, then
   * stored ones in path order. The key's bucket lists files defining it as a name or a qualified name,
   * so each stored candidate's definitions are read until `limit` define it as a name: `keyed` would
   * read every one (`init` is defined in hundreds of Linux files).
   */
  private filesNaming(name: string, limit: number): string[] {
    const out = [...new Set(this.extra().keyed(name).filter((d) => d.byName).map((d) => d.info.path))].slice(0, limit)
    let last = -1
    for (const { file } of this.stored.entries(name)?.defs ?? []) {
      if (out.length >= limit) break
      if (file === last) continue
      last = file
      const path = this.stored.pathOf(file)
      if (!this.hidden.has(path) && this.base.definitions(path).some((def) => def.name === name)) out.push(path)
    }
    return out
  }

  /** An unchanged file's rows keyed `key`, as importsKeyed lists them: one per distinct target. */
  private keyedRows(from: string, key: string): KeyedImport[] {
    const language = this.base.languageOf(from)!
    const targets = new Set<string | null>()
    for (const row of this.imports(from)) {
      if (!importKeys(specOf(from, language, row)).includes(key)) continue
      targets.add(row.resolved === null ? null : row.resolved.isDir ? DIRECTORY : row.resolved.path)
    }
    return [...targets].map((target) => ({ from, target }))
  }

  /** The paths as laid over, indexed for import resolution (with the package directories packaging configurations declare). */
  paths(): PathIndex {
    if (!this.pathIndex) {
      const index = new PathIndex()
      for (const path of this.stored.allPaths()) {
        if (this.hidden.has(path)) continue
        index.add(path)
        if (PACKAGE_CONFIGS.has(basename(path))) index.declarePackageDirs(path, this.base.imports(path).flatMap((row) => declaredDir(row.module) ?? []))
      }
      // The laid files' own paths (and package directories) join it as they are added to their table.
      for (const [path, content] of this.laid) if (content) index.add(path)
      this.pathIndex = index
    }
    return this.pathIndex
  }
}

/** An import row of `from` as resolution and its watch keys take it. */
function specOf(from: string, language: LanguageId, row: FileImport): ImportSpec {
  return { from, language, module: row.module, name: row.name, relative: row.relative }
}
