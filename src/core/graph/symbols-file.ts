/**
 * The stored symbol table (`symbols` record, version 5), laid out for a cold query to open rather
 * than decode, each fact stored once: `def kmalloc` reads the directory, the hash bucket of the
 * names hashing with `kmalloc`, the path list and the run of files holding its definitions — tens
 * of kilobytes of a file of tens of megabytes. `refs` reads the bucket and the runs of the files
 * mentioning the name; a build (patching the table) joins every run.
 *
 * A block record (block-file.ts); its directory's meta is { files, symbols, strings, runs,
 * buckets, runStarts } and its blocks are:
 *   0          the paths in path order, NUL-joined, and the Python files re-exporting with a
 *              resolved `from m import *` (file numbers: a star import exposes names it never spells)
 *   1          the distinct defined names and qualified names, NUL-joined in order of first
 *              definition: what a name that matched nothing is compared with for suggestions
 *   2 + r      run r: files [runStarts[r], runStarts[r + 1]) as a snapshot of their own, spelling
 *              out only the strings they use, with their ids in the whole table (table-slices.ts);
 *              a run closes at ~2,048 rows
 *   2 + runs + b  hash bucket b: its names sorted, per name the definitions named or qualified so
 *              (file, definition within the file), the files referencing it with counts, and the
 *              import rows keyed by it (imports.ts's importKeys: a C include of `linux/workqueue.h`
 *              is keyed `workqueue`) as (importing file, file it resolved to: IMPORT_UNRESOLVED,
 *              IMPORT_DIRECTORY), each pair once — so a query follows imports backwards (exposure,
 *              a C header's includers) without reading the runs of every file that may import
 *
 * Buckets rather than one block per name: a block per name would make the offset table as large
 * as the names; a few hundred rows per bucket keep the directory small and a read at a few pages.
 * Runs of files rather than one block per file: a file's few rows compress poorly alone.
 * (4: no importers in the buckets. 3: the whole table as one more block, definitions spelled out again in the buckets, nothing
 * compressed: 117 MB on Linux 10k. 2: one msgpack snapshot, decoded whole by every query.)
 */
import { CorruptFileError } from '../errors.js'
import { BlockFile, blockFileParts, BlockSink, packedUtf8, STRING_HEADROOM } from './block-file.js'
import type { ScratchFile } from '../store/index.js'
import { STRING_SEPARATOR, utf16Fnv1a } from './strings.js'
import { fileStarts, SliceScratch, sliceSnapshot, snapshotRows } from './table-slices.js'
import type { SnapshotColumns, SnapshotRows, SymbolInfo, SymbolsSnapshot } from './symbol-table.js'
import { lowerBound } from '../sorted.js'
import { joinedNameList, type NameList } from './name-list.js'

export const SYMBOLS_KIND = 'symbols'
export const SYMBOLS_VERSION = 5

/** One hash bucket: its names sorted (NUL-joined); name k's definitions are [defStarts[k], defStarts[k + 1]) of defFile/defIndex, its referencing files and importing files likewise. */
interface SymbolBucket {
  keys: string
  defStarts: Uint32Array
  defFile: Uint32Array
  defIndex: Uint32Array
  refStarts: Uint32Array
  refFile: Uint32Array
  refCount: Uint32Array
  importStarts: Uint32Array
  importFile: Uint32Array
  importTarget: Int32Array
}

interface Meta {
  files: number
  symbols: number
  /** Distinct strings of the whole table (see table-slices.ts). */
  strings: number
  runs: number
  buckets: number
  runStarts: Uint32Array
}

/** A definition found under a key, with how it matched and where it sits in path order. */
export interface KeyedDefinition {
  info: SymbolInfo
  file: number
  def: number
  /** Its name is the key. */
  byName: boolean
  /** Its qualified name is the key. */
  byQualifiedName: boolean
}

/** Where a key's definitions, referencing files and importing files are: file numbers in path order. */
export interface KeyEntries {
  defs: Array<{ file: number; def: number }>
  refs: Array<{ file: number; count: number }>
  /** Import rows keyed by the key: (importing file, file number it resolved to or IMPORT_UNRESOLVED or IMPORT_DIRECTORY), each pair once. */
  imports: Array<{ file: number; target: number }>
}

/** An import row's target in a bucket: none found, or a directory (whose path the bucket does not spell). */
export const IMPORT_UNRESOLVED = -1
export const IMPORT_DIRECTORY = -2

