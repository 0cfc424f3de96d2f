/**
 * How many edges a stored graph has with files laid over it (a delta tree's files over its
 * anchor's aggregates, a working tree's edits), exactly as materialising them counts them
 * (lay-over.ts: the table loaded whole, the files applied, the graph patched by
 * CodeGraph.update), without loading either: `status` after a commit on Linux materialised
 * 2.1 GB for 17 s to count.
 *
 * The stored count, less the stored edges of the files laid over, plus the laid files' edges
 * resolved in their neighbourhood (TableView.laidEdgeCount), plus what changes for the stored
 * files `update` resolves again: those referencing a name whose definitions changed, and those
 * whose imports resolve elsewhere. Edges are resolved row by row (edges.ts), so in the first only
 * the rows naming such a name change; in the second every row may (the imported files changed).
 * Both are counted by resolveFileEdges' rules from the definitions by name as DefIndex holds them
 * (a file's distinct qualified names).
 */
import { AMBIGUITY_LIMIT } from './edges.js'
import type { KeyedDefinition } from './symbols-file.js'
import type { GraphFile } from './graph-file.js'
import type { TableView } from './overlaid-table.js'
import { dirname, pathKeys } from './paths.js'
import { DIRECTORY } from './symbol-table.js'

/**
 * Stored files counted again past which the count is left to materialising: each reads its run
 * of the table, and a few thousand read most of it.
 */
export const MAX_RECOUNTED_FILES = 2_000

/** The definitions of one name: defining file → how many distinct qualified names it defines under it. */
type DefsByFile = ReadonlyMap<string, number>

/** The edge count of the table as laid over, or undefined when it takes materialising to know (see MAX_RECOUNTED_FILES, importsMoveUnwatched). */
export function laidEdgeCount(view: TableView, graph: GraphFile): number | undefined {
  if (view.importsMoveUnwatched()) return undefined
  const { base, hidden } = view
  const moved = filesWhoseImportsMoved(view)
  if (!moved) return undefined
  const dirty = dirtyNames(view)
  const before = memoized((name) => defsByFile(base.keyed(name)))
  const after = memoized((name) => defsByFile(view.keyed(name)))

  // Files referencing a dirty name: all of them when it is (or was) defined in few enough files to
  // resolve without imports; otherwise only those importing a laid file can resolve it differently.
  const recounted = new Set<string>()
  let importedOnly = false
  for (const name of dirty) {
    if (Math.min(before(name).size, after(name).size) > AMBIGUITY_LIMIT) importedOnly = true
    else for (const { path } of base.referencesTo(name)) if (!hidden.has(path)) recounted.add(path)
  }
  if (importedOnly) for (const path of importersOfLaid(view)) recounted.add(path)
  for (const path of moved) recounted.delete(path)
  if (recounted.size + moved.size > MAX_RECOUNTED_FILES) return undefined

  const storedNumbers = (paths: Iterable<string>): number[] => [...paths].map((path) => base.fileNumber(path)).filter((f) => f >= 0)
  let count = graph.meta.edges - graph.edgeCountOf(storedNumbers([...hidden, ...moved])) + view.laidEdgeCount()
  for (const path of recounted) {
    const imported = view.importedFiles(path)
    count += rowTargetsOf(view, path, (name) => (dirty.has(name) ? rowTargets(after(name), imported) - rowTargets(before(name), imported) : 0))
  }
  for (const path of moved) {
    const imported = view.importedFiles(path)
    count += imported.size + rowTargetsOf(view, path, (name) => rowTargets(after(name), imported), true)
  }
  return count
}

/**
 * The sum of `targets` over the rows of the stored file at `path` that do not name a definition of
 * the file itself. Those resolve to its own definitions whatever else changed: with `own`, they
 * count its distinct qualified names under the name, less the enclosing definition (recursion is
 * no edge); without, nothing (they are the same before and after).
 */
function rowTargetsOf(view: TableView, path: string, targets: (name: string) => number, own = false): number {
  const { table, file } = view.base.fileRows(path)!
  const { defName, defQName, refName, refFrom } = file.cols
  const ownQNames = new Map<number, Set<number>>()
  for (let d = file.def0; d < file.def0 + file.defs; d++) {
    const qnames = ownQNames.get(defName[d]!)
    if (qnames) qnames.add(defQName[d]!)
    else ownQNames.set(defName[d]!, new Set([defQName[d]!]))
  }
  let sum = 0
  for (let r = file.ref0; r < file.ref0 + file.refs; r++) {
    const qnames = ownQNames.get(refName[r]!)
    if (!qnames) sum += targets(table.strings.get(refName[r]!))
    else if (own) sum += qnames.size - (refFrom[r]! >= 0 && qnames.has(defQName[file.def0 + refFrom[r]!]!) ? 1 : 0)
  }
  return sum
}

