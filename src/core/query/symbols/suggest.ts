/**
 * Names close to one that matched nothing: same name in another case, names it prefixes, then
 * names within a small edit distance. Run only on a miss, over the distinct defined names.
 *
 * A warm server answers many misses (typos, names from headers the tree does not hold), and
 * scanning 300k definitions and measuring the edit distance to every name of a similar length
 * cost ~100 ms each. The distinct names are therefore catalogued once per table — grouped by
 * length and by their first two characters, each with bitmasks of its characters — so that a
 * miss visits only the names that can match and skips, by mask, those too different to be
 * within the budget. The catalogue is built as misses need it: a cold CLI's one miss on Linux
 * (4 M names) spent 0.7 s cataloguing every name's characters, where it visits a few lengths.
 */
import type { NameList, SymbolTable } from '../../graph/index.js'

export function suggestNames(table: SymbolTable, query: string, limit = 5): string[] {
  const wanted = query.toLowerCase()
  const budget = Math.max(1, Math.min(3, Math.floor(wanted.length / 4)))
  // A non-ASCII query shares at most its ASCII characters with an ASCII name (bit 31 stands for the rest).
  const [wanted1, wanted2] = charClasses(wanted.replace(/[^\x00-\x7f]/g, '$'))
  const catalogue = catalogueOf(table)
  const { names } = catalogue
  const scored: Array<{ name: string; score: number }> = []
  const consider = (i: number, score: number | null): void => {
    if (score !== null) scored.push({ name: names.at(i), score })
  }
  // Names of other lengths are too short, or (for a short query) too long, to match at all.
  const longestNear = Math.min(wanted.length + budget, catalogue.starts.length - 2)
  for (let length = Math.max(0, wanted.length - budget); length <= longestNear; length++) {
    const from = catalogue.starts[length]!
    const group = lengthGroup(catalogue, length)
    for (let k = 0; k < group.once.length; k++) {
      const i = catalogue.order[from + k]!
      // Names whose lowercase is not character for character (non-ASCII) take the general test.
      if (!group.ascii[k]) consider(i, closeness(names.at(i), wanted, budget))
      else if (differingChars(group.once[k]!, group.twice[k]!, wanted1, wanted2) <= budget) consider(i, closenessOfLower(names.at(i).toLowerCase(), length, wanted, budget))
    }
  }
  // Only a prefix match reaches a longer name: those sharing the query's first two characters.
  if (wanted.length >= 3) {
    const longer = (i: number): void => {
      if (names.lengthAt(i) <= wanted.length + budget) return
      const name = names.at(i)
      if (name.slice(0, wanted.length).toLowerCase() === wanted) consider(i, 1 + (name.length - wanted.length) / 1000)
    }
    const prefixes = prefixGroups(catalogue)
    const key = prefixKey(wanted)
    if (key >= 0) for (let at = prefixes.starts[key]!; at < prefixes.starts[key + 1]!; at++) longer(prefixes.order[at]!)
    // Names beginning with other characters than ASCII are in no group: a non-ASCII query may prefix them.
    for (const i of prefixes.exotic) longer(i)
  }
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
 * A table's distinct definition names (bare and qualified), grouped by length (`order`, group
 * `length` from `starts[length]` to `starts[length + 1]`). The rest is filled in when a miss first
 * needs it: the characters of a length group's names, the names grouped by their first two
 * characters.
 */
interface NameCatalogue {
  names: NameList
  order: Uint32Array
  starts: Uint32Array
  groups: Array<LengthGroup | undefined>
  prefixes?: PrefixGroups
}

/** Character classes (see `charClasses`) of the lowercase of each name of one length group, in `order`; `ascii` 0 for the others. */
interface LengthGroup {
  once: Uint32Array
  twice: Uint32Array
  ascii: Uint8Array
}

/**
 * Names by the key of their lowercase's first two characters (`prefixKey`), and `exotic`: the
 * names of two characters or more whose first two are not both ASCII, which no key groups.
 */
interface PrefixGroups {
  order: Uint32Array
  starts: Uint32Array
  exotic: number[]
}

/**
 * Keyed by the table's list of defined names, which the table replaces on every change: a patched
 * table (an overlay applied) gets a fresh catalogue, an unchanged one keeps it.
 */
const catalogues = new WeakMap<NameList, NameCatalogue>()

function catalogueOf(table: SymbolTable): NameCatalogue {
  const names = table.definedNames()
  let catalogue = catalogues.get(names)
  if (!catalogue) {
    const lengths = new Int32Array(names.size)
    let longest = 0
    for (let i = 0; i < names.size; i++) if ((lengths[i] = names.lengthAt(i)) > longest) longest = lengths[i]!
    catalogues.set(names, (catalogue = { names, ...groupBy(lengths, longest + 1), groups: [] }))
  }
  return catalogue
}

function lengthGroup(catalogue: NameCatalogue, length: number): LengthGroup {
  let group = catalogue.groups[length]
  if (!group) {
    const from = catalogue.starts[length]!
    const size = catalogue.starts[length + 1]! - from
    group = { once: new Uint32Array(size), twice: new Uint32Array(size), ascii: new Uint8Array(size) }
    for (let k = 0; k < size; k++) {
      const name = catalogue.names.at(catalogue.order[from + k]!)
      if (!isAscii(name)) continue
      group.ascii[k] = 1
      ;[group.once[k], group.twice[k]] = charClasses(name)
    }
    catalogue.groups[length] = group
  }
  return group
}

function prefixGroups(catalogue: NameCatalogue): PrefixGroups {
  if (!catalogue.prefixes) {
    const { names } = catalogue
    const keys = new Int32Array(names.size)
    const exotic: number[] = []
    for (let i = 0; i < names.size; i++) {
      if (names.lengthAt(i) < 2) {
        keys[i] = -1
        continue
      }
      keys[i] = prefixKeyOf(names.codeAt(i, 0), names.codeAt(i, 1))
      if (keys[i]! < 0) exotic.push(i)
    }
    catalogue.prefixes = { ...groupBy(keys, PREFIX_KEYS), exotic }
  }
  return catalogue.prefixes
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
  return text.length < 2 ? -1 : prefixKeyOf(text.charCodeAt(0), text.charCodeAt(1))
}

/** `prefixKey` of a string beginning with these two code units. */
function prefixKeyOf(first: number, second: number): number {
  const a = foldCase(first)
  const b = foldCase(second)
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
