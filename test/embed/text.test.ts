import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { chunkHash, embeddingText, MAX_EMBEDDING_CHARS } from '../../src/core/embed/text.js'
import type { Chunk } from '../../src/core/parse/types.js'

function chunk(fields: Partial<Chunk>): Chunk {
  return {
    kind: 'method', name: 'login', qualifiedName: 'UserService.login', language: 'python', startLine: 10, endLine: 12,
    imports: '', classContext: '', signature: 'def login(self, user)', decorators: '', docstring: '', body: '', tokenCount: 0, ...fields,
  }
}

describe('embeddingText and chunkHash', () => {
  it('joins imports, class context and body', () => {
    const text = embeddingText(chunk({ imports: 'import hashlib', classContext: 'class UserService(Base):', body: 'def login(self, user):\n    return hashlib.sha1(user)' }))
    assert.equal(text, 'import hashlib\n\nclass UserService(Base):\n\ndef login(self, user):\n    return hashlib.sha1(user)')
    assert.equal(embeddingText(chunk({ body: 'def f(): pass' })), 'def f(): pass')
  })

  it('bounds long chunks, cutting the body at a line end', () => {
    const body = Array.from({ length: 2000 }, (_, i) => `line_${i} = ${i}`).join('\n')
    const text = embeddingText(chunk({ imports: 'import os\n'.repeat(300), classContext: 'class A:', body }))
    assert.ok(text.length <= MAX_EMBEDDING_CHARS, `${text.length} chars`)
    assert.ok(text.length > MAX_EMBEDDING_CHARS - 100)
    assert.match(text, /line_\d+ = \d+$/)
    assert.equal(text.split('import os').length - 1, 100, 'imports clipped to 1000 chars')
  })

  it('hashes the exact text with SHA-1', () => {
    assert.equal(chunkHash('abc'), createHash('sha1').update('abc').digest('hex'))
    assert.equal(chunkHash('abc'), 'a9993e364706816aba3e25717850c26c9cd0d89d')
  })
})
