import assert from 'node:assert/strict'
import { FreshPostings, freshSegment } from '../../src/core/search/fresh.js'
import { release } from '../../src/core/release.js'
import { termCount, type Segment } from '../../src/core/search/segment.js'

function termsOf(segment: Segment): string[] {
  return Array.from({ length: termCount(segment) }, (_, t) => segment.termText.slice(segment.termOffsets[t], segment.termOffsets[t + 1]))
}

/** Fresh postings of three documents; `dropped` gets postings only in the second, which is removed. */
function fresh(): FreshPostings {
  const postings = new FreshPostings(0)
  const ids = ['zeta', 'Alpha', 'é', 'alpha', 'dropped', 'a10', 'a9'].map((term) => postings.terms.id(term))
  for (const [term, tf] of [[0, 1], [1, 2], [2, 1]]) postings.add(ids[term]!, tf!)
  postings.endDoc()
  postings.add(ids[4]!, 1)
  postings.endDoc()
  for (const [term, tf] of [[3, 1], [5, 3], [6, 1], [0, 2]]) postings.add(ids[term]!, tf!)
  postings.endDoc()
  return postings
}

describe('segments', () => {
  it('seals fresh postings for storing with their terms in code-unit order, the stored order', () => {
    const remap = Int32Array.from([0, -1, 1])
    const sorted = freshSegment(fresh(), 0, remap, 2, true)
    assert.equal(sorted.sorted, true)
    assert.deepEqual(termsOf(sorted), ['Alpha', 'a10', 'a9', 'alpha', 'zeta', 'é'])
    const unsorted = freshSegment(fresh(), 0, remap, 2)
    assert.equal(unsorted.sorted, false)
    assert.deepEqual(termsOf(unsorted), ['zeta', 'Alpha', 'é', 'alpha', 'a10', 'a9'])
    // The same postings either way: zeta's two documents, gaps from -1, tfs 1 and 2.
    const postingsOf = (segment: Segment, term: string): number[] => {
      const t = termsOf(segment).indexOf(term)
      const start = segment.postingStarts[t]!
      const end = segment.postingStarts[t + 1]!
      const bytes = segment.docBytes.subarray(segment.docByteStarts[t], segment.docByteStarts[t + 1])
      return [...bytes, ...segment.tfs.subarray(start, end)]
    }
    for (const term of ['zeta', 'a10', 'é']) assert.deepEqual(postingsOf(sorted, term), postingsOf(unsorted, term), term)
    assert.deepEqual(postingsOf(sorted, 'zeta'), [1, 1, 1, 2])
  })

  it('frees an array released, and fresh postings free the arrays they outgrow', () => {
    const array = new Int32Array(1 << 16)
    release(array)
    assert.equal(array.buffer.byteLength, 0)
    const postings = new FreshPostings(0)
    const first = postings.postingTerms
    const id = postings.terms.id('word')
    for (let k = 0; k <= first.length; k++) postings.add(id, 1)
    assert.equal(first.buffer.byteLength, 0, 'outgrown')
    assert.equal(postings.postingTerms[first.length], id)
  })
})
