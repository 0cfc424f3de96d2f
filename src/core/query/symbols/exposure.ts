/**
 * Which files make a definition visible: the files defining it, then — following resolved
 * imports — files that import one of those and mention the name themselves (barrels,
 * `__init__.py`, re-exports), a few hops deep. A file reached from both the target and an
 * unrelated same-named definition is `both`: its uses cannot be told apart by imports alone.
 */
import type { SymbolTable } from '../../graph/symbol-table.js'

export type Exposure = 'target' | 'other' | 'both'

const HOPS = 4

export function exposureOf(table: SymbolTable, name: string, targetFiles: Iterable<string>, otherFiles: Iterable<string>, mentioning: readonly string[]): Map<string, Exposure> {
  const label = new Map<string, Exposure>()
  for (const path of otherFiles) label.set(path, 'other')
  // A file defining both keeps 'target': its own definition is the one its bare uses see.
  for (const path of targetFiles) label.set(path, 'target')
  const defining = new Set(label.keys())
  for (let hop = 0; hop < HOPS; hop++) {
    let changed = false
    for (const path of mentioning) {
      if (defining.has(path)) continue
      const reached = importedExposure(table, path, label, name)
      if (reached && reached !== label.get(path)) {
        label.set(path, reached)
        changed = true
      }
    }
    if (!changed) break
  }
  return label
}

/**
 * The exposure `path` receives through the resolved imports that can bind `name` itself. An
 * import row naming another name (Python and Rust list imported names) binds that one only.
 */
function importedExposure(table: SymbolTable, path: string, label: ReadonlyMap<string, Exposure>, name: string): Exposure | undefined {
  let out: Exposure | undefined
  for (const imported of table.imports(path)) {
    const target = imported.resolved
    if (!target || (imported.name !== '' && imported.name !== name && imported.name !== '*')) continue
    let got: Exposure | undefined
    if (target.isDir) {
      for (const [file, exposure] of label) if (file.startsWith(`${target.path}/`) && !file.slice(target.path.length + 1).includes('/')) got = merge(got, exposure)
    } else {
      got = label.get(target.path)
    }
    if (got) out = merge(out, got)
  }
  return out
}

function merge(a: Exposure | undefined, b: Exposure): Exposure {
  return a === undefined || a === b ? b : 'both'
}
