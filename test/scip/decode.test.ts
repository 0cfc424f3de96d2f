import { strict as assert } from 'node:assert'
import { decodeScip, ROW } from '../../src/core/scip/decode.js'
import { confinedPath } from '../../src/core/scip/import.js'
import { ScipFormatError } from '../../src/core/scip/protobuf.js'
import { scipDocument, scipIndex } from './scip-encode.js'

const FOO = 'scip-typescript npm . . src/`a.ts`/foo().'

describe('scip decode', () => {
  it('reads documents, occurrences (packed and unpacked ranges), roles, tool and hovers', () => {
    const bytes = scipIndex('scip-fake', [
      scipDocument('src/a.ts', [{ range: [0, 16, 19], symbol: FOO, definition: true }, { range: [4, 2, 5, 1], symbol: FOO, unpacked: true }], { [FOO]: '```ts\nfunction foo(): number\n```' }),
    ])
    const decoded = decodeScip(bytes)
    assert.equal(decoded.tool, 'scip-fake 1.0')
    assert.deepEqual(decoded.symbols, [FOO])
    assert.deepEqual(decoded.documents, [{ path: 'src/a.ts', rows: [0, 16, 0, 19, 0, 1, 4, 2, 5, 1, 0, 0], encoding: 0 }], 'encoding 0: unspecified (scip-typescript leaves it out)')
    assert.equal(decoded.documents[0]!.rows.length, 2 * ROW)
    assert.equal(decoded.hovers.get(0), 'function foo(): number')
  })

  it('keeps the locals of two documents apart and merges a document streamed twice', () => {
    const decoded = decodeScip(
      scipIndex('t', [
        scipDocument('a.ts', [{ range: [0, 0, 1], symbol: 'local 0', definition: true }]),
        scipDocument('b.ts', [{ range: [0, 0, 1], symbol: 'local 0', definition: true }]),
        scipDocument('a.ts', [{ range: [1, 0, 1], symbol: 'local 0' }]),
      ]),
    )
    assert.deepEqual(decoded.documents.map((d) => [d.path, d.rows.filter((_, i) => i % ROW === 4)]), [['a.ts', [0, 0]], ['b.ts', [1]]])
  })

  it('refuses a truncated or garbled index with a ScipFormatError', () => {
    const bytes = scipIndex('t', [scipDocument('a.ts', [{ range: [0, 0, 1], symbol: FOO }])])
    for (const cut of [bytes.length - 1, bytes.length - 5, 3]) assert.throws(() => decodeScip(bytes.subarray(0, cut)), ScipFormatError, `cut at ${cut}`)
    assert.throws(() => decodeScip(Buffer.from('garbage\n')), ScipFormatError)
    assert.throws(() => decodeScip(scipIndex('t', [scipDocument('a.ts', [{ range: [0, 1], symbol: FOO }])])), /range of 2 numbers/)
  })

  it('confines document paths to the repository', () => {
    assert.equal(confinedPath('src/a.ts'), 'src/a.ts')
    assert.equal(confinedPath('./src//a.ts'), 'src/a.ts')
    for (const hostile of ['../outside.ts', 'src/../../x.ts', '/etc/passwd', 'a\\..\\b.ts', 'a\0b', '', '.', 'src/']) assert.equal(confinedPath(hostile), null, hostile)
  })
})
