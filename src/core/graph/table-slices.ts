/**
 * A symbols snapshot cut into runs of files, each spelling out only the strings its files use, and
 * joined back. The stored table (symbols-file.ts) keeps each run as a block: a lookup decodes the
 * runs of the files it needs, a build's load joins them all.
 *
 * A run carries, beside its strings, each one's id in the whole snapshot (`ids`): joining then
 * places strings and maps columns without hashing a string — interning the few million strings of
 * a 10k-file table's runs was most of loading it.
 */
import type { SnapshotColumns, SnapshotRows, SymbolsSnapshot } from './symbol-table.js'
import { CorruptFileError } from '../errors.js'
import { STRING_SEPARATOR, type StringList } from './strings.js'

/** A snapshot of some files, with the id in the whole table of each of its strings. */
export interface SymbolsRun extends SymbolsSnapshot {
  ids: Uint32Array
}

type Columns = Omit<SymbolsSnapshot, 'version' | 'strings' | 'sigText' | 'languages'>
type Column = Columns[keyof Columns]

/** Scratch reused across the runs of one table: which run last used a string, and its id there. */
export class SliceScratch {
  readonly seen: Int32Array
  readonly local: Uint32Array

  constructor(strings: number) {
    this.seen = new Int32Array(strings).fill(-1)
    this.local = new Uint32Array(strings)
  }
}

/** Starts of files, definitions, references and imports per file of `data` (file f spans [start[f], start[f + 1])). */
export function fileStarts(data: { paths: { length: number } } & Pick<SymbolsSnapshot, 'defCounts' | 'refCounts' | 'importCounts'>): { def: Uint32Array; ref: Uint32Array; imp: Uint32Array } {
  const files = data.paths.length
  const def = new Uint32Array(files + 1)
  const ref = new Uint32Array(files + 1)
  const imp = new Uint32Array(files + 1)
  for (let f = 0; f < files; f++) {
    def[f + 1] = def[f] + data.defCounts[f]
    ref[f + 1] = ref[f] + data.refCounts[f]
    imp[f + 1] = imp[f] + data.importCounts[f]
  }
  return { def, ref, imp }
}

/** A whole snapshot as an encoder reads it (SnapshotRows): each run's rows viewed in its columns, its signatures and sigEnds cut out. */
export function snapshotRows(data: SymbolsSnapshot): SnapshotRows {
  const split = data.strings.split(STRING_SEPARATOR)
  const strings: StringList = { size: split.length, get: (id) => split[id]!, join: (ids) => Array.from(ids, (id) => split[id]!).join(STRING_SEPARATOR) }
  const starts = fileStarts(data)
  const sigStart = (d: number): number => (d === 0 ? 0 : data.sigEnds[d - 1])
  const columns = (from: number, to: number): SnapshotColumns => {
    const [d0, d1, r0, r1, m0, m1] = [starts.def[from], starts.def[to], starts.ref[from], starts.ref[to], starts.imp[from], starts.imp[to]]
    const base = sigStart(d0)
    const sigEnds = data.sigEnds.slice(d0, d1)
    for (let d = 0; d < sigEnds.length; d++) sigEnds[d] -= base
    return {
      version: data.version,
      paths: data.paths.subarray(from, to),
      languages: data.languages.slice(from, to),
      defCounts: data.defCounts.subarray(from, to),
      refCounts: data.refCounts.subarray(from, to),
      importCounts: data.importCounts.subarray(from, to),
      defName: data.defName.subarray(d0, d1),
      defQName: data.defQName.subarray(d0, d1),
      defScope: data.defScope.subarray(d0, d1),
      defKind: data.defKind.subarray(d0, d1),
      defLine: data.defLine.subarray(d0, d1),
      defEndLine: data.defEndLine.subarray(d0, d1),
      defColumn: data.defColumn.subarray(d0, d1),
      sigEnds,
      refName: data.refName.subarray(r0, r1),
      refFrom: data.refFrom.subarray(r0, r1),
      refKind: data.refKind.subarray(r0, r1),
      refCount: data.refCount.subarray(r0, r1),
      importModule: data.importModule.subarray(m0, m1),
      importName: data.importName.subarray(m0, m1),
      importLine: data.importLine.subarray(m0, m1),
      importRelative: data.importRelative.subarray(m0, m1),
      importKey1: data.importKey1.subarray(m0, m1),
      importKey2: data.importKey2.subarray(m0, m1),
      importTarget: data.importTarget.subarray(m0, m1),
      importIsDir: data.importIsDir.subarray(m0, m1),
      sigTextOf: (a, b) => data.sigText.slice(sigStart(starts.def[from + a]), sigStart(starts.def[from + b])),
    }
  }
  return {
    paths: Array.from(data.paths, (id) => split[id]!),
    languages: data.languages,
    defCounts: data.defCounts,
    refCounts: data.refCounts,
    importCounts: data.importCounts,
    columns,
    strings,
    idLimit: split.length,
  }
}

