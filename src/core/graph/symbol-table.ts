/**
 * Every definition of a tree, the files referencing each name (with counts), and each file's
 * imports resolved to repo paths. Patched file by file; `commit()` then re-resolves the imports a
 * path change can affect and reports what changed, for the code graph to update its edges.
 */
import { CorruptFileError } from '../errors.js'
import type { LanguageId, SymbolDef } from '../parse/types.js'
import { DefIndex } from './def-index.js'
import { emptyColumns, FileSymbols, fileSymbolsOf, symbolChunks, SYMBOL_KINDS, type FileContent, type SymbolColumns } from './file-symbols.js'
import { resolveImport, type ImportTarget } from './imports.js'
import { declaredDir, PACKAGE_CONFIGS } from '../parse/package-dirs.js'
import { basename, PathIndex, pathKeys } from './paths.js'
import { Signatures } from './signatures.js'
import { STRING_SEPARATOR, StringTable, type StringList } from './strings.js'
import { IMPORT_DIRECTORY, IMPORT_UNRESOLVED, type KeyedDefinition, type SymbolsFile } from './symbols-file.js'
import { joinSnapshots, placeRunStrings, type SymbolsRun } from './table-slices.js'
import { nameListOf, type NameList } from './name-list.js'

/** A definition as extracted, plus the file that holds it. */
export interface SymbolInfo extends SymbolDef {
  path: string
}

export interface FileImport {
  module: string
  /** The imported name tried as a submodule, '' when none. */
  name: string
  line: number
  relative: boolean
  resolved: ImportTarget | null
}

/** An import row as importsKeyed lists it: the importing file, and the file it resolved to (null: none; DIRECTORY: a directory). */
export interface KeyedImport {
  from: string
  target: string | null
}

/** KeyedImport's target for a row resolved to a directory (a Go or Java package). */
export const DIRECTORY = '\0directory'

export interface ReferencePosting {
  path: string
  count: number
}

/** referencesTo's order: most references first, ties by path (a path is listed once). */
export function byReferences(a: ReferencePosting, b: ReferencePosting): number {
  return b.count - a.count || (a.path < b.path ? -1 : 1)
}

/** What `commit()` found since the previous commit. */
export interface TableChanges {
  /** Files added, changed or removed. */
  changed: Set<string>
  /**
   * Names whose set of (defining file, qualified name) changed → how many more files define them
   * now; left empty when every file of the table changed (each is resolved again anyway).
   */
  dirtyNames: Map<number, number>
  /** Unchanged files whose imports now resolve differently. */
  importsChanged: Set<string>
}

export const SYMBOLS_SNAPSHOT_VERSION = 1

export interface SymbolsSnapshot extends Omit<SymbolColumns, 'signatures'> {
  version: typeof SYMBOLS_SNAPSHOT_VERSION
  strings: string
  /** The signatures back to back; sigEnds count its UTF-16 code units (SymbolColumns' count bytes). */
  sigText: string
  paths: Uint32Array
  languages: LanguageId[]
  defCounts: Uint32Array
  refCounts: Uint32Array
  importCounts: Uint32Array
}

/** The columns of some files as an encoder takes them (see SnapshotRows): without their strings, their signatures by file. */
export type SnapshotColumns = Omit<SymbolsSnapshot, 'strings' | 'sigText'> & {
  /** The signatures of files [from, to) back to back, as a snapshot's `sigText` holds them. */
  sigTextOf(from: number, to: number): string
}

/**
 * A table as encodeSymbolsFile reads it (SymbolTable.rows, or a whole snapshot): what each file
 * holds, and the rows of a run of files at a time. A whole table's columns copied at once were
 * ~350 MB beside the table at the memory peak of a Linux build (encoding symbols.mpk).
 */
export interface SnapshotRows {
  /** Paths in path order: file f of every other list. */
  paths: readonly string[]
  languages: readonly LanguageId[]
  defCounts: Uint32Array
  refCounts: Uint32Array
  importCounts: Uint32Array
  /**
   * Files [from, to) as a snapshot's columns of their own (rows numbered from 0), with the stored
   * string ids: strings are numbered in order of first use over files in path order, so ranges
   * are taken in path order the first time; any range may be taken again afterwards.
   */
  columns(from: number, to: number): SnapshotColumns
  /** The stored strings by id, as far as taken columns have numbered them: all once every file's were. */
  strings: StringList
  /** Every stored id is below this (sizes scratch indexed by id before the strings are all numbered). */
  idLimit: number
}

