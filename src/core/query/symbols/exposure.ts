/**
 * Which files make a definition visible: the files defining it, then — following resolved
 * imports — files that import one of those and mention the name themselves (barrels,
 * `__init__.py`, re-exports), a few hops deep. A file reached from both the target and an
 * unrelated same-named definition is `both`: its uses cannot be told apart by imports alone.
 */
import { DIRECTORY, type FileImport, type SymbolTable } from '../../graph/symbol-table.js'
import { pathKeys } from '../../graph/paths.js'

export type Exposure = 'target' | 'other' | 'both'

/** Whether an import row of `path` can bind the name itself (not only other names of the module). */
export type RowBinds = (path: string, row: FileImport) => boolean

const HOPS = 4

export function exposureOf(table: SymbolTable, targetFiles: Iterable<string>, otherFiles: Iterable<string>, mentioning: readonly string[], binds: RowBinds, includeScoped: (path: string) => boolean): Map<string, Exposure> {
  const label = new Map<string, Exposure>()
  for (const path of otherFiles) label.set(path, 'other')
  // A file defining both keeps 'target': its own definition is the one its bare uses see.
  for (const path of targetFiles) label.set(path, 'target')
  const defining = new Set(label.keys())
  // Star imports re-export without mentioning the name: they are hops too.
  const stars = table.starImporters()
  const reachable = stars.length === 0 ? mentioning : [...new Set([...stars, ...mentioning])]
  // Only a file with an import row keyed like a labelled file can be labelled: the others' imports
  // are not read (refs kmalloc on Linux: 2,600 files mention it, reading their rows was most of the
  // query). A C file's includes all bind the name, so the labelled files it includes, found from
  // the rows keyed like them, are all it needs; any other file's rows are read and asked.
  const includes = new Map<string, Set<string>>()
  const readRows = new Set<string>()
  const watch = (labelled: string): void => {
    for (const key of new Set(pathKeys(labelled))) {
      for (const { from, target } of table.importsKeyed(key)) {
        if (target === labelled && includeScoped(from)) {
          let files = includes.get(from)
          if (!files) includes.set(from, (files = new Set()))
          files.add(labelled)
        } else if (target === labelled || target === DIRECTORY) readRows.add(from)
      }
    }
  }
  for (const path of label.keys()) watch(path)
  for (let hop = 0; hop < HOPS; hop++) {
    let changed = false
    for (const path of reachable) {
      if (defining.has(path)) continue
      const included = includes.get(path)
      let reached: Exposure | undefined
      if (readRows.has(path)) reached = importedExposure(table, path, label, binds)
      else if (included) for (const file of included) reached = merge(reached, label.get(file)!)
      else continue
      if (reached && reached !== label.get(path)) {
        if (!label.has(path)) watch(path)
        label.set(path, reached)
        changed = true
      }
    }
    if (!changed) break
  }
  return label
}

/** The exposure `path` receives through the resolved imports that can bind the name itself. */
function importedExposure(table: SymbolTable, path: string, label: ReadonlyMap<string, Exposure>, binds: RowBinds): Exposure | undefined {
  let out: Exposure | undefined
  for (const imported of table.imports(path)) {
    const target = imported.resolved
    if (!target) continue
    let got: Exposure | undefined
    if (target.isDir) {
      for (const [file, exposure] of label) if (file.startsWith(`${target.path}/`) && !file.slice(target.path.length + 1).includes('/')) got = merge(got, exposure)
    } else {
      got = label.get(target.path)
    }
    // Asked last: telling may mean reading the file's imports as written.
    if (got && binds(path, imported)) out = merge(out, got)
  }
  return out
}

function merge(a: Exposure | undefined, b: Exposure): Exposure {
  return a === undefined || a === b ? b : 'both'
}