const PATHS_BLOCK = 0
const NAMES_BLOCK = 1
const FIRST_RUN = 2
/** Rows (definitions under a key, referencing files) aimed at per bucket. */
const ROWS_PER_BUCKET = 512
/** Rows (definitions, references, imports) after which a run of files closes. */
const ROWS_PER_RUN = 2048

/** FNV-1a over UTF-16 code units: stable across runs and platforms, as the layout must be. */
export function bucketOf(key: string, buckets: number): number {
  return utf16Fnv1a(key) % buckets
}

/**
 * The record file of a table (SymbolTable.rows) or of a canonical snapshot (SymbolTable.snapshot),
 * in parts written one after the other: joined into one buffer, a 10k-file table would be copied
 * once more at the peak of a build's memory. The table's rows are read a run of files at a time,
 * twice (first what the blocks before the runs need and how many rows the buckets will hold, then
 * the runs and the buckets' rows), never copied whole; rows are sorted into buckets with typed
 * arrays, and only one bucket's or run's objects exist at a time. `spool`: the blocks go there as
 * they are packed rather than stay in memory (see BlockSink); the parts then read them back, so
 * the spool must stay open until they are written.
 */
export async function encodeSymbolsFile(given: SymbolsSnapshot | SnapshotRows, opts: { spool?: ScratchFile } = {}): Promise<Iterable<Uint8Array>> {
  const table = 'columns' in given ? given : snapshotRows(given)
  const { strings } = table
  const files = table.paths.length
  const starts = fileStarts(table)
  const defs = starts.def[files]
  const fileOfDef = new Uint32Array(defs)
  for (let f = 0; f < files; f++) fileOfDef.fill(f, starts.def[f], starts.def[f + 1])
  // Runs of files in path order, each closing once it holds ROWS_PER_RUN rows; at least one, for an empty table's columns.
  const runStarts = [0]
  for (let f = 0, rows = 0; f < files; f++) {
    rows += table.defCounts[f] + table.refCounts[f] + table.importCounts[f]
    if (rows >= ROWS_PER_RUN && f + 1 < files) {
      runStarts.push(f + 1)
      rows = 0
    }
  }
  runStarts.push(files)
  const runs = runStarts.length - 1
  const eachRun = (visit: (cols: SnapshotColumns, run: number) => void): void => {
    for (let r = 0; r < runs; r++) visit(table.columns(runStarts[r]!, runStarts[r + 1]!), r)
  }

  const survey = surveyRows(table, eachRun)
  const blocks = new BlockSink(opts.spool)
  await blocks.add({ paths: table.paths.join(STRING_SEPARATOR), stars: survey.stars })
  if (strings.joinBytes) await blocks.addPacked(packedUtf8(strings.joinBytes(survey.names, STRING_HEADROOM)))
  else await blocks.add(strings.join(survey.names))
  // Definition entries: each definition under its name, and under its qualified name when it differs.
  const entryDef = new Uint32Array(survey.entries)
  const entryKey = new Uint32Array(survey.entries)
  // Postings: (name, file, references summed over the file's rows), in file order.
  const postName = new Uint32Array(survey.posts)
  const postFile = new Uint32Array(survey.posts)
  const postCount = new Uint32Array(survey.posts)
  const slot = new Int32Array(table.idLimit).fill(-1)
  const imports = new ImportRows(files)
  const scratch = new SliceScratch(table.idLimit)
  let e = 0
  let p = 0
  for (let run = 0; run < runs; run++) {
    const from = runStarts[run]!
    const cols = table.columns(from, runStarts[run + 1]!)
    const local = fileStarts(cols)
    for (let d = 0; d < cols.defName.length; d++) {
      const def = starts.def[from] + d
      entryDef[e] = def
      entryKey[e++] = cols.defName[d]
      if (cols.defQName[d] !== cols.defName[d]) {
        entryDef[e] = def
        entryKey[e++] = cols.defQName[d]
      }
    }
    for (let f = 0; f < cols.paths.length; f++) {
      const first = p
      for (let r = local.ref[f]; r < local.ref[f + 1]; r++) {
        const name = cols.refName[r]
        if (slot[name] < first) {
          slot[name] = p
          postName[p] = name
          postFile[p++] = from + f
        }
        postCount[slot[name]] += cols.refCount[r]
      }
      imports.addFile(cols, local, f, from + f)
    }
    await blocks.add(sliceSnapshot(cols, strings, local, 0, cols.paths.length, run, scratch))
  }
  const importers = imports.keyed(strings.size)
  const buckets = Math.max(1, Math.ceil((survey.entries + survey.posts + importers.key.length) / ROWS_PER_BUCKET))
  const bucketOfString = new Uint32Array(strings.size)
  for (let id = 0; id < strings.size; id++) bucketOfString[id] = (strings.fnv1a ? strings.fnv1a(id) : utf16Fnv1a(strings.get(id))) % buckets
  const defsByBucket = groupBy(entryKey, bucketOfString, buckets)
  const postsByBucket = groupBy(postName, bucketOfString, buckets)
  const importsByBucket = groupBy(importers.key, bucketOfString, buckets)

  // A key's place among its bucket's keys while the bucket is built (-1 otherwise). Typed rows and
  // this one scratch instead of an object of arrays per key: with those, the main thread's heap
  // saw-toothed between ~130 and ~360 MB while Linux's symbols.mpk was encoded, at the build's peak.
  const placeOf = new Int32Array(strings.size).fill(-1)
  const bucketBlock = (b: number): SymbolBucket => {
    const defs = { from: defsByBucket.starts[b], to: defsByBucket.starts[b + 1], order: defsByBucket.order }
    const posts = { from: postsByBucket.starts[b], to: postsByBucket.starts[b + 1], order: postsByBucket.order }
    const imported = { from: importsByBucket.starts[b], to: importsByBucket.starts[b + 1], order: importsByBucket.order }
    const ids: number[] = []
    const meet = (key: number): void => {
      if (placeOf[key] < 0) placeOf[key] = ids.push(key) - 1
    }
    for (let i = defs.from; i < defs.to; i++) meet(entryKey[defs.order[i]])
    for (let i = posts.from; i < posts.to; i++) meet(postName[posts.order[i]])
    for (let i = imported.from; i < imported.to; i++) meet(importers.key[imported.order[i]])
    const texts = ids.map((id) => strings.get(id))
    // Distinct ids are distinct strings, so the order is total.
    const sorted = Uint32Array.from(ids.keys()).sort((x, y) => (texts[x]! < texts[y]! ? -1 : 1))
    sorted.forEach((place, k) => (placeOf[ids[place]!] = k))
    const keyCount = ids.length
    const bucket: SymbolBucket = {
      keys: Array.from(sorted, (place) => texts[place]!).join(STRING_SEPARATOR),
      defStarts: new Uint32Array(keyCount + 1),
      defFile: new Uint32Array(defs.to - defs.from),
      defIndex: new Uint32Array(defs.to - defs.from),
      refStarts: new Uint32Array(keyCount + 1),
      refFile: new Uint32Array(posts.to - posts.from),
      refCount: new Uint32Array(posts.to - posts.from),
      importStarts: new Uint32Array(keyCount + 1),
      importFile: new Uint32Array(imported.to - imported.from),
      importTarget: new Int32Array(imported.to - imported.from),
    }
    // Each key's rows in the order its group lists them, keys in text order: count, sum, then place.
    for (let i = defs.from; i < defs.to; i++) bucket.defStarts[placeOf[entryKey[defs.order[i]]] + 1]++
    for (let i = posts.from; i < posts.to; i++) bucket.refStarts[placeOf[postName[posts.order[i]]] + 1]++
    for (let i = imported.from; i < imported.to; i++) bucket.importStarts[placeOf[importers.key[imported.order[i]]] + 1]++
    for (let k = 0; k < keyCount; k++) {
      bucket.defStarts[k + 1] += bucket.defStarts[k]
      bucket.refStarts[k + 1] += bucket.refStarts[k]
      bucket.importStarts[k + 1] += bucket.importStarts[k]
    }
    let next = bucket.defStarts.slice(0, keyCount)
    for (let i = defs.from; i < defs.to; i++) {
      const entry = defs.order[i]
      const def = entryDef[entry]
      const d = next[placeOf[entryKey[entry]]]++
      bucket.defFile[d] = fileOfDef[def]
      bucket.defIndex[d] = def - starts.def[fileOfDef[def]]
    }
    next = bucket.refStarts.slice(0, keyCount)
    for (let i = posts.from; i < posts.to; i++) {
      const post = posts.order[i]
      const r = next[placeOf[postName[post]]]++
      bucket.refFile[r] = postFile[post]
      bucket.refCount[r] = postCount[post]
    }
    next = bucket.importStarts.slice(0, keyCount)
    for (let i = imported.from; i < imported.to; i++) {
      const row = imported.order[i]
      const m = next[placeOf[importers.key[row]]]++
      bucket.importFile[m] = importers.file[row]
      bucket.importTarget[m] = importers.target[row]
    }
    for (const id of ids) placeOf[id] = -1
    return bucket
  }

  for (let b = 0; b < buckets; b++) await blocks.add(bucketBlock(b))
  const meta: Meta = { files, symbols: defs, strings: strings.size, runs, buckets, runStarts: Uint32Array.from(runStarts) }
  return blockFileParts(SYMBOLS_KIND, SYMBOLS_VERSION, meta, blocks)
}

