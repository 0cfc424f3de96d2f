/**
 * The dictionary of fresh postings: every term a build adds (Linux 10k: 690k distinct among 3.6 M
 * looked up, one lookup per distinct term of each file). A TermTable keeps a string per term and
 * checks a match against it: three cache misses per lookup (slot, list, string) and two strings
 * allocated per new term. Here a term's characters lie in one pool of code units, preceded by their
 * length and id, and the slot points at them: two misses (slot, pool), nothing allocated. Strings
 * are made only when the postings are sealed or handed over (`list`).
 */
import { grow } from './segment.js'
import { FNV_OFFSET, FNV_PRIME, hashOf } from './terms.js'

/** Code units before a term's characters in the pool: length and id, each as two 16-bit halves. */
const HEADER = 4

export class TermPool {
  /** Two ints per slot: hash, pool offset of the term + 1 (0 = empty). Load ≤ 1/2. */
  private slots = new Int32Array(1 << 13)
  private pool = new Uint16Array(1 << 16)
  private used = 0
  /** Pool offset of each term, by id. */
  private offsets = new Int32Array(1 << 12)
  private count = 0

  /** A pool holding `terms` (distinct) under their positions as ids. */
  constructor(terms: readonly string[] = []) {
    for (const term of terms) this.id(term)
  }

  get size(): number {
    return this.count
  }

  id(term: string): number {
    return this.idAt(term, 0, term.length, hashOf(term, 0, term.length))
  }

  /** Id of the term text[start, end) whose hashOf is `hash`, added if new. */
  idAt(text: string, start: number, end: number, hash: number): number {
    const length = end - start
    const found = this.slotOf(text, start, length, hash)
    const entry = this.slots[2 * found + 1]
    if (entry !== 0) return this.idAtOffset(entry - 1)
    return this.add(text, start, length, hash, found)
  }

  /** The id of `term`, or -1. */
  find(term: string): number {
    const entry = this.slots[2 * this.slotOf(term, 0, term.length, hashOf(term, 0, term.length)) + 1]
    return entry === 0 ? -1 : this.idAtOffset(entry - 1)
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

  /** The terms by id, as strings. */
  list(): string[] {
    const terms = new Array<string>(this.count)
    for (let id = 0; id < this.count; id++) terms[id] = this.text(this.offsets[id]!)
    return terms
  }

  /** The slot holding the term text[start, start + length), or the empty slot where it belongs. */
  private slotOf(text: string, start: number, length: number, hash: number): number {
    const { slots, pool } = this
    const mask = (slots.length >> 1) - 1
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[2 * slot + 1]!
      if (entry === 0) return slot
      if (slots[2 * slot] !== hash) continue
      const at = entry - 1
      if ((pool[at]! | (pool[at + 1]! << 16)) !== length) continue
      let i = 0
      for (let p = at + HEADER; i < length && pool[p + i] === text.charCodeAt(start + i); ) i++
      if (i === length) return slot
    }
  }

  private idAtOffset(at: number): number {
    return this.pool[at + 2]! | (this.pool[at + 3]! << 16)
  }

  private add(text: string, start: number, length: number, hash: number, slot: number): number {
    const id = this.count++
    if (this.used + HEADER + length > this.pool.length) this.pool = grow(this.pool, Math.max(this.pool.length * 2, this.used + HEADER + length))
    if (id === this.offsets.length) this.offsets = grow(this.offsets, id * 2)
    const { pool } = this
    const at = this.used
    pool[at] = length & 0xffff
    pool[at + 1] = length >>> 16
    pool[at + 2] = id & 0xffff
    pool[at + 3] = id >>> 16
    for (let i = 0; i < length; i++) pool[at + HEADER + i] = text.charCodeAt(start + i)
    this.used = at + HEADER + length
    this.offsets[id] = at
    this.slots[2 * slot] = hash
    this.slots[2 * slot + 1] = at + 1
    if (this.count * 4 > this.slots.length) this.rehash()
    return id
  }

  private text(at: number): string {
    const length = this.pool[at]! | (this.pool[at + 1]! << 16)
    let text = ''
    // In pieces: a spread or apply of many arguments overflows the stack.
    for (let from = at + HEADER, end = from + length; from < end; from += TEXT_PIECE) {
      text += String.fromCharCode.apply(null, this.pool.subarray(from, Math.min(end, from + TEXT_PIECE)) as unknown as number[])
    }
    return text
  }

  private rehash(): void {
    const old = this.slots
    const slots = new Int32Array(old.length * 2)
    const mask = (slots.length >> 1) - 1
    for (let k = 0; k < old.length; k += 2) {
      if (old[k + 1] === 0) continue
      let slot = old[k]! & mask
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask
      slots[2 * slot] = old[k]!
      slots[2 * slot + 1] = old[k + 1]!
    }
    this.slots = slots
  }
}

const TEXT_PIECE = 4096
