/**
 * The graph path: the neighbourhood of the symbols the query names — what their definitions call
 * or use (callees) and where they are called or used (callers). Name resolution follows the code
 * graph's rule (edges.ts): a name defined in more than AMBIGUITY_LIMIT files is generic and
 * links nowhere.
 */
import { AMBIGUITY_LIMIT, type SymbolInfo, type SymbolTable } from '../../graph/index.js'
import { chunkKeyString, type ChunkSource } from './chunks.js'
import type { SearchFilters } from './filters.js'
import type { ResolvedIdentifier } from './symbol-path.js'
import type { ChunkKey, PathHit } from './types.js'

/** Definitions expanded per identifier, and files scanned for callers per definition. */
const EXPANDED_DEFINITIONS = 3
const CALLER_FILES = 12
const CALLEE_NAMES = 24

export function graphPath(
  resolved: readonly ResolvedIdentifier[],
  symbols: SymbolTable,
  chunks: ChunkSource,
  filters: SearchFilters,
): PathHit[] {
  const found = new Map<string, PathHit>()
  const origins = new Set<string>()
  const add = (key: ChunkKey | undefined, weight: number, reason: string): void => {
    if (!key || !filters.file(key.path)) return
    const id = chunkKeyString(key)
    if (origins.has(id)) return
    const chunk = chunks.chunk(key)
    if (!chunk || !filters.chunk(chunk)) return
    const hit = found.get(id)
    if (hit) hit.score += weight
    else found.set(id, { ...key, score: weight, reason })
  }
  const expanded = resolved.flatMap(({ definitions }) => definitions.slice(0, EXPANDED_DEFINITIONS))
  for (const definition of expanded) {
    const origin = chunks.chunkAt(definition.path, definition.line, definition.qualifiedName)
    if (origin) origins.add(chunkKeyString(origin))
  }
  for (const definition of expanded) {
    addCallees(definition, symbols, chunks, add)
    addCallers(definition, symbols, chunks, add)
  }
  return [...found.values()].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.chunkIndex - b.chunkIndex))
}

type Add = (key: ChunkKey | undefined, weight: number, reason: string) => void

/** Definitions of the names used inside `definition`'s lines: same file first, else an unambiguous one. */
function addCallees(definition: SymbolInfo, symbols: SymbolTable, chunks: ChunkSource, add: Add): void {
  const artifact = chunks.artifact(definition.path)
  if (!artifact) return
  const counts = new Map<string, number>()
  for (const ref of artifact.references) {
    if (ref.line < definition.line || ref.line > definition.endLine || ref.kind === 'import') continue
    if (ref.name === definition.name) continue
    counts.set(ref.name, (counts.get(ref.name) ?? 0) + 1)
  }
  const names = [...counts].sort((a, b) => b[1] - a[1]).slice(0, CALLEE_NAMES)
  for (const [name, count] of names) {
    const targets = symbols.byName(name)
    const local = targets.filter((t) => t.path === definition.path)
    const chosen = local.length > 0 ? local : new Set(targets.map((t) => t.path)).size <= AMBIGUITY_LIMIT ? targets : []
    for (const target of chosen) {
      add(chunks.chunkAt(target.path, target.line, target.qualifiedName), Math.sqrt(count) / chosen.length, `called by ${definition.qualifiedName}`)
    }
  }
}

/** The chunks that reference `definition`'s name, in the files referencing it most. */
function addCallers(definition: SymbolInfo, symbols: SymbolTable, chunks: ChunkSource, add: Add): void {
  const definingFiles = new Set(symbols.byName(definition.name).map((s) => s.path))
  if (definingFiles.size > AMBIGUITY_LIMIT) return
  for (const { path } of symbols.referencesTo(definition.name).slice(0, CALLER_FILES)) {
    // Another definition of the name in this file: its uses refer to that one.
    if (path !== definition.path && definingFiles.has(path)) continue
    const artifact = chunks.artifact(path)
    if (!artifact) continue
    const counts = new Map<number, number>()
    for (const ref of artifact.references) {
      if (ref.name !== definition.name || ref.kind === 'import') continue
      const key = chunks.chunkAt(path, ref.line)
      if (key) counts.set(key.chunkIndex, (counts.get(key.chunkIndex) ?? 0) + 1)
    }
    for (const [chunkIndex, count] of counts) add({ path, chunkIndex }, Math.sqrt(count), `uses ${definition.qualifiedName}`)
  }
}
