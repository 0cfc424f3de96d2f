import { STRING_SEPARATOR } from './strings.js'

/**
 * A table's distinct defined names (SymbolTable.definedNames), read by position. A stored table's
 * stay the one NUL-joined string of its names block, each name sliced out when read: split into
 * strings of their own, Linux's 4 M names cost a cold `def` miss 0.45 s (most of it the collector)
 * and some 400 MB, where the miss reads a few lengths of them.
 */
export interface NameList extends Iterable<string> {
  readonly size: number
  at(i: number): string
  lengthAt(i: number): number
  /** The UTF-16 code unit `k` of name `i` (k below its length). */
  codeAt(i: number, k: number): number
}

export function nameListOf(names: readonly string[]): NameList {
  return {
    size: names.length,
    at: (i) => names[i]!,
    lengthAt: (i) => names[i]!.length,
    codeAt: (i, k) => names[i]!.charCodeAt(k),
    [Symbol.iterator]: () => names[Symbol.iterator](),
  }
}

/** The names of `joined`, separated by STRING_SEPARATOR ('' holds none). */
export function joinedNameList(joined: string): NameList {
  return new JoinedNames(joined)
}

/**
 * `base` less the names in `removed`, then `added`, without reading every name out of `base`: only
 * those as long as a removed one are compared (a table laid over removes a few names, and its
 * stored list is Linux's 4 M). Positions of kept names are listed only when some are removed.
 */
export function editedNameList(base: NameList, removed: ReadonlySet<string>, added: readonly string[]): NameList {
  let kept: Uint32Array | undefined
  if (removed.size > 0) {
    const lengths = new Set([...removed].map((name) => name.length))
    const positions = new Uint32Array(base.size)
    let count = 0
    for (let i = 0; i < base.size; i++) if (!lengths.has(base.lengthAt(i)) || !removed.has(base.at(i))) positions[count++] = i
    kept = positions.subarray(0, count)
  }
  const keptCount = kept ? kept.length : base.size
  const position = (i: number): number => (kept ? kept[i]! : i)
  const list: NameList = {
    size: keptCount + added.length,
    at: (i) => (i < keptCount ? base.at(position(i)) : added[i - keptCount]!),
    lengthAt: (i) => (i < keptCount ? base.lengthAt(position(i)) : added[i - keptCount]!.length),
    codeAt: (i, k) => (i < keptCount ? base.codeAt(position(i), k) : added[i - keptCount]!.charCodeAt(k)),
    *[Symbol.iterator]() {
      for (let i = 0; i < list.size; i++) yield list.at(i)
    },
  }
  return list
}

class JoinedNames implements NameList {
  /** Where each name ends in `joined`; the next starts one past it. */
  private readonly ends: Uint32Array

  constructor(private readonly joined: string) {
    let count = joined === '' ? 0 : 1
    for (let at = joined.indexOf(STRING_SEPARATOR); at >= 0; at = joined.indexOf(STRING_SEPARATOR, at + 1)) count++
    this.ends = new Uint32Array(count)
    let i = 0
    for (let at = joined.indexOf(STRING_SEPARATOR); at >= 0; at = joined.indexOf(STRING_SEPARATOR, at + 1)) this.ends[i++] = at
    if (count > 0) this.ends[i] = joined.length
  }

  get size(): number {
    return this.ends.length
  }

  at(i: number): string {
    return this.joined.slice(this.startOf(i), this.ends[i])
  }

  lengthAt(i: number): number {
    return this.ends[i]! - this.startOf(i)
  }

  codeAt(i: number, k: number): number {
    return this.joined.charCodeAt(this.startOf(i) + k)
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.ends.length; i++) yield this.at(i)
  }

  private startOf(i: number): number {
    return i === 0 ? 0 : this.ends[i - 1]! + 1
  }
}
