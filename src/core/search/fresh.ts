/**
 * The mutable tier of the index: postings appended file by file into flat typed arrays, in
 * document order (so each term's documents ascend), until sealed into a Segment.
 */
import { release } from '../release.js'
import { grow, MAX_TF, SegmentBuilder, type Segment } from './segment.js'
import { TermTable } from './terms.js'

/** FreshPostings as structured-clone data (see Bm25Index.handOff). */
export interface FreshParts {
  docBase: number
  terms: string[]
  postingTerms: Int32Array
  postingTfs: Uint8Array<ArrayBuffer>
  size: number
  docEnds: Int32Array
  docs: number
}

/** A term's share of the memory: its string, its place in the list and in the table's slots. */
const TERM_BYTES = 64

export class FreshPostings {
  readonly terms: TermTable
  postingTerms: Int32Array = new Int32Array(1024)
  postingTfs = new Uint8Array(1024)
  size = 0
  /** Postings of document docBase + k are [docEnds[k - 1] (0 for k = 0), docEnds[k]). */
  docEnds: Int32Array = new Int32Array(64)
  docs = 0

  constructor(readonly docBase: number, terms: string[] = []) {
    this.terms = new TermTable(terms)
  }

  static fromParts(parts: FreshParts): FreshPostings {
    const fresh = new FreshPostings(parts.docBase, parts.terms)
    fresh.postingTerms = parts.postingTerms
    fresh.postingTfs = parts.postingTfs
    fresh.size = parts.size
    fresh.docEnds = parts.docEnds
    fresh.docs = parts.docs
    return fresh
  }

  toParts(): FreshParts {
    const { docBase, postingTerms, postingTfs, size, docEnds, docs } = this
    return { docBase, terms: this.terms.terms, postingTerms, postingTfs, size, docEnds, docs }
  }

  /** About the memory these postings and their terms take, arrays as allocated. */
  get memoryBytes(): number {
    return this.postingTerms.byteLength + this.postingTfs.byteLength + this.docEnds.byteLength + TERM_BYTES * this.terms.size
  }

  add(term: number, tf: number): void {
    if (this.size === this.postingTerms.length) {
      // The arrays outgrown are most of a run's memory by then: freed at once (see core/release.ts).
      const { postingTerms, postingTfs } = this
      this.postingTerms = grow(postingTerms, this.size * 2)
      this.postingTfs = grow(postingTfs, this.size * 2)
      release(postingTerms)
      release(postingTfs)
    }
    this.postingTerms[this.size] = term
    this.postingTfs[this.size] = tf > MAX_TF ? MAX_TF : tf
    this.size++
  }

  endDoc(): void {
    if (this.docs === this.docEnds.length) this.docEnds = grow(this.docEnds, this.docs * 2)
    this.docEnds[this.docs++] = this.size
  }

  /** Frees these postings' memory now (see core/release.ts): they were sealed into a segment and are done with. */
  release(): void {
    release(this.postingTerms)
    release(this.postingTfs)
    release(this.docEnds)
    this.terms.release()
  }

  /**
   * Feeds every posting, under its new document id `remap[doc - from]` (tombstones, -1, are
   * dropped), to `visit`, with term ids translated by `termIds` when given.
   */
  each(from: number, remap: Int32Array, visit: (term: number, doc: number, tf: number) => void, termIds?: Int32Array): void {
    let posting = 0
    for (let k = 0; k < this.docs; k++) {
      const doc = remap[this.docBase + k - from]
      const end = this.docEnds[k]
      if (doc < 0) {
        posting = end
        continue
      }
      for (; posting < end; posting++) {
        const term = this.postingTerms[posting]
        visit(termIds ? termIds[term] : term, doc, this.postingTfs[posting])
      }
    }
  }
}

/** Seals the fresh postings alone into a segment of ids [from, docEnd), its terms `sorted` (see Segment) if asked. */
export function freshSegment(fresh: FreshPostings, from: number, remap: Int32Array, docEnd: number, sorted = false): Segment {
  const builder = new SegmentBuilder(fresh.terms.terms, from)
  fresh.each(from, remap, (term, doc) => builder.count(term, doc))
  builder.layout(sorted ? fresh.terms.sortedIds() : undefined)
  fresh.each(from, remap, (term, doc, tf) => builder.write(term, doc, tf))
  return builder.finish(docEnd)
}
