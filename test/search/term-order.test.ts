import assert from 'node:assert/strict'
import { codeUnitOrder } from '../../src/core/search/term-order.js'

/** What the stored layout must give: the terms as JavaScript's default sort orders them. */
function sortedAsStrings(terms: string[]): string[] {
  return [...terms].sort()
}

function ordered(terms: string[]): string[] {
  return Array.from(codeUnitOrder(terms), (index) => terms[index]!)
}

describe('codeUnitOrder', () => {
  it('orders terms as a string sort does: prefixes first, shared first characters, characters past ASCII', () => {
    const terms = [
      'kmalloc', 'kmalloc_array', 'kmal', 'km', 'k', 'kmalloc_node', 'kzalloc', 'kfree', '', 'KMALLOC', '~tilde', '\u007f', 'zz',
      // Characters from 127 up share one value in a key, so what follows them must not order the terms.
      '\u00e9b', '\u00e8z', '\u00e9a', 'x\u00e9z', 'x\u00e8a', 'x\u00e9', 'x\u00e9\u00e9', 'caf\u00e9', 'cafe', 'caf\u00e9s',
      '\u4e2d\u6587', '\u{1F600}a', '\u{1F600}', '\uffff', '\ud7ff',
    ]
    assert.deepEqual(ordered(terms), sortedAsStrings(terms))
  })

  it('orders many terms sharing long prefixes, in any order given', () => {
    const terms: string[] = []
    for (let i = 0; i < 20_000; i++) terms.push(`drv_${(i * 7919) % 20_000}_${i % 3 === 0 ? '\u00fc' : 'u'}${i}`)
    for (let i = 0; i < 5_000; i++) terms.push(String.fromCharCode(0x61 + (i % 26), 0x7e + (i % 5), 0x61 + ((i * 13) % 26)) + i)
    assert.deepEqual(ordered(terms), sortedAsStrings(terms))
    assert.deepEqual(ordered(terms.reverse()), sortedAsStrings(terms))
  })

  it('orders no terms and one term', () => {
    assert.deepEqual(ordered([]), [])
    assert.deepEqual(ordered(['only']), ['only'])
  })
})
