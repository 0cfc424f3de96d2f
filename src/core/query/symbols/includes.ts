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

/** Any definition in one of these is seen only where the file is included; in a source file, only a macro's or a `static` one's. */
const HEADER = /\.(?:h|hh|hpp|hxx|h\+\+|inl|inc)$/i

/**
 * Files found seeing the other definitions, at most: past it a header is included too widely for
 * the walk to pay (`linux/slab.h`), and which files see it is left unknown.
 */
const WALK_LIMIT = 512

/**
 * The files from which one of `others` (top-level definitions not the target) may be seen by a
 * C or C++ file; undefined when that is not known: one has external linkage in a source file
 * (declared `extern` anywhere), or its file is included too widely. A definition in another
 * language is seen by none.
 */
export function filesSeeing(table: SymbolTable, others: readonly SymbolInfo[], languageOf: (path: string) => LanguageId | undefined): Set<string> | undefined {
  const files = new Set<string>()
  for (const other of others) {
    const language = languageOf(other.path)
    if (other.scope !== '' || !language || !INCLUDE_SCOPED.has(language)) continue
    if (!seenOnlyByInclusion(other)) return undefined
    files.add(other.path)
  }
  const seeing = new Set<string>()
  for (const path of files) if (!includersOf(table, path, seeing)) return undefined
  return seeing
}

/** In a header, a macro, or `static`: no other file sees it without including its file. */
function seenOnlyByInclusion(def: SymbolInfo): boolean {
  return HEADER.test(def.path) || def.kind === 'macro' || /^static\b/.test(def.signature.trimStart())
}

/** Adds `header` and every file including it, hop after hop, to `into`; false when the walk passed WALK_LIMIT. */
function includersOf(table: SymbolTable, header: string, into: Set<string>): boolean {
  const pending = [header]
  into.add(header)
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const included = next
    // `index.h` is keyed by its directory, and `#include "index.h"` by nothing: its includers cannot be looked up.
    if (candidateKey(included) !== pathKeys(included)[0]) return false
    for (const { from, target } of table.importsKeyed(candidateKey(included))) {
      if (into.has(from)) continue
      // An include left unresolved (several files end so, none nearest) may still mean this one.
      const includes = target === included || (target === null && table.imports(from).some((row) => !row.resolved && mayName(from, row.module, row.relative, included)))
      if (!includes) continue
      into.add(from)
      pending.push(from)
      if (into.size > WALK_LIMIT) return false
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
