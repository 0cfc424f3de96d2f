/**
 * Definitions matching what a user typed: `name`, `Class.method` (any qualified name),
 * `module.name` (a qualified name inside a file or package whose path ends with the module) or
 * `path:name`. Asks the table for the definitions under each key (SymbolTable.keyed): a stored
 * table reads only that key's block, a patched one scans its columns by string id (a few
 * milliseconds over 300k definitions, where a name index costs ~90 ms to build cold).
 */
import type { SymbolInfo, SymbolTable } from '../../graph/symbol-table.js'
import type { KeyedDefinition } from '../../graph/symbols-file.js'

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
  // `path:extract` is the file's function extract before its BaseArchive.extract.
  if (path !== null && table.hasFile(path)) {
    return collect(table.keyed(name).filter((d) => d.info.path === path), (d) => (d.byQualifiedName ? QUALIFIED : NAME), every)
  }
  const bare = nameOf(name)
  const matches = [...table.keyed(name).filter((d) => d.byQualifiedName), ...table.keyed(bare).filter((d) => d.byName)]
  const out = collect(inOrder(matches), (d) => (d.info.qualifiedName === name ? QUALIFIED : NAME), every)
  // `module.name`: each dotted prefix tried as a module path, the rest as a qualified name in it.
  const parts = name.split(SEPARATOR)
  for (let cut = 1; cut < parts.length; cut++) {
    const rest = parts.slice(cut).join('.')
    const modulePath = parts.slice(0, cut).join('/')
    const inIt = table.keyed(rest).filter((d) => d.byQualifiedName && inModule(d.info.path, modulePath))
    for (const hit of collect(inIt, () => QUALIFIED, every)) {
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

/** Definitions in path then definition order, each once (a definition found under its name and its qualified name). */
function inOrder(found: KeyedDefinition[]): KeyedDefinition[] {
  const seen = new Set<string>()
  return found
    .sort((a, b) => a.file - b.file || a.def - b.def)
    .filter((d) => {
      const key = `${d.file}:${d.def}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
}

/** Candidates of `found` (in path then definition order) at the tier `tierOf` gives; unless `every`, a qualified name once per file. */
function collect(found: KeyedDefinition[], tierOf: (d: KeyedDefinition) => MatchTier, every: boolean): Candidate[] {
  const out: Candidate[] = []
  const seen = new Set<string>()
  for (const d of found) {
    if (!every) {
      const key = `${d.file}\u0000${d.info.qualifiedName}`
      if (seen.has(key)) continue
      seen.add(key)
    }
    out.push({ ...d.info, tier: tierOf(d) })
  }
  return out
}
