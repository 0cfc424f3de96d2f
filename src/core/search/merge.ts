/**
 * Merges segments and fresh postings into one segment, renumbering documents and dropping
 * tombstones: how the tail absorbs new postings, and how the base is compacted.
 */
import type { FreshPostings } from './fresh.js'
import { eachPosting, SegmentBuilder, termCount, type Segment } from './segment.js'
import { hashOf, TermTable } from './terms.js'

/**
 * Segments must be given in document order and precede the fresh documents, so every term's
 * postings reach the builder in ascending order. `remap[doc - from]` is a document's new id,
 * -1 to drop it; the result holds ids [from, docEnd).
 */
export function mergeSegments(segments: Segment[], fresh: FreshPostings, from: number, remap: Int32Array, docEnd: number): Segment {
  const union = new TermTable()
  const segmentIds = segments.map((segment) => {
    const ids = new Int32Array(termCount(segment))
    for (let t = 0; t < ids.length; t++) {
      const start = segment.termOffsets[t]
      const end = segment.termOffsets[t + 1]
      ids[t] = union.idAt(segment.termText, start, end, hashOf(segment.termText, start, end))
    }
    return ids
  })
  const freshIds = Int32Array.from(fresh.terms.terms, (term) => union.id(term))
  const builder = new SegmentBuilder(union.terms, from)
  const feed = (visit: (term: number, doc: number, tf: number) => void): void => {
    segments.forEach((segment, s) => {
      const ids = segmentIds[s]
      for (let t = 0; t < ids.length; t++) {
        const term = ids[t]
        eachPosting(segment, t, (doc, tf) => {
          const id = remap[doc - from]
          if (id >= 0) visit(term, id, tf)
        })
      }
    })
    fresh.each(from, remap, visit, freshIds)
  }
  feed((term, doc) => builder.count(term, doc))
  builder.layout()
  feed((term, doc, tf) => builder.write(term, doc, tf))
  return builder.finish(docEnd)
}