/**
 * The first reading of a table's runs: it numbers every string (see SnapshotRows), counts the
 * definition entries and postings the second fills (typed arrays of their size, where grown ones
 * would hold up to twice their rows at the memory peak), and gathers what the blocks before the
 * runs hold: the distinct names and qualified names of definitions in order of first definition
 * (as SymbolTable.definedNames lists them), and the Python files with a resolved `from m import *`
 * (see SymbolTable.starImporters).
 */
function surveyRows(table: SnapshotRows, eachRun: (visit: (cols: SnapshotColumns, run: number) => void) => void): { entries: number; posts: number; names: Uint32Array; stars: Uint32Array } {
  const { strings } = table
  const named = new Uint8Array(table.idLimit)
  const lastFile = new Int32Array(table.idLimit).fill(-1)
  // Ids, spelled out once joined: Linux's 3.8 M names as strings of their own were ~180 MB of the heap.
  const names = new Uint32Array(table.idLimit)
  let nameCount = 0
  const stars: number[] = []
  let entries = 0
  let posts = 0
  let file = 0
  eachRun((cols) => {
    const local = fileStarts(cols)
    for (let d = 0; d < cols.defName.length; d++) {
      entries += cols.defQName[d] !== cols.defName[d] ? 2 : 1
      for (const id of [cols.defName[d], cols.defQName[d]]) {
        if (named[id]) continue
        named[id] = 1
        names[nameCount++] = id
      }
    }
    for (let f = 0; f < cols.paths.length; f++, file++) {
      for (let r = local.ref[f]; r < local.ref[f + 1]; r++) {
        if (lastFile[cols.refName[r]] !== file) {
          lastFile[cols.refName[r]] = file
          posts++
        }
      }
      if (!strings.get(cols.paths[f]).endsWith('.py')) continue
      for (let m = local.imp[f]; m < local.imp[f + 1]; m++) {
        if (cols.importTarget[m] >= 0 && strings.get(cols.importName[m]) === '*') {
          stars.push(file)
          break
        }
      }
    }
  })
  return { entries, posts, names: names.subarray(0, nameCount), stars: Uint32Array.from(stars) }
}

