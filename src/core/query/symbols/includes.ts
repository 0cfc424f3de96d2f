/**
 * C and C++ see a definition only through the translation unit: the file holding it and the
 * files that `#include` that file, directly or through other headers. Exposure (exposure.ts)
 * follows only files mentioning the name, so a `.c` file reaching `include/linux/workqueue.h`
 * through `linux/slab.h` is labelled by nothing and, with a same-named definition elsewhere
 * (tools/…/srcu-cbmc/src/workqueues.h), each of its uses was ambiguous. Walking the other
 * definitions' headers back through their includers (the symbol table's import keys) says which
 * files may see them at all; any other C file's bare use cannot be theirs.
 */
import type { SymbolInfo, SymbolTable } from '../../graph/symbol-table.js'
import { candidateKey, dirname, joinPath, pathKeys } from '../../graph/paths.js'
import type { LanguageId } from '../../parse/types.js'

/** Languages whose files see another file's definitions only by including it. */
export const INCLUDE_SCOPED = new Set<LanguageId>(['c', 'cpp'])

/** A definition in one of these is seen only where the file is included; one in a source file may be declared `extern` anywhere. */
const HEADER = /\.(?:h|hh|hpp|hxx|h\+\+|inl|inc)$/i

/**
 * Files whose rows are read while walking back, at most: past it a header is included too widely
 * for the walk to pay (`linux/slab.h`), and which files see it is left unknown.
 */
const WALK_LIMIT = 512

/**
 * The files from which one of `others` (top-level definitions not the target) may be seen by a
 * C or C++ file; undefined when that is not known: one is in a C or C++ source file (external
 * linkage), or its header is included too widely. A definition in another language is seen by
 * none.
 */
export function filesSeeing(table: SymbolTable, others: readonly SymbolInfo[], languageOf: (path: string) => LanguageId | undefined): Set<string> | undefined {
  const seeing = new Set<string>()
  for (const path of new Set(others.filter((o) => o.scope === '').map((o) => o.path))) {
    const language = languageOf(path)
    if (!language || !INCLUDE_SCOPED.has(language)) continue
    if (!HEADER.test(path) || !includersOf(table, path, seeing)) return undefined
  }
  return seeing
}

/** Adds `header` and every file including it, hop after hop, to `into`; false when the walk passed WALK_LIMIT. */
function includersOf(table: SymbolTable, header: string, into: Set<string>): boolean {
  const pending = [header]
  into.add(header)
  let read = 0
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const included = next
    // `index.h` is keyed by its directory, and `#include "index.h"` by nothing: its includers cannot be looked up.
    if (candidateKey(included) !== pathKeys(included)[0]) return false
    for (const path of table.filesImporting(candidateKey(included))) {
      if (into.has(path)) continue
      if (++read > WALK_LIMIT) return false
      const rows = table.imports(path)
      // An include left unresolved (several files end so, none nearest) may still mean this one.
      if (rows.some((row) => (row.resolved ? !row.resolved.isDir && row.resolved.path === included : mayName(path, row.module, row.relative, included)))) {
        into.add(path)
        pending.push(path)
      }
    }
  }
  return true
}

/** Whether `#include` of `module` in file `from` can mean `path`: relative to the including file, or a path suffix. */
function mayName(from: string, module: string, relative: boolean, path: string): boolean {
  if (relative && joinPath(dirname(from), module) === path) return true
  const suffix = joinPath('', module)
  return suffix !== null && suffix !== '' && (path === suffix || path.endsWith(`/${suffix}`))
}