/** Files [from, to) of `data` as a snapshot of their own; `run` numbers the run for `scratch`. */
export function sliceSnapshot(data: SnapshotColumns, strings: StringList, starts: ReturnType<typeof fileStarts>, from: number, to: number, run: number, scratch: SliceScratch): SymbolsRun {
  const [d0, d1, r0, r1, m0, m1] = [starts.def[from], starts.def[to], starts.ref[from], starts.ref[to], starts.imp[from], starts.imp[to]]
  const local: string[] = []
  const ids: number[] = []
  const use = (id: number): number => {
    if (scratch.seen[id] !== run) {
      scratch.seen[id] = run
      scratch.local[id] = local.length
      local.push(strings.get(id))
      ids.push(id)
    }
    return scratch.local[id]
  }
  use(0)
  const paths = new Uint32Array(to - from)
  const defName = new Uint32Array(d1 - d0)
  const defQName = new Uint32Array(d1 - d0)
  const defScope = new Uint32Array(d1 - d0)
  const refName = new Uint32Array(r1 - r0)
  const importModule = new Uint32Array(m1 - m0)
  const importName = new Uint32Array(m1 - m0)
  const importKey1 = new Uint32Array(m1 - m0)
  const importKey2 = new Uint32Array(m1 - m0)
  const importTarget = new Int32Array(m1 - m0)
  for (let f = from; f < to; f++) {
    paths[f - from] = use(data.paths[f])
    for (let d = starts.def[f]; d < starts.def[f + 1]; d++) {
      defName[d - d0] = use(data.defName[d])
      defQName[d - d0] = use(data.defQName[d])
      defScope[d - d0] = use(data.defScope[d])
    }
    for (let r = starts.ref[f]; r < starts.ref[f + 1]; r++) refName[r - r0] = use(data.refName[r])
    for (let m = starts.imp[f]; m < starts.imp[f + 1]; m++) {
      importModule[m - m0] = use(data.importModule[m])
      importName[m - m0] = use(data.importName[m])
      importKey1[m - m0] = use(data.importKey1[m])
      importKey2[m - m0] = use(data.importKey2[m])
      importTarget[m - m0] = data.importTarget[m] < 0 ? -1 : use(data.importTarget[m])
    }
  }
  const sigStart = d0 === 0 ? 0 : data.sigEnds[d0 - 1]
  const sigEnds = data.sigEnds.slice(d0, d1)
  for (let d = 0; d < sigEnds.length; d++) sigEnds[d] -= sigStart
  return {
    version: data.version,
    strings: local.join(STRING_SEPARATOR),
    ids: Uint32Array.from(ids),
    sigText: data.sigTextOf(from, to),
    paths,
    languages: data.languages.slice(from, to),
    defCounts: data.defCounts.slice(from, to),
    refCounts: data.refCounts.slice(from, to),
    importCounts: data.importCounts.slice(from, to),
    defName, defQName, defScope,
    defKind: data.defKind.slice(d0, d1),
    defLine: data.defLine.slice(d0, d1),
    defEndLine: data.defEndLine.slice(d0, d1),
    defColumn: data.defColumn.slice(d0, d1),
    sigEnds,
    refName,
    refFrom: data.refFrom.slice(r0, r1),
    refKind: data.refKind.slice(r0, r1),
    refCount: data.refCount.slice(r0, r1),
    importModule, importName,
    importLine: data.importLine.slice(m0, m1),
    importRelative: data.importRelative.slice(m0, m1),
    importKey1, importKey2, importTarget,
    importIsDir: data.importIsDir.slice(m0, m1),
  }
}

