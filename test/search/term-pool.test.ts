import assert from 'node:assert/strict'
import { TermPool } from '../../src/core/search/term-pool.js'

describe('TermPool', () => {
  it('numbers terms in order of first sight, finds them again and lists them as they were, across growth', () => {
    const pool = new TermPool()
    const terms = Array.from({ length: 40_000 }, (_, i) => `term${(i * 7919) % 40_000}`)
    terms.push('', 'é', '名前', '\u{1F600}', '\ud800lone', 'x'.repeat(10_000), 'x'.repeat(9_999))
    assert.deepEqual(terms.map((term) => pool.id(term)), terms.map((_, i) => i))
    assert.deepEqual(terms.map((term) => pool.id(term)), terms.map((_, i) => i))
    assert.equal(pool.size, terms.length)
    assert.deepEqual(pool.list(), terms)
    assert.deepEqual(['term7919', 'é', 'x'.repeat(9_999), 'term', 'termx', '\ud800', 'x'.repeat(10_001)].map((term) => pool.find(term)), [1, terms.indexOf('é'), terms.length - 1, -1, -1, -1, -1])
  })

  it('gives the ids of space-separated terms, adding the new ones', () => {
    const pool = new TermPool(['kmalloc', 'gfp'])
    assert.deepEqual(Array.from(pool.idsOf('gfp kfree kmalloc kfreex')), [1, 2, 0, 3])
    assert.deepEqual(Array.from(pool.idsOf('')), [])
    assert.deepEqual(pool.list(), ['kmalloc', 'gfp', 'kfree', 'kfreex'])
  })
})