/**
 * (key, file, target) for each distinct key and target of each file's import rows, in file order
 * (see SymbolTable.importsKeyed), gathered a run of files at a time: a target is a file number,
 * known only once every path has its string id, so rows are kept by target string first.
 */
class ImportRows {
  private readonly key: number[] = []
  private readonly file: number[] = []
  /** The target's string id, IMPORT_UNRESOLVED or IMPORT_DIRECTORY. */
  private readonly target: number[] = []
  private readonly pathIds: Uint32Array

  constructor(files: number) {
    this.pathIds = new Uint32Array(files)
  }

  /** The import rows of file `f` of `cols`, file `file` of the table. */
  addFile(cols: SnapshotColumns, local: ReturnType<typeof fileStarts>, f: number, file: number): void {
    this.pathIds[file] = cols.paths[f]
    const seen = new Set<string>()
    for (let m = local.imp[f]; m < local.imp[f + 1]; m++) {
      const to = cols.importTarget[m] < 0 ? IMPORT_UNRESOLVED : cols.importIsDir[m] ? IMPORT_DIRECTORY : cols.importTarget[m]
      for (const k of [cols.importKey1[m], cols.importKey2[m]]) {
        if (seen.has(`${k} ${to}`)) continue
        seen.add(`${k} ${to}`)
        this.key.push(k)
        this.file.push(file)
        this.target.push(to)
      }
    }
  }