/**
 * How many edges a reference row to a name its file does not define gets (resolveFileEdges): those
 * in the files its file imports; else every one when few enough files define it to count without
 * favouring a guess, else none. (resolveFileEdges takes every definition first when one file
 * defines the name: the same count either way.)
 */
function rowTargets(defs: DefsByFile, imported: ReadonlySet<string>): number {
  let total = 0
  for (const n of defs.values()) total += n
  let fromImports = 0
  for (const path of imported) fromImports += defs.get(path) ?? 0
  if (fromImports > 0) return fromImports
  return defs.size <= AMBIGUITY_LIMIT ? total : 0
}

function defsByFile(keyed: readonly KeyedDefinition[]): DefsByFile {
  const qnames = new Map<string, Set<string>>()
  for (const { info, byName } of keyed) {
    if (!byName) continue
    const listed = qnames.get(info.path)
    if (listed) listed.add(info.qualifiedName)
    else qnames.set(info.path, new Set([info.qualifiedName]))
  }
  return new Map([...qnames].map(([path, names]) => [path, names.size]))
}

function memoized(compute: (name: string) => DefsByFile): (name: string) => DefsByFile {
  const memo = new Map<string, DefsByFile>()
  return (name) => {
    let found = memo.get(name)
    if (!found) memo.set(name, (found = compute(name)))
    return found
  }
}

/** Names whose (defining file, qualified name) pairs the laid files change, as SymbolTable.commit diffs them. */
function dirtyNames(view: TableView): Set<string> {
  const dirty = new Set<string>()
  for (const path of view.hidden) {
    const was = pairs(view.base.hasFile(path) ? view.base.definitions(path) : [])
    const is = pairs(view.extra().hasFile(path) ? view.extra().definitions(path) : [])
    for (const [name, qnames] of was) {
      const now = is.get(name)
      if (!now || now.size !== qnames.size || [...qnames].some((q) => !now.has(q))) dirty.add(name)
    }
    for (const name of is.keys()) if (!was.has(name)) dirty.add(name)
  }
  return dirty
}

/** A file's definitions as name → its qualified names under it. */
function pairs(defs: ReadonlyArray<{ name: string; qualifiedName: string }>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const { name, qualifiedName } of defs) {
    const listed = out.get(name)
    if (listed) listed.add(qualifiedName)
    else out.set(name, new Set([qualifiedName]))
  }
  return out
}

/**
 * Stored files (not laid over) with an import row resolved again because a path was added or
 * removed, which now resolves elsewhere or names a directory (whose files changed): commit()'s
 * `importsChanged`. The view resolves such rows again into new objects. Undefined: more files to
 * read than MAX_RECOUNTED_FILES.
 */
function filesWhoseImportsMoved(view: TableView): Set<string> | undefined {
  // Rows keyed by the watch keys, from the buckets; telling which resolve elsewhere reads each file's
  // run. A common key (a new `types.h`: Linux has thousands of includes keyed `types`) is left to materialising.
  const candidates = new Set<string>()
  for (const key of view.watchedKeys()) for (const { from } of view.base.importsKeyed(key)) if (!view.hidden.has(from)) candidates.add(from)
  if (candidates.size > MAX_RECOUNTED_FILES) return undefined
  const moved = new Set<string>()
  for (const from of candidates) {
    const stored = view.base.imports(from)
    const differs = view.imports(from).some((row, i) => {
      if (row === stored[i]) return false
      const was = stored[i]!.resolved
      return row.resolved?.isDir || was?.isDir || row.resolved?.path !== was?.path
    })
    if (differs) moved.add(from)
  }
  return moved
}

/** Stored files (not laid over) importing a laid path, or the directory of one. */
function importersOfLaid(view: TableView): Set<string> {
  const importers = new Set<string>()
  for (const path of view.hidden) {
    const dir = dirname(path)
    for (const key of pathKeys(path)) {
      for (const { from, target } of view.importsKeyed(key)) {
        if (view.hidden.has(from) || importers.has(from)) continue
        if (target === path || (target === DIRECTORY && view.imports(from).some(({ resolved }) => resolved?.isDir && resolved.path === dir))) importers.add(from)
      }
    }
  }
  return importers
}
