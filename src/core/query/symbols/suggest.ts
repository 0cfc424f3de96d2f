/**
 * Names close to one that matched nothing: same name in another case, names it prefixes, then
 * names within a small edit distance. Run only on a miss, over the distinct defined names.
 *
 * A warm server answers many misses (typos, names from headers the tree does not hold), and
 * scanning 300k definitions and measuring the edit distance to every name of a similar length
 * cost ~100 ms each. The distinct names are therefore catalogued once per table — grouped by
 * length and by their first two characters, each with bitmasks of its characters — so that a
 * miss visits only the names that can match and skips, by mask, those too different to be
 * within the budget.
 */
import type { SymbolTable } from '../../graph/symbol-table.js'

export function suggestNames(table: SymbolTable, query: string, limit = 5): string[] {
  const wanted = query.toLowerCase()
  const budget = Math.max(1, Math.min(3, Math.floor(wanted.length / 4)))
  // A non-ASCII query shares at most its ASCII characters with an ASCII name (bit 31 stands for the rest).
  const [wanted1, wanted2] = charClasses(wanted.replace(/[^\x00-\x7f]/g, '$'))
  const catalogue = catalogueOf(table)
  const scored: Array<{ name: string; score: number }> = []
  const consider = (i: number, score: number | null): void => {
    if (score !== null) scored.push({ name: catalogue.names[i]!, score })
  }
  // Names of other lengths are too short, or (for a short query) too long, to match at all.
  const longestNear = Math.min(wanted.length + budget, catalogue.starts.length - 2)
  for (let length = Math.max(0, wanted.length - budget); length <= longestNear; length++) {
    for (let at = catalogue.starts[length]!; at < catalogue.starts[length + 1]!; at++) {
      const i = catalogue.order[at]!
      if (differingChars(catalogue.once[i]!, catalogue.twice[i]!, wanted1, wanted2) <= budget) consider(i, closenessOfLower(catalogue.names[i]!.toLowerCase(), length, wanted, budget))
    }
  }
  // Only a prefix match reaches a longer name: those sharing the query's first two characters.
  const key = wanted.length >= 3 ? prefixKey(wanted) : -1
  if (key >= 0) {
    for (let at = catalogue.prefixStarts[key]!; at < catalogue.prefixStarts[key + 1]!; at++) {
      const i = catalogue.prefixOrder[at]!
      const name = catalogue.names[i]!
      if (name.length > wanted.length + budget && name.slice(0, wanted.length).toLowerCase() === wanted) consider(i, 1 + (name.length - wanted.length) / 1000)
    }
  }
  // Names whose lowercase is not character for character (non-ASCII) take the general test.
  for (const i of catalogue.exotic) consider(i, closeness(catalogue.names[i]!, wanted, budget))
  scored.sort((a, b) => a.score - b.score || a.name.length - b.name.length || (a.name < b.name ? -1 : 1))
  return scored.slice(0, limit).map((s) => s.name)
}

/** 0 same but for case, 1 a prefix match, 2 + distance within budget; null otherwise (`wanted` is lowercase). */
function closeness(name: string, wanted: string, budget: number): number | null {
  if (name.length < wanted.length - budget || (name.length > wanted.length + budget && wanted.length < 3)) return null
  const near = Math.abs(name.length - wanted.length) <= budget
  if (!near && name.slice(0, wanted.length).toLowerCase() !== wanted) return null
  return closenessOfLower(name.toLowerCase(), name.length, wanted, budget)
}

/** `closeness` given the name's lowercase and its length, for a name near in length or prefixed by `wanted`. */
function closenessOfLower(lower: string, length: number, wanted: string, budget: number): number | null {
  if (lower === wanted) return 0
  if (lower.startsWith(wanted) && wanted.length >= 3) return 1 + (length - wanted.length) / 1000
  if (Math.abs(length - wanted.length) > budget) return null
  const distance = boundedLevenshtein(lower, wanted, budget)
  return distance === null ? null : 2 + distance
}

/** Edit distance when ≤ `max`, else null; one row, stops as soon as a row exceeds `max`. */
export function boundedLevenshtein(a: string, b: string, max: number): number | null {
  if (b.length + 1 > rowA.length) {
    rowA = new Int32Array(b.length + 1)
    rowB = new Int32Array(b.length + 1)
  }
  let row = rowA
  let next = rowB
  for (let j = 0; j <= b.length; j++) row[j] = j
  for (let i = 1; i <= a.length; i++) {
    const ca = a.charCodeAt(i - 1)
    next[0] = i
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const value = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1))
      next[j] = value
      if (value < best) best = value
    }
    if (best > max) return null
    ;[row, next] = [next, row]
  }
  return row[b.length]! <= max ? row[b.length]! : null
}

