/**
 * Definitions matching what a user typed: `name`, `Class.method` (any qualified name),
 * `module.name` (a qualified name inside a file or package whose path ends with the module) or
 * `path:name`. Scans the table's definition columns by string id instead of building its name
 * indexes: a few milliseconds over 300k definitions, where an index costs ~90 ms to build cold.
 */
import type { SymbolInfo, SymbolTable } from '../../graph/symbol-table.js'
import type { FileSymbols } from '../../graph/file-symbols.js'

/**
 * How a definition matched, lower is better: 0 the qualified name (module-qualified included,
 * and in the file a `path:` names), 1 only the bare name.
 */
export type MatchTier = 0 | 1
const QUALIFIED: MatchTier = 0
const NAME: MatchTier = 1

export interface Candidate extends SymbolInfo {
  tier: MatchTier
}

/** The bare name a query is about: `Class.method` → `method`, `ns::f` → `f`, `path:name` → `name`. */
export function nameOf(query: string): string {
  const { name } = splitPath(query)
  const parts = name.split(SEPARATOR)
  return parts[parts.length - 1] ?? name
}

const SEPARATOR = /::|\./

/**
 * Definitions matching `query`. A qualified name a file defines more than once (`#ifdef` variants,
 * a property's getter and setter, `if`/`else` versions) is kept once, at its first definition,
 * unless `every` asks for each of them.
 */
export function findCandidates(table: SymbolTable, query: string, every = false): Candidate[] {
  const { path, name } = splitPath(query)
  const strings = table.strings
  if (path !== null) {
    const file = table.file(path)
    const id = strings.find(name)
    // `path:extract` is the file's function extract before its BaseArchive.extract.
    if (file) return id < 0 ? [] : collect(table, [file], (q, n) => (q === id ? QUALIFIED : n === id ? NAME : null), every)
  }
  const qualified = strings.find(name)
  const bare = strings.find(nameOf(name))
  const out = qualified < 0 && bare < 0 ? [] : collect(table, table.sortedFiles(), (q, n) => (q === qualified ? QUALIFIED : n === bare ? NAME : null), every)
  // `module.name`: each dotted prefix tried as a module path, the rest as a qualified name in it.
  const parts = name.split(SEPARATOR)
  for (let cut = 1; cut < parts.length; cut++) {
    const rest = strings.find(parts.slice(cut).join('.'))
    if (rest < 0) continue
    const modulePath = parts.slice(0, cut).join('/')
    const files = table.sortedFiles().filter((file) => inModule(file.path, modulePath))
    for (const hit of collect(table, files, (q) => (q === rest ? QUALIFIED : null), every)) {
      const same = out.find((c) => c.path === hit.path && c.line === hit.line && c.qualifiedName === hit.qualifiedName)
      if (same) same.tier = QUALIFIED
      else out.push(hit)
    }
  }
  return out
}

function splitPath(query: string): { path: string | null; name: string } {
  for (let at = query.indexOf(':'); at > 0; at = query.indexOf(':', at + 2)) {
    if (query[at + 1] === ':' || query[at - 1] === ':') continue
    return { path: query.slice(0, at).replace(/^\.\//, ''), name: query.slice(at + 1) }
  }
  return { path: null, name: query }
}

/** A file is in module `a/b/c` when it is `a/b/c.*`, `a/b/c/__init__.*`, `a/b/c/index.*`, `a/b/c/mod.rs` or directly in `a/b/c/`. */
export function inModule(path: string, modulePath: string): boolean {
  const dot = path.lastIndexOf('.')
  const slash = path.lastIndexOf('/')
  const stem = dot > slash ? path.slice(0, dot) : path
  const dir = slash < 0 ? '' : path.slice(0, slash)
  const endsWith = (text: string): boolean => text === modulePath || text.endsWith(`/${modulePath}`)
  if (endsWith(stem) || endsWith(dir)) return true
  const base = stem.slice(slash + 1)
  return (base === '__init__' || base === 'index' || base === 'mod') && endsWith(dir)
}

/** Definitions in `files` whose (qualified name id, name id) `tierOf` accepts. */
function collect(table: SymbolTable, files: readonly FileSymbols[], tierOf: (qualifiedName: number, name: number) => MatchTier | null, every: boolean): Candidate[] {
  const out: Candidate[] = []
  for (const file of files) {
    const { defName, defQName } = file.cols
    let seen: Set<number> | undefined
    for (let d = file.def0; d < file.def0 + file.defs; d++) {
      const tier = tierOf(defQName[d], defName[d])
      if (tier === null) continue
      if (!every) {
        seen ??= new Set()
        if (seen.has(defQName[d])) continue
        seen.add(defQName[d])
      }
      out.push({ ...table.info(file, d - file.def0), tier })
    }
  }
  return out
}

