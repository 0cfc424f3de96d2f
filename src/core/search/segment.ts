/**
 * An immutable slice of the inverted index: terms packed into one string, and for each term
 * its documents (delta + varint coded, ascending) with one byte of weighted tf each. Typed
 * arrays load in a memcpy; the term lookup table is rebuilt from the packed text at load
 * on the first query (tens of ms for 700k terms), which no Map would match.
 */
import { hashOf, sameChars } from './terms.js'

export interface Segment {
  /** Documents of this segment have ids in [docBase, docEnd). */
  docBase: number
  docEnd: number
  /** Term i is termText[termOffsets[i], termOffsets[i + 1]). Not sorted, unless `sorted`. */
  termText: string
  termOffsets: Uint32Array
  /** Term i's postings are postings [postingStarts[i], postingStarts[i + 1]) (df = difference). */
  postingStarts: Uint32Array
  /** Term i's doc gaps start at byte docByteStarts[i] of docBytes. */
  docByteStarts: Uint32Array
  docBytes: Uint8Array
  tfs: Uint8Array
  /**
   * Its terms are in code-unit order, the stored order (a seal for storing lays them out so):
   * storing walks them as they are, without a sorted copy of every term or a lookup table.
   */
  sorted?: boolean
  /**
   * Open addressing over terms by hashOf: term index + 1, 0 = empty. Derived, not stored, and
   * built on the first query: loading, patching and saving never look a term up.
   */
  termSlots?: Int32Array
}

/** Weighted tf is stored in a byte; BM25 saturates long before, so the cap changes no ranking. */
export const MAX_TF = 255

export function termCount(segment: Segment): number {
  return segment.termOffsets.length - 1
}

function termSlotsOf(termText: string, termOffsets: Uint32Array): Int32Array {
  const terms = termOffsets.length - 1
  let size = 16
  while (size < terms * 2) size *= 2
  const slots = new Int32Array(size)
  const mask = size - 1
  for (let t = 0; t < terms; t++) {
    let slot = hashOf(termText, termOffsets[t], termOffsets[t + 1]) & mask
    while (slots[slot] !== 0) slot = (slot + 1) & mask
    slots[slot] = t + 1
  }
  return slots
}

/** Index of `term` in the segment, or -1. */
export function findTerm(segment: Segment, term: string): number {
  const { termText, termOffsets } = segment
  const termSlots = (segment.termSlots ??= termSlotsOf(termText, termOffsets))
  const mask = termSlots.length - 1
  for (let slot = hashOf(term, 0, term.length) & mask; ; slot = (slot + 1) & mask) {
    const entry = termSlots[slot]
    if (entry === 0) return -1
    const start = termOffsets[entry - 1]
    const end = termOffsets[entry]
    if (end - start === term.length && sameChars(termText, start, end, term, 0)) return entry - 1
  }
}

/** Calls `visit(doc, tf)` for each posting of term `index`, in ascending doc order. */
export function eachPosting(segment: Segment, index: number, visit: (doc: number, tf: number) => void): void {
  const { docBytes, tfs } = segment
  let at = segment.docByteStarts[index]
  let doc = segment.docBase - 1
  const end = segment.postingStarts[index + 1]
  for (let p = segment.postingStarts[index]; p < end; p++) {
    let byte = docBytes[at++]
    let gap = byte & 0x7f
    for (let shift = 7; byte & 0x80; shift += 7) {
      byte = docBytes[at++]
      gap |= (byte & 0x7f) << shift
    }
    doc += gap
    visit(doc, tfs[p])
  }
}

/**
 * Builds a segment in two passes over the same postings, fed in any interleaving as long as each
 * term's documents ascend: `count` every posting, `layout()`, then `write` every posting again.
 * Sizes are exact, so postings go straight to their final place with no per-term lists.
 */
export class SegmentBuilder {
  /** Per term, interleaved so a posting touches one cache line: [last doc, df | next byte, bytes | next posting]. */
  private readonly state: Int32Array
  private kept: string[] = []
  private termOffsets = new Uint32Array(1)
  private postingStarts = new Uint32Array(1)
  private docByteStarts = new Uint32Array(1)
  private docBytes = new Uint8Array(0)
  private tfs = new Uint8Array(0)
  private sorted = false

  constructor(private readonly terms: readonly string[], private readonly docBase: number) {
    this.state = new Int32Array(3 * terms.length)
    for (let t = 0; t < terms.length; t++) this.state[3 * t] = docBase - 1
  }

  count(term: number, doc: number): void {
    const state = this.state
    const at = 3 * term
    const gap = doc - state[at]
    state[at] = doc
    state[at + 1]++
    state[at + 2] += gap < 0x80 ? 1 : gap < 0x4000 ? 2 : gap < 0x200000 ? 3 : gap < 0x10000000 ? 4 : 5
  }

  /**
   * Places terms in id order, or in `order` (every id once: TermTable.sortedIds gives the stored
   * order), leaving out those that got no posting.
   */
  layout(order?: Int32Array): void {
    const { state, terms } = this
    this.sorted = order !== undefined
    let kept = 0
    for (let t = 0; t < terms.length; t++) if (state[3 * t + 1] > 0) kept++
    this.kept = new Array(kept)
    this.termOffsets = new Uint32Array(kept + 1)
    this.postingStarts = new Uint32Array(kept + 1)
    this.docByteStarts = new Uint32Array(kept + 1)
    let index = 0
    let bytes = 0
    let postings = 0
    let textLength = 0
    for (let k = 0; k < terms.length; k++) {
      const t = order ? order[k] : k
      const df = state[3 * t + 1]
      if (df === 0) continue
      this.kept[index] = terms[t]
      this.termOffsets[index] = textLength
      this.postingStarts[index] = postings
      this.docByteStarts[index] = bytes
      textLength += terms[t].length
      const termBytes = state[3 * t + 2]
      state[3 * t] = this.docBase - 1
      state[3 * t + 1] = bytes
      state[3 * t + 2] = postings
      bytes += termBytes
      postings += df
      index++
    }
    this.termOffsets[index] = textLength
    this.postingStarts[index] = postings
    this.docByteStarts[index] = bytes
    this.docBytes = new Uint8Array(bytes)
    this.tfs = new Uint8Array(postings)
  }

  write(term: number, doc: number, tf: number): void {
    const { state, docBytes } = this
    const at = 3 * term
    let gap = doc - state[at]
    state[at] = doc
    let byte = state[at + 1]
    while (gap >= 0x80) {
      docBytes[byte++] = (gap & 0x7f) | 0x80
      gap >>>= 7
    }
    docBytes[byte++] = gap
    state[at + 1] = byte
    this.tfs[state[at + 2]++] = tf > MAX_TF ? MAX_TF : tf
  }

  finish(docEnd: number): Segment {
    const termText = this.kept.join('')
    return {
      docBase: this.docBase,
      docEnd,
      termText,
      termOffsets: this.termOffsets,
      postingStarts: this.postingStarts,
      docByteStarts: this.docByteStarts,
      docBytes: this.docBytes,
      tfs: this.tfs,
      sorted: this.sorted,
    }
  }
}

export function grow<T extends Uint8Array | Uint32Array | Int32Array>(array: T, size: number): T {
  const grown = new (array.constructor as new (n: number) => T)(size)
  grown.set(array)
  return grown
}