export class SymbolTable {
  private readonly fileMap = new Map<string, FileSymbols>()
  /** Where the rows of files added to this table go (see row-chunks.ts). */
  private readonly chunks = symbolChunks()
  private stringTable: StringTable
  /**
   * The stored table this one was opened from, until something needs all of it: lookups by name
   * (`def`, a name's references) and by file (definitions, imports) read only their blocks;
   * anything else loads the whole table.
   */
  protected stored: SymbolsFile | undefined
  /** Runs of the stored table read so far, each a table of its own files (see symbols-file.ts). */
  private readonly runs = new Map<number, SymbolTable>()
  /** Path → its record before the first change since the last commit (null: it did not exist). */
  private readonly changes = new Map<string, FileSymbols | null>()
  private pathIndex: PathIndex | undefined
  private ordered: FileSymbols[] | undefined
  private orderOf: Int32Array | undefined
  private names: DefIndex | undefined
  private qualifiedNames: DefIndex | undefined
  private postings: { starts: Uint32Array; files: Uint32Array; counts: Uint32Array } | undefined
  private starImporting: string[] | undefined
  /** Import key → the import rows keyed so (see importsKeyed). */
  private importing: Map<string, KeyedImport[]> | undefined
  private defined: NameList | undefined

  constructor(strings = new StringTable()) {
    this.stringTable = strings
  }

  /** A view of a stored table: blocks are read as lookups need them (see symbols-file.ts). */
  static open(stored: SymbolsFile): SymbolTable {
    const table = new SymbolTable()
    table.stored = stored
    return table
  }

  get strings(): StringTable {
    this.load()
    return this.stringTable
  }

  private get files(): Map<string, FileSymbols> {
    this.load()
    return this.fileMap
  }

  /** Loads the whole stored table, once, for whatever needs more than a lookup by name or by file. */
  protected load(): void {
    if (!this.stored) return
    const { stored } = this
    const runs = Array.from({ length: stored.runCount }, (_, r) => checkSnapshot(stored.run(r), stored.path) as SymbolsRun)
    const { data, strings } = joinSnapshots(runs, stored.stringCount, stored.path)
    const whole = SymbolTable.build(data, strings)
    this.stored = undefined
    this.runs.clear()
    this.stringTable = whole.stringTable
    for (const [path, file] of whole.fileMap) this.fileMap.set(path, file)
  }

  /** The stored file at `path` and the table of its run, reading the run on first use; undefined when there is no such file. */
  private storedFile(stored: SymbolsFile, path: string): { table: SymbolTable; file: FileSymbols } | undefined {
    const index = stored.fileIndex(path)
    if (index < 0) return undefined
    const { run } = stored.runOf(index)
    let table = this.runs.get(run)
    if (!table) this.runs.set(run, (table = SymbolTable.fromSnapshot(stored.run(run), stored.path)))
    const file = table.fileMap.get(path)
    if (!file) throw new CorruptFileError(stored.path, `run ${run} lacks ${path}`)
    return { table, file }
  }

  /** The rows of the file at `path` and the table whose strings number them (a stored table's: its run's, read alone), undefined when there is no such file. */
  fileRows(path: string): { table: SymbolTable; file: FileSymbols } | undefined {
    if (this.stored) return this.storedFile(this.stored, path)
    const file = this.files.get(path)
    return file && { table: this, file }
  }

  get fileCount(): number {
    return this.stored ? this.stored.fileCount : this.files.size
  }

  get symbolCount(): number {
    if (this.stored) return this.stored.symbolCount
    let count = 0
    for (const file of this.files.values()) count += file.defs
    return count
  }

  addFile(path: string, content: FileContent): void {
    this.removeFile(path)
    if (!this.changes.has(path)) this.changes.set(path, null)
    const file = fileSymbolsOf(path, content, this.strings, this.chunks)
    this.files.set(path, file)
    this.pathIndex?.add(path)
    this.pathIndex?.declarePackageDirs(path, this.packageDirs(file))
    this.invalidate()
  }

  removeFile(path: string): void {
    const file = this.files.get(path)
    if (!file) return
    if (!this.changes.has(path)) this.changes.set(path, file)
    this.files.delete(path)
    this.pathIndex?.remove(path)
    this.invalidate()
  }

  file(path: string): FileSymbols | undefined {
    return this.files.get(path)
  }