/** Columns holding string ids, mapped when runs are joined (importTarget's -1 stays). */
const ID_COLUMNS = new Set<keyof Columns>(['paths', 'defName', 'defQName', 'defScope', 'refName', 'importModule', 'importName', 'importKey1', 'importKey2', 'importTarget'])

/**
 * The runs (at least one; each already checked as a snapshot: SymbolTable.fromSnapshot's checks)
 * joined into the snapshot of `strings` strings they were cut from, its strings as a list;
 * CorruptFileError (`source`) when their ids do not number the strings as the snapshot did.
 */
export function joinSnapshots(runs: readonly SymbolsRun[], strings: number, source: string): { data: Omit<SymbolsSnapshot, 'strings'>; strings: string[] } {
  const first = runs[0]!
  const all: string[] = []
  for (const run of runs) {
    const local = run.strings.split(STRING_SEPARATOR)
    placeRunStrings(run, local.length, all.length, source, (i) => all.push(local[i]!))
  }
  if (all.length !== strings) throw new CorruptFileError(source, 'the runs of the symbol table leave strings unplaced')
  const keys = Object.keys(first).filter((key) => key !== 'ids' && ArrayBuffer.isView(first[key as keyof SymbolsSnapshot])) as Array<keyof Columns>
  const joined: Partial<Record<keyof Columns, Column>> = {}
  for (const key of keys) {
    let total = 0
    for (const run of runs) total += run[key].length
    const column = new (first[key].constructor as new (length: number) => Column)(total)
    let at = 0
    for (const run of runs) {
      const part = run[key]
      if (ID_COLUMNS.has(key)) mapIds(column, at, part, run.ids)
      else if (key === 'sigEnds') addTo(column, at, part, at === 0 ? 0 : column[at - 1]!)
      else column.set(part as never, at)
      at += part.length
    }
    joined[key] = column
  }
  const data = { ...(joined as Columns), version: first.version, sigText: runs.map((run) => run.sigText).join(''), languages: runs.flatMap((run) => run.languages) }
  return { data, strings: all }
}

/**
 * Checks a run's string ids, given the strings the runs before it placed: strings are numbered in
 * order of first use over the runs, so each id is one already placed or the next. `place` is called
 * with the position among the run's own `local` strings of each one it places; returns the strings
 * placed once this run's are. CorruptFileError (`source`) otherwise.
 */
export function placeRunStrings(run: SymbolsRun, local: number, placed: number, source: string, place?: (at: number) => void): number {
  const { ids } = run
  if (!(ids instanceof Uint32Array) || ids.length !== local) throw new CorruptFileError(source, 'a run of the symbol table lacks its string ids')
  for (let i = 0; i < ids.length; i++) {
    if (ids[i] === placed) {
      placed++
      place?.(i)
    } else if (ids[i] > placed) throw new CorruptFileError(source, 'a run of the symbol table numbers its strings out of order')
  }
  return placed
}

/** `out[at + i] = ids[part[i]]`, -1 (no string: an unresolved import) kept. */
function mapIds(out: Column, at: number, part: Column, ids: Uint32Array): void {
  for (let i = 0; i < part.length; i++) {
    const id = part[i]!
    out[at + i] = id < 0 ? -1 : ids[id]!
  }
}

function addTo(out: Column, at: number, part: Column, base: number): void {
  for (let i = 0; i < part.length; i++) out[at + i] = base + part[i]!
}
