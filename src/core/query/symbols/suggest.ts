/**
 * Names close to one that matched nothing: same name in another case, names it prefixes, then
 * names within a small edit distance. Run only on a miss, over the distinct defined names.
 */
import type { SymbolTable } from '../../graph/symbol-table.js'

export function suggestNames(table: SymbolTable, query: string, limit = 5): string[] {
  const wanted = query.toLowerCase()
  const budget = Math.max(1, Math.min(3, Math.floor(wanted.length / 4)))
  const seen = new Uint8Array(table.strings.size)
  const scored: Array<{ name: string; score: number }> = []
  for (const file of table.sortedFiles()) {
    const { defName, defQName } = file.cols
    for (let d = file.def0; d < file.def0 + file.defs; d++) {
      for (const id of [defName[d], defQName[d]]) {
        if (seen[id]) continue
        seen[id] = 1
        const name = table.strings.get(id)
        // Most names are far too short or too long for either test: skip them before lowercasing.
        if (name.length < wanted.length - budget || (name.length > wanted.length + budget && wanted.length < 3)) continue
        const score = closeness(name, wanted, budget)
        if (score !== null) scored.push({ name, score })
      }
    }
  }
  scored.sort((a, b) => a.score - b.score || a.name.length - b.name.length || (a.name < b.name ? -1 : 1))
  return scored.slice(0, limit).map((s) => s.name)
}

/** 0 same but for case, 1 a prefix match, 2 + distance within budget; null otherwise (`wanted` is lowercase). */
function closeness(name: string, wanted: string, budget: number): number | null {
  const near = Math.abs(name.length - wanted.length) <= budget
  if (!near && (wanted.length < 3 || name.slice(0, wanted.length).toLowerCase() !== wanted)) return null
  const lower = name.toLowerCase()
  if (lower === wanted) return 0
  if (lower.startsWith(wanted) && wanted.length >= 3) return 1 + (name.length - wanted.length) / 1000
  if (!near) return null
  const distance = boundedLevenshtein(lower, wanted, budget)
  return distance === null ? null : 2 + distance
}

/** Edit distance when ≤ `max`, else null; one row, stops as soon as a row exceeds `max`. */
export function boundedLevenshtein(a: string, b: string, max: number): number | null {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const value = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      next.push(value)
      if (value < best) best = value
    }
    if (best > max) return null
    row = next
  }
  return row[b.length]! <= max ? row[b.length]! : null
}