  /** Files in path order: the order of graph nodes and of the stored form. */
  sortedFiles(): readonly FileSymbols[] {
    this.ordered ??= [...this.files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    return this.ordered
  }

  /** Position in `sortedFiles()` of the file whose path has string id `pathId`, -1 if none. */
  fileIndexOf(pathId: number): number {
    if (!this.orderOf || this.orderOf.length < this.strings.size) {
      const orderOf = new Int32Array(this.strings.size).fill(-1)
      this.sortedFiles().forEach((file, index) => { orderOf[file.pathId] = index })
      this.orderOf = orderOf
    }
    return pathId < this.orderOf.length ? this.orderOf[pathId] : -1
  }

  /** The path of the file at position `index` in path order; a stored table answers from its path list. */
  pathAt(index: number): string {
    if (this.stored) return this.stored.pathOf(index)
    const file = this.sortedFiles()[index]
    if (!file) throw new RangeError(`no file at position ${index} of ${this.fileCount}`)
    return file.path
  }

  /** Position of the file at `path` in path order, -1 when the table does not hold it; a stored table answers from its path list. */
  fileNumber(path: string): number {
    if (this.stored) return this.stored.fileIndex(path)
    const file = this.files.get(path)
    return file ? this.fileIndexOf(file.pathId) : -1
  }

  /** Offset among the symbol nodes of the file at `path` of its definition qualified `qualifiedName` (FileSymbols.nodeOffset), -1 if none. */
  symbolNodeOffset(path: string, qualifiedName: string): number {
    const found = this.stored ? this.storedFile(this.stored, path) : { table: this as SymbolTable, file: this.files.get(path) }
    const id = found?.file ? found.table.strings.find(qualifiedName) : -1
    return id < 0 ? -1 : found!.file!.nodeOffset(id)
  }

  /** Definitions by name, over `sortedFiles()`. */
  nameIndex(): DefIndex {
    this.names ??= this.buildNameIndex()
    return this.names
  }

  /** The definitions by name, built afresh and not kept (nameIndex keeps its own): for a caller that drops it once used. */
  buildNameIndex(): DefIndex {
    return DefIndex.build(this.sortedFiles(), this.strings.size, (cols) => cols.defName)
  }

  byName(name: string): SymbolInfo[] {
    if (this.stored) return firstPerFile(this.keyed(name).filter((d) => d.byName))
    return this.infos(this.nameIndex(), this.strings.find(name))
  }

  byQualifiedName(qualifiedName: string): SymbolInfo[] {
    if (this.stored) return firstPerFile(this.keyed(qualifiedName).filter((d) => d.byQualifiedName))
    this.qualifiedNames ??= DefIndex.build(this.sortedFiles(), this.strings.size, (cols) => cols.defQName)
    return this.infos(this.qualifiedNames, this.strings.find(qualifiedName))
  }

  /**
   * `path:name` (definitions in that file named or qualified so), else a qualified name, else a
   * name. A C++ `Foo::bar` is not mistaken for a path: `::` never separates a path.
   */
  lookup(key: string): SymbolInfo[] {
    for (let at = key.indexOf(':'); at > 0; at = key.indexOf(':', at + 2)) {
      if (key[at + 1] === ':') continue
      const path = key.slice(0, at)
      const name = key.slice(at + 1)
      if (this.hasFile(path)) return this.keyed(name).filter((d) => d.info.path === path).map((d) => d.info)
    }
    const qualified = this.byQualifiedName(key)
    return qualified.length > 0 ? qualified : this.byName(key)
  }

  hasFile(path: string): boolean {
    return this.stored ? this.stored.fileIndex(path) >= 0 : this.files.has(path)
  }

  /** The language of the file at `path`, undefined when the table does not hold it; a stored table reads the file's run. */
  languageOf(path: string): LanguageId | undefined {
    return (this.stored ? this.storedFile(this.stored, path)?.file : this.files.get(path))?.language
  }

  /**
   * Resolves this table's imports against `index` rather than an index of its own files: a table
   * of a few files laid over a whole tree (overlaid-table.ts) resolves them among the tree's paths.
   * Set before any file is added; the files added are added to it.
   */
  resolveAmong(index: PathIndex): void {
    if (this.fileMap.size > 0 || this.stored) throw new Error('resolveAmong: set on an empty table only')
    this.pathIndex = index
  }

  /**
   * Every definition named or qualified `key`, in path then definition order, with how it
   * matched: the lookup `def` needs, answered from the key's block of a stored table.
   */
  keyed(key: string): KeyedDefinition[] {
    const { stored } = this
    if (stored) {
      return (stored.entries(key)?.defs ?? []).map(({ file, def }) => {
        const found = this.storedFile(stored, stored.pathOf(file))!
        if (def >= found.file.defs) throw new CorruptFileError(stored.path, `symbol bucket names definition ${def} of ${found.file.path}, which has ${found.file.defs}`)
        const info = found.table.info(found.file, def)
        return { info, file, def, byName: info.name === key, byQualifiedName: info.qualifiedName === key }
      })
    }
    const id = this.strings.find(key)
    if (id < 0) return []
    const out: KeyedDefinition[] = []
    this.sortedFiles().forEach((file, f) => {
      const { defName, defQName } = file.cols
      for (let d = file.def0; d < file.def0 + file.defs; d++) {
        if (defName[d] !== id && defQName[d] !== id) continue
        out.push({ info: this.info(file, d - file.def0), file: f, def: d - file.def0, byName: defName[d] === id, byQualifiedName: defQName[d] === id })
      }
    })
    return out
  }

  definitions(path: string): SymbolInfo[] {
    if (this.stored) return this.storedFile(this.stored, path)?.table.definitions(path) ?? []
    const file = this.files.get(path)
    if (!file) return []
    return Array.from({ length: file.defs }, (_, d) => this.info(file, d))
  }

  /** Files referencing `name`, most references first (ties by path). */
  referencesTo(name: string): ReferencePosting[] {
    const { stored } = this
    if (stored) return (stored.entries(name)?.refs ?? []).map(({ file, count }) => ({ path: stored.pathOf(file), count })).sort(byReferences)
    const id = this.strings.find(name)
    if (id < 0) return []
    const postings = this.buildPostings()
    if (id + 1 >= postings.starts.length) return []
    const files = this.sortedFiles()
    const out: ReferencePosting[] = []
    for (let e = postings.starts[id]; e < postings.starts[id + 1]; e++) out.push({ path: files[postings.files[e]]!.path, count: postings.counts[e] })
    return out.sort(byReferences)
  }

  /**
   * The distinct names and qualified names definitions have, in order of first definition over
   * files in path order: what `def` compares a name matching nothing with (query/symbols/suggest.ts).
   * The same list until the table changes.
   */
  definedNames(): NameList {
    if (this.defined) return this.defined
    if (this.stored) return (this.defined = this.stored.definedNames())
    const seen = new Uint8Array(this.strings.size)
    const names: string[] = []
    for (const file of this.sortedFiles()) {
      const { defName, defQName } = file.cols
      for (let d = file.def0; d < file.def0 + file.defs; d++) {
        for (const id of [defName[d], defQName[d]]) {
          if (seen[id]) continue
          seen[id] = 1
          names.push(this.strings.get(id))
        }
      }
    }
    return (this.defined = nameListOf(names))
  }

  imports(path: string): FileImport[] {
    if (this.stored) return this.storedFile(this.stored, path)?.table.imports(path) ?? []
    const file = this.files.get(path)
    if (!file) return []
    const { cols } = file
    const out: FileImport[] = []
    for (let i = file.import0; i < file.import0 + file.imports; i++) {
      const target = cols.importTarget[i]
      out.push({
        module: this.strings.get(cols.importModule[i]),
        name: this.strings.get(cols.importName[i]),
        line: cols.importLine[i],
        relative: cols.importRelative[i] === 1,
        resolved: target < 0 ? null : { path: this.strings.get(target), isDir: cols.importIsDir[i] === 1 },
      })
    }
    return out
  }

  /**
   * The import rows keyed `key` (imports.ts's importKeys: an include of `linux/workqueue.h` is
   * keyed `workqueue`), one per importing file and target, in path order: every row that may
   * import a file so keyed, whether it resolved to it, elsewhere or nowhere (a row resolving to a
   * file has one of its pathKeys, see commit). A stored table answers from the key's bucket.
   */
  importsKeyed(key: string): KeyedImport[] {
    const { stored } = this
    if (stored) {
      return (stored.entries(key)?.imports ?? []).map(({ file, target }) => ({
        from: stored.pathOf(file),
        target: target === IMPORT_UNRESOLVED ? null : target === IMPORT_DIRECTORY ? DIRECTORY : stored.pathOf(target),
      }))
    }
    if (!this.importing) {
      this.importing = new Map()
      for (const file of this.sortedFiles()) {
        const { importKey1, importKey2, importTarget, importIsDir } = file.cols
        const seen = new Set<string>()
        for (let i = file.import0; i < file.import0 + file.imports; i++) {
          const target = importTarget[i] < 0 ? null : importIsDir[i] ? DIRECTORY : this.strings.get(importTarget[i])
          for (const k of [this.strings.get(importKey1[i]), this.strings.get(importKey2[i])]) {
            if (seen.has(`${k}\0${target}`)) continue
            seen.add(`${k}\0${target}`)
            let rows = this.importing.get(k)
            if (!rows) this.importing.set(k, (rows = []))
            rows.push({ from: file.path, target })
          }
        }
      }
    }
    return this.importing.get(key) ?? []
  }

  /**
   * Python files with a resolved `from m import *`: they re-export m's names without mentioning
   * them (a package's `__init__.py`), so exposure follows them though no posting names them.
   */
  starImporters(): readonly string[] {
    if (this.stored) return this.stored.starImporters()
    if (!this.starImporting) {
      const star = this.strings.find('*')
      this.starImporting = []
      if (star >= 0) {
        for (const file of this.files.values()) {
          if (!file.path.endsWith('.py')) continue
          const { importName, importTarget } = file.cols
          for (let i = file.import0; i < file.import0 + file.imports; i++) {
            if (importName[i] === star && importTarget[i] >= 0) {
              this.starImporting.push(file.path)
              break
            }
          }
        }
      }
    }
    return this.starImporting
  }

  paths(): PathIndex {
    if (!this.pathIndex) {
      this.pathIndex = new PathIndex()
      for (const path of this.files.keys()) this.pathIndex.add(path)
      for (const file of this.files.values()) this.pathIndex.declarePackageDirs(file.path, this.packageDirs(file))
    }
    return this.pathIndex
  }

  /** The package directories a packaging configuration (pyproject.toml, setup.cfg, setup.py) declares, as extraction stored them among its import rows. */
  private packageDirs(file: FileSymbols): string[] {
    if (!PACKAGE_CONFIGS.has(basename(file.path))) return []
    const out: string[] = []
    for (let i = file.import0; i < file.import0 + file.imports; i++) {
      const dir = declaredDir(this.strings.get(file.cols.importModule[i]))
      if (dir !== undefined) out.push(dir)
    }
    return out
  }

  /** Resolves the imports of changed files and of files a path addition or removal may affect. */
  commit(): TableChanges {
    const changed = new Set(this.changes.keys())
    const dirtyNames = new Map<number, number>()
    const watched = new Uint8Array(this.strings.size)
    // Every file changed (a cold build): every file's edges are resolved again whatever names
    // changed, and diffing a whole tree's definitions built a map entry per name for nothing.
    let kept = 0
    for (const path of changed) if (this.files.has(path)) kept++
    const everyFile = kept === this.files.size
    let pathsChanged = false
    for (const [path, before] of this.changes) {
      const after = this.files.get(path) ?? null
      if (!everyFile) diffDefinitions(before, after, dirtyNames)
      if (after) this.resolveImports(after, 0, after.imports)
      if ((before === null) !== (after === null)) {
        pathsChanged = true
        for (const key of pathKeys(path)) {
          const id = key ? this.strings.find(key) : -1
          if (id > 0) watched[id] = 1
        }
      }
    }
    this.changes.clear()
    const importsChanged = new Set<string>()
    // A packaging configuration changed: its package directories are import roots, so every Python import may now resolve elsewhere.
    if ([...changed].some((path) => PACKAGE_CONFIGS.has(basename(path)))) {
      for (const file of this.files.values()) {
        if (!changed.has(file.path) && file.language === 'python' && this.resolveImports(file, 0, file.imports)) importsChanged.add(file.path)
      }
    }
    if (pathsChanged) {
      for (const file of this.files.values()) {
        if (changed.has(file.path)) continue
        const { importKey1, importKey2 } = file.cols
        for (let i = file.import0; i < file.import0 + file.imports; i++) {
          if (!watched[importKey1[i]] && !watched[importKey2[i]]) continue
          // A package directory that gained or lost a file resolves the same but reaches other files.
          if (this.resolveImports(file, i - file.import0, 1) || file.cols.importIsDir[i]) importsChanged.add(file.path)
        }
      }
    }
    this.starImporting = undefined
    return { changed, dirtyNames, importsChanged }
  }

  /**
   * Canonical stored form: strings renumbered in order of first use over files in path order.
   */
  snapshot(): { data: SymbolsSnapshot; remap: Int32Array } {
    const { rows, remap } = this.rows()
    const { sigTextOf, ...data } = rows.columns(0, rows.paths.length)
    const strings = rows.strings.join(Uint32Array.from({ length: rows.strings.size }, (_, id) => id))
    return { data: { ...data, strings, sigText: sigTextOf(0, data.paths.length) }, remap }
  }

  /**
   * The table as an encoder reads it, a run of files at a time (see SnapshotRows), with
   * `snapshot()`'s numbering of strings; `remap` (table id → stored id, -1: unused) is complete
   * once every file's columns were taken.
   */
  rows(): { rows: SnapshotRows; remap: Int32Array } {
    const files = this.sortedFiles()
    const table = this.strings
    const remap = new Int32Array(table.size).fill(-1)
    // Stored id → table id: the stored strings are the table's, decoded when read (decoded into a
    // list first, Linux's 4.1 M would be ~250 MB of strings at the memory peak of its build).
    const tableIdOf = new Uint32Array(table.size)
    let numbered = 0
    const use = (id: number): number => {
      let mapped = remap[id]
      if (mapped < 0) {
        mapped = remap[id] = numbered++
        tableIdOf[mapped] = id
      }
      return mapped
    }
    const stored = (id: number): number => {
      if (!(id >= 0 && id < numbered)) throw new RangeError(`no stored string ${id} of ${numbered}`)
      return id
    }
    const strings: StringList = {
      get size() {
        return numbered
      },
      get: (id) => table.get(tableIdOf[stored(id)]),
      join: (ids) => table.join(Uint32Array.from(ids, (id) => tableIdOf[stored(id)])),
      fnv1a: (id) => table.fnv1a(tableIdOf[stored(id)]),
      joinBytes: (ids, headroom) => table.joinBytes(Uint32Array.from(ids, (id) => tableIdOf[stored(id)]), headroom),
    }
    use(0)
    const rows: SnapshotRows = {
      paths: files.map((file) => file.path),
      languages: files.map((file) => file.language),
      defCounts: Uint32Array.from(files, (file) => file.defs),
      refCounts: Uint32Array.from(files, (file) => file.refs),
      importCounts: Uint32Array.from(files, (file) => file.imports),
      columns: (from, to) => storedColumns(files.slice(from, to), use),
      strings,
      idLimit: table.size,
    }
    return { rows, remap }
  }

  static fromSnapshot(value: unknown, source = 'symbols snapshot'): SymbolTable {
    const data = checkSnapshot(value, source)
    return SymbolTable.build(data, data.strings.split(STRING_SEPARATOR))
  }

  /** A table over a checked snapshot's columns and its strings. */
  private static build(data: Omit<SymbolsSnapshot, 'strings'>, strings: string[]): SymbolTable {
    const files = data.languages.length
    const table = new SymbolTable(new StringTable(strings))
    const { sigText, ...columns } = data
    const cols: SymbolColumns = { ...columns, ...signatureColumns(sigText, data.sigEnds) }
    let d = 0
    let r = 0
    let m = 0
    for (let f = 0; f < files; f++) {
      const path = strings[data.paths[f]]!
      table.fileMap.set(path, new FileSymbols(path, data.paths[f], data.languages[f]!, cols, d, data.defCounts[f], r, data.refCounts[f], m, data.importCounts[f]))
      d += data.defCounts[f]
      r += data.refCounts[f]
      m += data.importCounts[f]
    }
    return table
  }

  /** Re-resolves imports [from, from + count) of `file`; returns whether any target changed. */
  private resolveImports(file: FileSymbols, from: number, count: number): boolean {
    const { cols } = file
    const index = this.paths()
    let changed = false
    for (let i = file.import0 + from; i < file.import0 + from + count; i++) {
      const target = resolveImport(index, {
        from: file.path,
        language: file.language,
        module: this.strings.get(cols.importModule[i]),
        name: this.strings.get(cols.importName[i]),
        relative: cols.importRelative[i] === 1,
      })
      const id = target ? this.strings.id(target.path) : -1
      const isDir = target?.isDir ? 1 : 0
      if (cols.importTarget[i] !== id || cols.importIsDir[i] !== isDir) {
        cols.importTarget[i] = id
        cols.importIsDir[i] = isDir
        changed = true
      }
    }
    return changed
  }

  /** Definition `d` (0-based within the file) of one of this table's files. */
  info(file: FileSymbols, d: number): SymbolInfo {
    const c = file.cols
    const i = file.def0 + d
    return {
      path: file.path,
      name: this.strings.get(c.defName[i]),
      qualifiedName: this.strings.get(c.defQName[i]),
      kind: SYMBOL_KINDS[c.defKind[i]]!,
      line: c.defLine[i],
      endLine: c.defEndLine[i],
      column: c.defColumn[i],
      signature: file.signature(d),
      scope: this.strings.get(c.defScope[i]),
    }
  }

  private infos(index: DefIndex, key: number): SymbolInfo[] {
    const [start, end] = index.range(key)
    const files = this.sortedFiles()
    const out: SymbolInfo[] = []
    for (let e = start; e < end; e++) out.push(this.info(files[index.entryFile[e]]!, index.entryDef[e]))
    return out
  }

  /** Name → (file, references summed over the file's rows), over `sortedFiles()`. */
  private buildPostings(): NonNullable<SymbolTable['postings']> {
    if (this.postings) return this.postings
    const keys = this.strings.size
    const files = this.sortedFiles()
    const starts = new Uint32Array(keys + 1)
    const last = new Int32Array(keys).fill(-1)
    files.forEach((file, f) => {
      const { refName } = file.cols
      for (let i = file.ref0; i < file.ref0 + file.refs; i++) {
        const name = refName[i]
        if (last[name] !== f) {
          last[name] = f
          starts[name + 1]++
        }
      }
    })
    for (let k = 0; k < keys; k++) starts[k + 1] += starts[k]
    const postingFiles = new Uint32Array(starts[keys])
    const counts = new Uint32Array(starts[keys])
    const fill = starts.slice(0, keys)
    last.fill(-1)
    files.forEach((file, f) => {
      const { refName, refCount } = file.cols
      for (let i = file.ref0; i < file.ref0 + file.refs; i++) {
        const name = refName[i]
        if (last[name] !== f) {
          last[name] = f
          postingFiles[fill[name]++] = f
        }
        counts[fill[name] - 1] += refCount[i]
      }
    })
    this.postings = { starts, files: postingFiles, counts }
    return this.postings
  }

  private invalidate(): void {
    this.starImporting = undefined
    this.importing = undefined
    this.defined = undefined
    this.ordered = undefined
    this.orderOf = undefined
    this.names = undefined
    this.qualifiedNames = undefined
    this.postings = undefined
  }
}

/** The rows of `files` copied into columns of their own, their string ids mapped by `use` (SymbolTable.rows). */
function storedColumns(files: readonly FileSymbols[], use: (id: number) => number): SnapshotColumns {
  let defs = 0
  let refs = 0
  let imports = 0
  for (const file of files) {
    defs += file.defs
    refs += file.refs
    imports += file.imports
  }
  const out = emptyColumns(defs, refs, imports)
  // Each file's signatures as one string, and each definition's end in UTF-16 code units as a snapshot counts them.
  const sigParts: string[] = []
  const paths = new Uint32Array(files.length)
  let d = 0
  let r = 0
  let m = 0
  let sigLength = 0
  files.forEach((file, f) => {
    const c = file.cols
    paths[f] = use(file.pathId)
    for (let i = file.def0; i < file.def0 + file.defs; i++, d++) {
      out.defName[d] = use(c.defName[i])
      out.defQName[d] = use(c.defQName[i])
      out.defScope[d] = use(c.defScope[i])
      out.defKind[d] = c.defKind[i]
      out.defLine[d] = c.defLine[i]
      out.defEndLine[d] = c.defEndLine[i]
      out.defColumn[d] = c.defColumn[i]
    }
    const bytes = file.signatureBytes()
    const text = utf8.decode(bytes)
    sigParts.push(text)
    const first = d - file.defs
    if (text.length === bytes.length) {
      // ASCII: a byte is a code unit.
      const sigStart = file.def0 === 0 ? 0 : c.sigEnds[file.def0 - 1]
      for (let k = 0; k < file.defs; k++) out.sigEnds[first + k] = sigLength + c.sigEnds[file.def0 + k] - sigStart
    } else {
      let end = sigLength
      for (let k = 0; k < file.defs; k++) out.sigEnds[first + k] = end += file.signature(k).length
    }
    sigLength += text.length
    for (let i = file.ref0; i < file.ref0 + file.refs; i++, r++) {
      out.refName[r] = use(c.refName[i])
      out.refFrom[r] = c.refFrom[i]
      out.refKind[r] = c.refKind[i]
      out.refCount[r] = c.refCount[i]
    }
    for (let i = file.import0; i < file.import0 + file.imports; i++, m++) {
      out.importModule[m] = use(c.importModule[i])
      out.importName[m] = use(c.importName[i])
      out.importLine[m] = c.importLine[i]
      out.importRelative[m] = c.importRelative[i]
      out.importKey1[m] = use(c.importKey1[i])
      out.importKey2[m] = use(c.importKey2[i])
      out.importTarget[m] = c.importTarget[i] < 0 ? -1 : use(c.importTarget[i])
      out.importIsDir[m] = c.importIsDir[i]
    }
  })
  return {
    ...out,
    version: SYMBOLS_SNAPSHOT_VERSION,
    sigTextOf: (from, to) => sigParts.slice(from, to).join(''),
    paths,
    languages: files.map((file) => file.language),
    defCounts: Uint32Array.from(files, (file) => file.defs),
    refCounts: Uint32Array.from(files, (file) => file.refs),
    importCounts: Uint32Array.from(files, (file) => file.imports),
  }
}

const utf8 = new TextDecoder()

/** A snapshot's signatures (`sigEnds` counting UTF-16 code units) as SymbolColumns hold them: UTF-8, `sigEnds` counting bytes. */
function signatureColumns(sigText: string, sigEnds: Uint32Array): Pick<SymbolColumns, 'signatures' | 'sigEnds'> {
  const sigBytes = Buffer.from(sigText, 'utf8')
  const signatures = new Signatures(sigBytes)
  if (sigBytes.length === sigText.length) return { signatures, sigEnds }
  const byteEnds = new Uint32Array(sigEnds.length)
  for (let d = 0, end = 0; d < sigEnds.length; d++) byteEnds[d] = end += Buffer.byteLength(sigText.slice(d === 0 ? 0 : sigEnds[d - 1], sigEnds[d]), 'utf8')
  return { signatures, sigEnds: byteEnds }
}

/** The first definition of each qualified name per file, as the name indexes keep (DefIndex.build). */
function firstPerFile(found: KeyedDefinition[]): SymbolInfo[] {
  const seen = new Set<string>()
  const out: SymbolInfo[] = []
  for (const { info, file } of found) {
    const key = `${file}\u0000${info.qualifiedName}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push(info)
  }
  return out
}

/** Records in `dirtyNames` the names whose (file, qualified name) pairs differ between two versions of a file. */
function diffDefinitions(before: FileSymbols | null, after: FileSymbols | null, dirtyNames: Map<number, number>): void {
  const pairs = (file: FileSymbols | null): Map<number, Set<number>> => {
    const out = new Map<number, Set<number>>()
    if (!file) return out
    const { defName, defQName } = file.cols
    for (let d = file.def0; d < file.def0 + file.defs; d++) {
      let set = out.get(defName[d])
      if (!set) out.set(defName[d], (set = new Set()))
      set.add(defQName[d])
    }
    return out
  }
  const old = pairs(before)
  const now = pairs(after)
  for (const [name, qnames] of old) {
    const current = now.get(name)
    if (current && current.size === qnames.size && [...qnames].every((q) => current.has(q))) continue
    dirtyNames.set(name, (dirtyNames.get(name) ?? 0) - (current ? 0 : 1))
  }
  for (const name of now.keys()) if (!old.has(name)) dirtyNames.set(name, (dirtyNames.get(name) ?? 0) + 1)
}

/**
 * Reads and checks every block of a stored table as loading it whole would, one block at a time
 * (`verify`: loading Linux's table whole, with the graph over it, took 2.15 GB), and what a lookup
 * relies on besides: each run holds the files the directory and the paths block place in it. Returns
 * each file's number of graph nodes, in path order: its own and one per distinct qualified name of
 * its definitions (NodeNumbering's), for the stored graph to be checked against.
 */
export function checkStoredTable(stored: SymbolsFile): Uint32Array {
  const source = stored.path
  stored.checkBlocks()
  const nodes = new Uint32Array(stored.fileCount)
  let placed = 0
  for (let r = 0; r < stored.runCount; r++) {
    const run = checkSnapshot(stored.run(r), source) as SymbolsRun
    const local = run.strings.split(STRING_SEPARATOR)
    placed = placeRunStrings(run, local.length, placed, source)
    const [from, to] = stored.runFiles(r)
    if (run.languages.length !== to - from) throw new CorruptFileError(source, `run ${r} holds ${run.languages.length} files where the directory places ${to - from}`)
    const names = new Set<number>()
    for (let f = 0, d = 0; f < to - from; f++) {
      if (local[run.paths[f]!] !== stored.pathOf(from + f)) throw new CorruptFileError(source, `run ${r} lacks ${stored.pathOf(from + f)}`)
      names.clear()
      for (const end = d + run.defCounts[f]!; d < end; d++) names.add(run.ids[run.defQName[d]!]!)
      nodes[from + f] = 1 + names.size
    }
  }
  if (placed !== stored.stringCount) throw new CorruptFileError(source, 'the runs of the symbol table leave strings unplaced')
  return nodes
}

/** `value` as a symbols snapshot whose columns agree in size and refer only to its strings; CorruptFileError otherwise. */
function checkSnapshot(value: unknown, source: string): SymbolsSnapshot {
  const fail = (reason: string): never => {
    throw new CorruptFileError(source, reason)
  }
  const data = value as SymbolsSnapshot
  if (typeof data !== 'object' || data === null) fail('not a symbols snapshot')
  if (data.version !== SYMBOLS_SNAPSHOT_VERSION) fail(`unknown symbols snapshot version ${String(data.version)}`)
  if (typeof data.strings !== 'string' || typeof data.sigText !== 'string' || !Array.isArray(data.languages)) fail('symbols snapshot lacks its strings')
  // Counted, not split: the caller splits them once.
  let strings = 1
  for (let at = data.strings.indexOf(STRING_SEPARATOR); at >= 0; at = data.strings.indexOf(STRING_SEPARATOR, at + 1)) strings++
  const files = data.languages.length
  const defs = checkTotal(data.defCounts, files, fail)
  const refs = checkTotal(data.refCounts, files, fail)
  const imports = checkTotal(data.importCounts, files, fail)
  const shape = emptyColumns(defs, refs, imports)
  for (const key of Object.keys(shape) as Array<keyof typeof shape>) {
    const column = data[key]
    if (!(column instanceof shape[key].constructor) || column.length !== shape[key].length) fail(`symbols column ${key} is malformed`)
  }
  checkIds(strings, fail, data.paths, data.defName, data.defQName, data.defScope, data.refName, data.importModule, data.importName, data.importKey1, data.importKey2, data.importTarget)
  if (data.paths.length !== files || (defs > 0 && data.sigEnds[defs - 1] !== data.sigText.length)) fail('symbols snapshot tables disagree in size')
  return data
}

function checkTotal(counts: unknown, files: number, fail: (reason: string) => never): number {
  if (!(counts instanceof Uint32Array) || counts.length !== files) fail('symbols snapshot file counts are malformed')
  let total = 0
  for (const count of counts as Uint32Array) total += count
  return total
}

function checkIds(size: number, fail: (reason: string) => never, ...columns: Array<Uint32Array | Int32Array>): void {
  for (const column of columns) {
    for (let i = 0; i < column.length; i++) if (column[i] >= size) fail('symbols snapshot refers to a string it does not hold')
  }
}
