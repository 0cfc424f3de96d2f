import { strict as assert } from 'node:assert'
import { findReferences, type Reference } from '../../src/core/query/refs.js'
import { vltJson } from '../helpers/cli.js'
import { indexedRepo } from '../helpers/indexed-repo.js'
import { INTERLEAVED_SYMBOL, interleavedUses } from './refs-fixture.js'

describe('refs pages', function () {
  this.timeout(90_000)
  const fx = indexedRepo(interleavedUses())

  it('holds at most --limit references and --limit ambiguous uses a page; the pages together are one unbounded page', () => {
    const whole = findReferences(fx.qctx, INTERLEAVED_SYMBOL, { limit: 100_000 })
    assert.equal(whole.cursor, undefined)
    assert.equal(whole.references.length, 18)
    assert.equal(whole.ambiguous?.length, 18)
    for (const limit of [1, 2, 5]) {
      const references: Reference[] = []
      const ambiguous: Reference[] = []
      let cursor: string | undefined
      let pages = 0
      let filledByAmbiguous = 0
      do {
        const page = findReferences(fx.qctx, INTERLEAVED_SYMBOL, { limit, cursor })
        const pageAmbiguous = page.ambiguous ?? []
        assert.ok(page.references.length <= limit && pageAmbiguous.length <= limit, `limit ${limit}, page ${pages}: ${page.references.length} references, ${pageAmbiguous.length} ambiguous`)
        assert.equal(page.mentions, whole.mentions)
        if (page.cursor && page.references.length < limit) filledByAmbiguous++
        references.push(...page.references)
        ambiguous.push(...pageAmbiguous)
        cursor = page.cursor
        pages++
      } while (cursor && pages < 100)
      assert.equal(cursor, undefined, `limit ${limit}: still paging after ${pages} pages`)
      assert.ok(filledByAmbiguous > 0, `limit ${limit}: no page ended on a full ambiguous list`)
      assert.deepEqual(references, whole.references, `limit ${limit}`)
      assert.deepEqual(ambiguous, whole.ambiguous, `limit ${limit}`)
    }
  })

  it('pages alike through the built CLI: --json pages concatenated are --limit 100000', () => {
    const refs = (...flags: string[]) => vltJson(fx.repo.dir, ['coderag', 'refs', INTERLEAVED_SYMBOL, '--json', ...flags])
    const whole = refs('--limit', '100000')
    const pages: any[] = []
    let cursor: string | undefined
    do {
      pages.push(refs('--limit', '4', ...(cursor ? ['--cursor', cursor] : [])))
      cursor = pages.at(-1).cursor
    } while (cursor && pages.length < 30)
    assert.ok(pages.every((page) => page.references.length <= 4 && (page.ambiguous ?? []).length <= 4))
    assert.deepEqual(pages.flatMap((page) => page.references), whole.references)
    assert.deepEqual(pages.flatMap((page) => page.ambiguous ?? []), whole.ambiguous)
  })
})
