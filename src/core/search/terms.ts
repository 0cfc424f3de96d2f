/**
 * Term dictionaries as open-addressing tables in typed arrays, probed with a hash computed over
 * the term's characters wherever they lie — inside a larger string, such as the space-separated
 * terms of AnalyzedChunks or a segment's packed term text — so lookups allocate no substring.
 */
import { release } from '../release.js'
import { codeUnitOrder } from './term-order.js'

const FNV_OFFSET = -2128831035
const FNV_PRIME = 16777619

export function hashOf(text: string, start: number, end: number): number {
  let hash = FNV_OFFSET
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME)
  return hash
}

/** text[start, end) equals other[otherStart, otherStart + end - start) (lengths already checked). */
export function sameChars(text: string, start: number, end: number, other: string, otherStart: number): boolean {
  for (let i = start, j = otherStart; i < end; i++, j++) if (text.charCodeAt(i) !== other.charCodeAt(j)) return false
  return true
}

/**
 * A copy of `text` that keeps no larger string alive. V8 represents a substring as a view of its
 * parent, and decoded msgpack strings are views of one string per record: a dictionary keeping
 * such views would pin every record (chunk text included) a new name came from.
 */
export function detached(text: string): string {
  return (' ' + text).slice(1)
}

/** A growable term → id dictionary; ids are dense, in insertion order. */
export class TermTable {
  /** Two ints per slot: hash, id + 1 (0 = empty). Load ≤ 1/2. */
  private slots: Int32Array

  /** A table holding `terms` (distinct) under their positions as ids. */
  constructor(readonly terms: string[] = []) {
    let size = 1 << 12
    while (size < terms.length * 4) size *= 2
    this.slots = new Int32Array(size)
    const mask = (size >> 1) - 1
    for (let id = 0; id < terms.length; id++) {
      const term = terms[id]!
      const hash = hashOf(term, 0, term.length)
      let slot = hash & mask
      while (this.slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask
      this.slots[2 * slot] = hash
      this.slots[2 * slot + 1] = id + 1
    }
  }

  get size(): number {
    return this.terms.length
  }

  id(term: string): number {
    return this.idAt(term, 0, term.length, hashOf(term, 0, term.length))
  }

  /** Id of the term text[start, end) whose hashOf is `hash`, added if new. */
  idAt(text: string, start: number, end: number, hash: number): number {
    const slots = this.slots
    const mask = (slots.length >> 1) - 1
    const length = end - start
    let slot = hash & mask
    for (;; slot = (slot + 1) & mask) {
      const entry = slots[2 * slot + 1]
      if (entry === 0) break
      if (slots[2 * slot] !== hash) continue
      const term = this.terms[entry - 1]
      if (term.length === length && sameChars(text, start, end, term, 0)) return entry - 1
    }
    const id = this.terms.length
    this.terms.push(detached(start === 0 && end === text.length ? text : text.slice(start, end)))
    slots[2 * slot] = hash
    slots[2 * slot + 1] = id + 1
    if (this.terms.length * 4 > slots.length) this.rehash()
    return id
  }

  /** The id of `term`, or -1. */
  find(term: string): number {
    const hash = hashOf(term, 0, term.length)
    const slots = this.slots
    const mask = (slots.length >> 1) - 1
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[2 * slot + 1]
      if (entry === 0) return -1
      if (slots[2 * slot] === hash && this.terms[entry - 1] === term) return entry - 1
    }
  }

  /** Every id, in code-unit order of its term (the stored order). */
  sortedIds(): Int32Array {
    return codeUnitOrder(this.terms)
  }

  /** Frees the lookup slots now (see core/release.ts): the table is done with. */
  release(): void {
    release(this.slots)
  }

  /** Ids of the space-separated terms of `text`. */
  idsOf(text: string): Int32Array {
    const n = text.length
    let count = n > 0 ? 1 : 0
    for (let i = 0; i < n; i++) if (text.charCodeAt(i) === 32) count++
    const ids = new Int32Array(count)
    for (let i = 0, t = 0; t < count; i++, t++) {
      const start = i
      let hash = FNV_OFFSET
      for (let c: number; i < n && (c = text.charCodeAt(i)) !== 32; i++) hash = Math.imul(hash ^ c, FNV_PRIME)
      ids[t] = this.idAt(text, start, i, hash)
    }
    return ids
  }

  private rehash(): void {
    const old = this.slots
    const slots = new Int32Array(old.length * 2)
    const mask = (slots.length >> 1) - 1
    for (let k = 0; k < old.length; k += 2) {
      if (old[k + 1] === 0) continue
      let slot = old[k] & mask
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask
      slots[2 * slot] = old[k]
      slots[2 * slot + 1] = old[k + 1]
    }
    release(old)
    this.slots = slots
  }
}
