/**
 * The order of terms by code unit (JavaScript's `<` on strings), as the stored layout writes them
 * (a segment sealed for storing lays its terms out so). Sorting the strings natively cost a BM25
 * run of Linux 10k about 0.4 s of the main thread; this sorts numbers instead: each term's first
 * characters and its index packed into one float, sorted natively, and only terms sharing those
 * characters compared as strings, a few at a time.
 */

/** Bits a character takes in a key: 0 = the term ended, 1..127 = an ASCII code below 127 plus one, 128 = any other. */
const CHAR_BITS = 8
const OTHER_CHAR = 128
/** A float holds integers exactly up to 2^53. */
const EXACT_BITS = 53

/** Indexes of `terms` (distinct) in code-unit order of the terms. */
export function codeUnitOrder(terms: readonly string[]): Int32Array {
  const count = terms.length
  let indexBits = 1
  while (2 ** indexBits < count) indexBits++
  const keyChars = Math.floor((EXACT_BITS - indexBits) / CHAR_BITS)
  const scale = 2 ** indexBits
  const keys = new Float64Array(count)
  for (let t = 0; t < count; t++) keys[t] = prefixKey(terms[t]!, keyChars) * scale + t
  keys.sort()
  const order = new Int32Array(count)
  const tied: number[] = []
  let groupStart = 0
  let groupPrefix = -1
  const sortGroup = (end: number): void => {
    if (end - groupStart < 2) return
    tied.length = 0
    for (let k = groupStart; k < end; k++) tied.push(order[k]!)
    tied.sort((a, b) => (terms[a]! < terms[b]! ? -1 : 1))
    order.set(tied, groupStart)
  }
  for (let k = 0; k < count; k++) {
    const index = keys[k]! % scale
    const prefix = (keys[k]! - index) / scale
    if (prefix !== groupPrefix) {
      sortGroup(k)
      groupStart = k
      groupPrefix = prefix
    }
    order[k] = index
  }
  sortGroup(count)
  return order
}

/**
 * The first `chars` characters of `term` as a number that never orders two terms against their
 * code-unit order (equal keys are left to a comparison). A character from 127 up counts as one
 * value and ends the key there, since two such characters may differ while their values do not.
 */
function prefixKey(term: string, chars: number): number {
  let key = 0
  let ended = false
  for (let i = 0; i < chars; i++) {
    let value = 0
    if (!ended && i < term.length) {
      const code = term.charCodeAt(i)
      if (code < OTHER_CHAR - 1) value = code + 1
      else {
        value = OTHER_CHAR
        ended = true
      }
    } else ended = true
    key = key * 2 ** CHAR_BITS + value
  }
  return key
}