let rowA = new Int32Array(64)
let rowB = new Int32Array(64)

/**
 * A table's distinct definition names (bare and qualified). ASCII names are listed twice, as
 * indexes into `names`: grouped by length (`order`, group `length` from `starts[length]` to
 * `starts[length + 1]`) and, when two characters or longer, by the key of their lowercase's first
 * two (`prefixOrder`, `prefixStarts`). The others are listed in `exotic`.
 */
interface NameCatalogue {
  names: readonly string[]
  /** Character classes (see `charClasses`) of each ASCII name's lowercase. */
  once: Uint32Array
  twice: Uint32Array
  order: Uint32Array
  starts: Uint32Array
  prefixOrder: Uint32Array
  prefixStarts: Uint32Array
  exotic: number[]
}

/**
 * Keyed by the table's list of defined names, which the table replaces on every change: a patched
 * table (an overlay applied) gets a fresh catalogue, an unchanged one keeps it.
 */
const catalogues = new WeakMap<readonly string[], NameCatalogue>()

function catalogueOf(table: SymbolTable): NameCatalogue {
  const names = table.definedNames()
  let catalogue = catalogues.get(names)
  if (!catalogue) catalogues.set(names, (catalogue = buildCatalogue(names)))
  return catalogue
}

function buildCatalogue(names: readonly string[]): NameCatalogue {
  const once = new Uint32Array(names.length)
  const twice = new Uint32Array(names.length)
  const lengths = new Int32Array(names.length)
  const keys = new Int32Array(names.length)
  const exotic: number[] = []
  let longest = 0
  for (let i = 0; i < names.length; i++) {
    if (!isAscii(names[i]!)) {
      exotic.push(i)
      lengths[i] = keys[i] = -1
      continue
    }
    ;[once[i], twice[i]] = charClasses(names[i]!)
    lengths[i] = names[i]!.length
    keys[i] = prefixKey(names[i]!)
    if (lengths[i]! > longest) longest = lengths[i]!
  }
  const { order, starts } = groupBy(lengths, longest + 1)
  const { order: prefixOrder, starts: prefixStarts } = groupBy(keys, PREFIX_KEYS)
  return { names, once, twice, order, starts, prefixOrder, prefixStarts, exotic }
}

/** Indexes 0… of `keys` grouped by key (a counting sort; key -1 left out), with each group's start. */
function groupBy(keys: ArrayLike<number>, size: number): { order: Uint32Array; starts: Uint32Array } {
  const starts = new Uint32Array(size + 1)
  for (let i = 0; i < keys.length; i++) if (keys[i]! >= 0) starts[keys[i]! + 1]++
  for (let key = 0; key < size; key++) starts[key + 1] += starts[key]!
  const fill = starts.slice(0, size)
  const order = new Uint32Array(starts[size]!)
  for (let i = 0; i < keys.length; i++) if (keys[i]! >= 0) order[fill[keys[i]!]!++] = i
  return { order, starts }
}

const PREFIX_KEYS = 128 * 128

/** The lowercase of the first two characters of a string as one number; -1 when shorter or not ASCII. */
function prefixKey(text: string): number {
  if (text.length < 2) return -1
  const a = foldCase(text.charCodeAt(0))
  const b = foldCase(text.charCodeAt(1))
  return a < 128 && b < 128 ? (a << 7) | b : -1
}

/** An ASCII capital's lowercase code; any other code unchanged. */
function foldCase(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 128) return false
  return true
}

/**
 * Which classes of character the lowercase of an ASCII string holds at least once and at least twice: a
 * letter each, digits and other characters sharing classes. Each edit changes at most one
 * character on either side, so the characters of one string the other lacks (one for a class
 * only it holds, two for a class it holds twice and the other not at all) bound the edit
 * distance from below.
 */
function charClasses(text: string): [number, number] {
  let once = 0
  let twice = 0
  for (let i = 0; i < text.length; i++) {
    const code = foldCase(text.charCodeAt(i))
    const bit = 1 << (code >= 97 && code <= 122 ? code - 97 : code >= 48 && code <= 57 ? 26 + (code & 3) : code === 95 ? 30 : 31)
    twice |= once & bit
    once |= bit
  }
  return [once >>> 0, twice >>> 0]
}

/** The lower bound of `charClasses` on the edit distance between two strings. */
function differingChars(once1: number, twice1: number, once2: number, twice2: number): number {
  return Math.max(popcount(once1 & ~once2) + popcount(twice1 & ~twice2), popcount(once2 & ~once1) + popcount(twice2 & ~twice1))
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24
}