  /**
   * The rows with their targets as file numbers (a resolved path the table lacks: IMPORT_UNRESOLVED),
   * each (key, target) pair once per file again: distinct targets may be one file number.
   */
  keyed(stringCount: number): { key: Uint32Array; file: Uint32Array; target: Int32Array } {
    const fileOfPath = new Int32Array(stringCount).fill(IMPORT_UNRESOLVED)
    this.pathIds.forEach((id, f) => (fileOfPath[id] = f))
    const key: number[] = []
    const file: number[] = []
    const target: number[] = []
    let seen = new Set<string>()
    for (let i = 0; i < this.key.length; i++) {
      if (i > 0 && this.file[i] !== this.file[i - 1]) seen = new Set()
      const to = this.target[i]! < 0 ? this.target[i]! : fileOfPath[this.target[i]!]!
      const pair = `${this.key[i]} ${to}`
      if (seen.has(pair)) continue
      seen.add(pair)
      key.push(this.key[i]!)
      file.push(this.file[i]!)
      target.push(to)
    }
    return { key: Uint32Array.from(key), file: Uint32Array.from(file), target: Int32Array.from(target) }
  }
}

/** `order` lists the indices of `keys` grouped by the bucket of each key, stable; bucket b's are [starts[b], starts[b + 1]). */
function groupBy(keys: Uint32Array, bucketOfKey: Uint32Array, buckets: number): { order: Uint32Array; starts: Uint32Array } {
  const starts = new Uint32Array(buckets + 1)
  for (const key of keys) starts[bucketOfKey[key] + 1]++
  for (let b = 0; b < buckets; b++) starts[b + 1] += starts[b]
  const fill = starts.slice(0, buckets)
  const order = new Uint32Array(keys.length)
  keys.forEach((key, i) => (order[fill[bucketOfKey[key]]++] = i))
  return { order, starts }
}

/** A stored symbol table opened for reading by block (see the layout above). */
export class SymbolsFile {
  private paths: string[] | undefined
  private stars: string[] | undefined
  private readonly buckets = new Map<number, { keys: string[]; bucket: SymbolBucket }>()

  private constructor(private readonly file: BlockFile, private readonly meta: Meta) {}

  get path(): string {
    return this.file.path
  }

  get fileCount(): number {
    return this.meta.files
  }

  get symbolCount(): number {
    return this.meta.symbols
  }

  get runCount(): number {
    return this.meta.runs
  }

  get stringCount(): number {
    return this.meta.strings
  }

  /** Checks the record's header and the directory; throws CorruptFileError (missing, damaged, another version). */
  static open(path: string): SymbolsFile {
    const file = BlockFile.open(path, SYMBOLS_KIND, SYMBOLS_VERSION)
    const meta = file.meta as Meta
    const { runStarts } = meta ?? {}
    const shaped =
      typeof meta === 'object' && meta !== null && Number.isInteger(meta.files) && Number.isInteger(meta.symbols) && Number.isInteger(meta.strings) && Number.isInteger(meta.runs) && meta.runs >= 1 && Number.isInteger(meta.buckets) && meta.buckets >= 1 &&
      runStarts instanceof Uint32Array && runStarts.length === meta.runs + 1 && runStarts[0] === 0 && runStarts[meta.runs] === meta.files && runStarts.every((start, r) => r === 0 || start >= runStarts[r - 1]!)
    if (!shaped || file.blockCount !== FIRST_RUN + meta.runs + meta.buckets) throw new CorruptFileError(path, 'malformed block directory')
    return new SymbolsFile(file, meta)
  }

  /** Run `r`'s files as a snapshot (SymbolTable.fromSnapshot checks it). */
  run(r: number): unknown {
    return this.file.read(FIRST_RUN + r)
  }

  /** The files [from, to) (path order) of run `r`. */
  runFiles(r: number): [number, number] {
    return [this.meta.runStarts[r]!, this.meta.runStarts[r + 1]!]
  }

  /**
   * Reads and checks every block but the runs (SymbolTable's checkStoredTable reads those): the
   * paths, the names and each bucket in turn, none of them kept.
   */
  checkBlocks(): void {
    this.sortedPaths()
    this.joinedNames()
    for (let b = 0; b < this.meta.buckets; b++) this.readBucket(b)
  }

