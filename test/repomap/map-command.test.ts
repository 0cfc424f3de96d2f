import { strict as assert } from 'node:assert'
import { vlt, vltJson } from '../helpers/cli.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { createShopRepo } from './shop-fixture.js'

describe('git vlt coderag map', function () {
  this.timeout(60_000)
  let repo: GitFixture
  before(async () => {
    repo = await createShopRepo()
  })
  after(() => repo?.cleanup())

  it('prints the JSON contract', () => {
    const out = vltJson(repo.dir, ['coderag', 'map', 'shop', '--tokens', '60', '--focus', 'refund'])
    assert.deepEqual(Object.keys(out).sort(), ['files', 'freshness', 'map', 'scope', 'symbolsIncluded', 'symbolsTotal', 'tokens'])
    assert.equal(out.scope, 'shop')
    assert.equal(out.symbolsTotal, 24)
    assert.ok(out.tokens <= 60 && out.tokens >= 48)
    assert.equal(out.map.split('\n')[0], 'shop/billing.py:')
    assert.deepEqual(Object.keys(out.freshness).sort(), ['overlayFiles', 'stale', 'treeHash'])
  })

  it('prints the map as text, and its size on stderr', () => {
    const run = vlt(repo.dir, ['coderag', 'map', 'web'])
    assert.equal(run.status, 0)
    assert.equal(run.stdout, 'web/handlers.py:\n  def create_order(request: dict) -> dict\n  def health(request: dict) -> dict\n')
    assert.match(run.stderr, /^\(2 of 2 symbols in 1 file\(s\), 24 of 1024 tokens\)$/m)
  })

  it('exits 2 for a scope with nothing indexed', () => {
    const run = vlt(repo.dir, ['coderag', 'map', 'nowhere'])
    assert.equal(run.status, 2)
    assert.equal(run.stderr, "git vlt: no indexed file under 'nowhere'\n")
  })
})
