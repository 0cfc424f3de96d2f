import assert from 'node:assert/strict'
import { createExtractor, ParseLimitExceeded, wasmMemoryBytes, type Extractor } from '../../src/core/parse/index.js'
import { tagsQuery } from '../../src/core/parse/tags/query.js'
import { RawMatches } from '../../src/core/parse/tags/raw-matches.js'
import { withTree } from './tags-helpers.js'

/** About 150 KB of ordinary JavaScript: thousands of progress callbacks' worth of parsing. */
const LARGE = Array.from({ length: 2000 }, (_, i) => `function handler${i}(request) {\n  return request.items[${i}] + helper${i % 10}(request)\n}\n`).join('\n')
const SMALL = 'export function small() {\n  return 1\n}\n'

describe('parse limits (tree-sitter progress callbacks)', function () {
  this.timeout(30_000)
  let extractor: Extractor
  before(async () => {
    extractor = await createExtractor()
    await extractor.prepare('javascript')
  })

  it('abandons a parse past its deadline, and the parser starts the next file afresh', () => {
    assert.throws(() => extractor.extract(LARGE, 'javascript', { deadline: performance.now() - 1 }), (error: unknown) => error instanceof ParseLimitExceeded && error.bound === 'time')
    const next = extractor.extract(SMALL, 'javascript', { deadline: performance.now() + 60_000 })
    assert.deepEqual(next.symbols.map((s) => s.name), ['small'])
    assert.equal(next.parseErrors, 0)
  })

  it('abandons a parse whose wasm memory goes past its bound', () => {
    // The runtime holds what earlier parses grew it to; a source needing more than 1 MB beyond that must stop.
    const bound = wasmMemoryBytes() + 1024 * 1024
    const huge = LARGE.repeat(12)
    assert.throws(() => extractor.extract(huge, 'javascript', { maxWasmBytes: bound }), (error: unknown) => error instanceof ParseLimitExceeded && error.bound === 'memory')
  })

  it('parses within generous limits exactly as without them', () => {
    const limited = extractor.extract(LARGE, 'javascript', { deadline: performance.now() + 600_000, maxWasmBytes: 2 ** 31 })
    assert.deepEqual(limited, extractor.extract(LARGE, 'javascript'))
  })

  it('stops the tags query when its progress callback says so', async () => {
    await withTree('javascript', LARGE, (tree, grammar) => {
      const query = tagsQuery(grammar, 'javascript')
      const all = new RawMatches(query, tree, LARGE).count
      let calls = 0
      const stopped = new RawMatches(query, tree, LARGE, () => ++calls > 1).count
      assert.ok(calls > 1 && stopped < all, `stopped after ${calls} calls with ${stopped} of ${all} matches`)
      // The callback is the query's own: a query without one runs to the end again.
      assert.equal(new RawMatches(query, tree, LARGE).count, all)
    })
  })
})