  /** The run holding file `file` (path order) and the file's position within it. */
  runOf(file: number): { run: number; at: number } {
    const starts = this.meta.runStarts
    let lo = 0
    let hi = this.meta.runs - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (starts[mid]! <= file) lo = mid
      else hi = mid - 1
    }
    return { run: lo, at: file - starts[lo]! }
  }

  /** The number of the file at `path` in path order, -1 when the table does not hold it. */
  fileIndex(path: string): number {
    const paths = this.sortedPaths()
    const at = lowerBound(paths, path)
    return paths[at] === path ? at : -1
  }

  /** Every path, in path order (file numbers index it). */
  allPaths(): readonly string[] {
    return this.sortedPaths()
  }

  /** The path of file number `file`. */
  pathOf(file: number): string {
    return this.sortedPaths()[file]!
  }

  /** Python files with a resolved `from m import *`. */
  starImporters(): string[] {
    this.sortedPaths()
    return this.stars!
  }

  /** The distinct defined names and qualified names (see SymbolTable.definedNames). */
  definedNames(): NameList {
    return joinedNameList(this.joinedNames())
  }

  private joinedNames(): string {
    const joined = this.file.read(NAMES_BLOCK)
    if (typeof joined !== 'string') throw new CorruptFileError(this.path, 'malformed name block')
    return joined
  }

  /** The definitions, referencing files and importing files of `key`, from its bucket; undefined when it has none. */
  entries(key: string): KeyEntries | undefined {
    const b = bucketOf(key, this.meta.buckets)
    let found = this.buckets.get(b)
    if (!found) this.buckets.set(b, (found = this.readBucket(b)))
    const k = lowerBound(found.keys, key)
    if (found.keys[k] !== key) return undefined
    const { bucket } = found
    const defs: KeyEntries['defs'] = []
    for (let i = bucket.defStarts[k]!; i < bucket.defStarts[k + 1]!; i++) defs.push({ file: bucket.defFile[i]!, def: bucket.defIndex[i]! })
    const refs: KeyEntries['refs'] = []
    for (let i = bucket.refStarts[k]!; i < bucket.refStarts[k + 1]!; i++) refs.push({ file: bucket.refFile[i]!, count: bucket.refCount[i]! })
    const imports: KeyEntries['imports'] = []
    for (let i = bucket.importStarts[k]!; i < bucket.importStarts[k + 1]!; i++) imports.push({ file: bucket.importFile[i]!, target: bucket.importTarget[i]! })
    return { defs, refs, imports }
  }

  /** Bucket `b`, read and checked. */
  private readBucket(b: number): { keys: string[]; bucket: SymbolBucket } {
    const bucket = this.file.read(FIRST_RUN + this.meta.runs + b) as SymbolBucket
    const keys = typeof bucket?.keys === 'string' ? (bucket.keys === '' ? [] : bucket.keys.split(STRING_SEPARATOR)) : undefined
    const columns = [bucket?.defStarts, bucket?.defFile, bucket?.defIndex, bucket?.refStarts, bucket?.refFile, bucket?.refCount, bucket?.importStarts, bucket?.importFile]
    if (!keys || !columns.every((column) => column instanceof Uint32Array) || !(bucket.importTarget instanceof Int32Array) || bucket.defStarts.length !== keys.length + 1 || bucket.refStarts.length !== keys.length + 1 ||
      bucket.importStarts.length !== keys.length + 1 || bucket.importStarts[keys.length] !== bucket.importFile.length || bucket.importFile.length !== bucket.importTarget.length ||
      bucket.importTarget.some((target) => target >= this.meta.files || target < IMPORT_DIRECTORY) ||
      bucket.defStarts[keys.length] !== bucket.defFile.length || bucket.defFile.length !== bucket.defIndex.length ||
      bucket.refStarts[keys.length] !== bucket.refFile.length || bucket.refFile.length !== bucket.refCount.length ||
      [bucket.defFile, bucket.refFile, bucket.importFile].some((files) => files.some((file) => file >= this.meta.files))) {
      throw new CorruptFileError(this.path, `malformed symbol bucket ${b}`)
    }
    return { keys, bucket }
  }

  private sortedPaths(): string[] {
    if (!this.paths) {
      const block = this.file.read(PATHS_BLOCK) as { paths: unknown; stars: unknown }
      if (typeof block?.paths !== 'string' || !(block.stars instanceof Uint32Array)) throw new CorruptFileError(this.path, 'malformed path block')
      const paths = block.paths === '' ? [] : block.paths.split(STRING_SEPARATOR)
      if (paths.length !== this.meta.files || block.stars.some((f) => f >= paths.length)) throw new CorruptFileError(this.path, 'path block disagrees with the directory')
      this.stars = Array.from(block.stars, (f) => paths[f]!)
      this.paths = paths
    }
    return this.paths
  }
}
