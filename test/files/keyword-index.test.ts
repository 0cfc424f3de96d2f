import assert from 'node:assert/strict'
import { KeywordIndex } from '../../src/core/files/keyword-index.js'

const present = (index: KeywordIndex, text: string): string[] => [...index.present(text)].sort()

describe('KeywordIndex', () => {
  const index = new KeywordIndex(['linkedin', 'key', 'api_key', 'sk-ant-', 'ey', 'token'])

  it('finds each keyword that occurs, in any ASCII case, also inside another or overlapping one', () => {
    assert.deepEqual(present(index, 'const API_KEY = 1'), ['api_key', 'ey', 'key'])
    assert.deepEqual(present(index, 'LinkedIn sk-sk-ant-x'), ['linkedin', 'sk-ant-'])
    assert.deepEqual(present(index, 'ttoken tokentoken'), ['token'])
  })

  it('reports no keyword whose pieces occur only apart', () => {
    // The hashed prefilter this replaced took the opening and closing four characters for the keyword.
    assert.deepEqual(present(index, 'link preceding tok en k-e-y'), [])
  })

  it('lets no other character stand in for a keyword character', () => {
    // Keywords are ASCII: a character whose low byte is an ASCII letter's (ŋ is U+014B, K is 0x4B) is not one.
    assert.deepEqual(present(index, 'ŋey tokeŋ'), ['ey'])
  })

  it('starts every scan afresh', () => {
    assert.deepEqual(present(index, 'token'), ['token'])
    assert.deepEqual(present(index, 'nothing here'), [])
  })

  it('rejects keywords it could not match as gitleaks does', () => {
    assert.throws(() => new KeywordIndex(['k']), /too short/)
    assert.throws(() => new KeywordIndex(['Key']), /lowercase ASCII/)
  })
})
