import assert from 'node:assert/strict'
import { analyzeChunks, analyzeQuery, FIELD_WEIGHTS } from '../../src/core/search/index.js'
import type { Chunk } from '../../src/core/parse/types.js'

function chunk(fields: Partial<Chunk>): Chunk {
  return {
    kind: 'function', name: '', qualifiedName: '', language: 'typescript', startLine: 1, endLine: 1,
    imports: '', classContext: '', signature: '', decorators: '', docstring: '', body: '', tokenCount: 0,
    ...fields,
  }
}

/** The chunk's terms with their weighted tfs. */
function termTfs(chunks: Chunk[], index = 0): Map<string, number> {
  const analyzed = analyzeChunks(chunks)
  const terms = analyzed.terms.split(' ')
  const doc = analyzed.docs[index]
  return new Map(doc.terms.map((t, i) => [terms[t], doc.tfs[i]]))
}

describe('analyze', () => {
  it('splits camelCase, PascalCase and digits, keeping the whole identifier', () => {
    assert.deepEqual(analyzeQuery('parseHTTPResponse2'), ['parsehttpresponse2', 'pars', 'http', 'respons', '2'])
    assert.deepEqual(analyzeQuery('XMLHttpRequest'), ['xmlhttprequest', 'xml', 'http', 'request'])
  })

  it('splits snake_case and kebab-case', () => {
    assert.deepEqual(analyzeQuery('get_user_pages'), ['get_user_pages', 'get', 'user', 'page'])
    // '-' separates tokens (it is subtraction in code), so kebab words arrive one by one.
    assert.deepEqual(analyzeQuery('max-line-length'), ['max', 'line', 'length'])
  })

  it('stems simple words and drops stopwords, keywords and one-letter tokens', () => {
    assert.deepEqual(analyzeQuery('Sizes sizes'), ['size'])
    assert.deepEqual(analyzeQuery('the return of self'), [])
    assert.deepEqual(analyzeQuery('x = i'), [])
    assert.deepEqual(analyzeQuery('__init__'), ['init'])
  })

  it('keeps numbers whole', () => {
    assert.deepEqual(analyzeQuery('0x1F 4096'), ['0x1f', '4096'])
  })

  it('weights fields: name ×5 (once for name and qualifiedName), signature ×3, docstring ×2, body ×1', () => {
    const tfs = termTfs([chunk({
      name: 'parseHeader',
      qualifiedName: 'Http.parseHeader',
      signature: 'parseHeader(raw: string)',
      docstring: 'Parses one header line.',
      body: 'parseHeader(raw: string) { return raw.split(":") }',
    })])
    const { name, signature, docstring, body } = FIELD_WEIGHTS
    assert.equal(tfs.get('parseheader'), name + signature + body)
    assert.equal(tfs.get('pars'), name + signature + docstring + body)
    assert.equal(tfs.get('header'), name + signature + docstring + body)
    assert.equal(tfs.get('http'), name)
    assert.equal(tfs.get('raw'), signature + 2 * body)
    assert.equal(tfs.get('line'), docstring)
    assert.equal(tfs.get('return'), undefined)
  })

  it("lists a blob's terms once and measures each chunk's weighted length", () => {
    const analyzed = analyzeChunks([
      chunk({ name: 'openFile', body: 'openFile(path)' }),
      chunk({ name: 'closeFile', body: 'closeFile(path)' }),
    ])
    const terms = analyzed.terms.split(' ')
    assert.equal(new Set(terms).size, terms.length)
    assert.equal(terms.filter((t) => t === 'file').length, 1)
    for (const doc of analyzed.docs) assert.equal(doc.length, doc.tfs.reduce((a, b) => a + b, 0))
    assert.equal(analyzed.docs[1].length, 3 * FIELD_WEIGHTS.name + 4 * FIELD_WEIGHTS.body)
  })
})
