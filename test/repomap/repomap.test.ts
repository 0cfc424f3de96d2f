import { strict as assert } from 'node:assert'
import { UsageError } from '../../src/core/errors.js'
import { openQueryContext, type QueryContext } from '../../src/core/query/context.js'
import { buildRepoMap, countTokens, defaultRepoMapTokens } from '../../src/core/repomap/index.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { createShopRepo, SHOP_FILES } from './shop-fixture.js'

const warn = (): void => {}
const fileLines = (map: string): string[] => map.split('\n').filter((line) => !line.startsWith(' '))

describe('repo map', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let qctx: QueryContext
  before(async () => {
    repo = await createShopRepo()
    qctx = await openQueryContext(repo.dir, { warn })
  })
  after(() => repo?.cleanup())

  it('puts the hub first: the class every service uses, then the database', () => {
    const map = buildRepoMap(qctx, { tokens: 100 })
    assert.deepEqual(map.map.split('\n').slice(0, 5), [
      'shop/money.py:',
      '  class Money',
      '    def times(self, factor: int) -> "Money"',
      'shop/db.py:',
      '  class Database',
    ])
  })

  it('nests methods under their class in source order and shows every definition when the budget allows', () => {
    const map = buildRepoMap(qctx, { tokens: 100_000 })
    assert.equal(map.symbolsIncluded, map.symbolsTotal)
    assert.equal(map.symbolsTotal, 86)
    assert.equal(map.files, Object.keys(SHOP_FILES).length)
    const billing = map.map.slice(map.map.indexOf('shop/billing.py:')).split('\n').slice(0, 6)
    assert.deepEqual(billing, [
      'shop/billing.py:',
      '  class Invoice',
      '    def __init__(self, order: Order)',
      '    def amount_due(self) -> Money',
      '  def bill(db: Database, order: Order) -> Invoice',
      '  def refund(db: Database, amount: Money) -> Money',
    ])
  })

  it('fills each budget without ever exceeding it', () => {
    for (const budget of [30, 50, 75, 100, 150, 250, 400, 700, 1000]) {
      const map = buildRepoMap(qctx, { tokens: budget })
      assert.equal(map.tokens, countTokens(map.map), `budget ${budget}`)
      assert.ok(map.tokens <= budget, `budget ${budget}: ${map.tokens} tokens`)
      assert.ok(map.tokens >= 0.8 * budget, `budget ${budget}: only ${map.tokens} tokens`)
    }
  })

  it('returns an empty map when not even one definition fits', () => {
    const map = buildRepoMap(qctx, { tokens: 3 })
    assert.deepEqual({ map: map.map, tokens: map.tokens, files: map.files, symbolsIncluded: map.symbolsIncluded }, { map: '', tokens: 0, files: 0, symbolsIncluded: 0 })
  })

  it('restricts the map to the scope', () => {
    const web = buildRepoMap(qctx, { scope: './web/' })
    assert.equal(web.scope, 'web')
    assert.equal(web.map, 'web/handlers.py:\n  def create_order(request: dict) -> dict\n  def health(request: dict) -> dict')
    assert.deepEqual([web.files, web.symbolsIncluded, web.symbolsTotal, web.tokens], [1, 2, 2, 24])

    const shop = buildRepoMap(qctx, { scope: 'shop', tokens: 120 })
    assert.deepEqual(fileLines(shop.map), ['shop/money.py:', 'shop/db.py:', 'shop/orders.py:', 'shop/catalog.py:', 'shop/billing.py:'])
    assert.equal(shop.symbolsTotal, 24)
  })

  it('leans the ranking towards the scope: what the scoped files use ranks first', () => {
    const plain = buildRepoMap(qctx, { tokens: 60 })
    const scoped = buildRepoMap(qctx, { scope: 'shop/', tokens: 60 })
    assert.ok(!plain.map.includes('class Order'))
    assert.ok(fileLines(plain.map).some((line) => line.startsWith('plugins/')))
    assert.deepEqual(fileLines(scoped.map), ['shop/money.py:', 'shop/db.py:', 'shop/orders.py:', 'shop/catalog.py:'])
  })

  it('boosts focus symbols and files, whatever their global rank', () => {
    assert.ok(!buildRepoMap(qctx, { tokens: 60 }).map.includes('refund'))
    const bySymbol = buildRepoMap(qctx, { tokens: 60, focus: ['refund'] })
    assert.equal(fileLines(bySymbol.map)[0], 'shop/billing.py:')
    assert.ok(bySymbol.map.split('\n').includes('  def refund(db: Database, amount: Money) -> Money'))

    const byFile = buildRepoMap(qctx, { tokens: 60, focus: ['web/handlers.py'] })
    assert.equal(fileLines(byFile.map)[0], 'web/handlers.py:')

    // A method brings its class along as context.
    const byMethod = buildRepoMap(qctx, { tokens: 40, focus: ['Invoice.amount_due'] })
    assert.deepEqual(byMethod.map.split('\n').slice(0, 3), ['shop/billing.py:', '  class Invoice', '    def amount_due(self) -> Money'])

    const byPath = buildRepoMap(qctx, { tokens: 40, focus: ['plugins/plugin_07.py:describe_rule_7'] })
    assert.equal(fileLines(byPath.map)[0], 'plugins/plugin_07.py:')
    assert.ok(byPath.map.split('\n').includes('  def describe_rule_7(rule: DiscountRule7) -> str'))
  })

  it('warns about a focus that names nothing and maps as without it', () => {
    const warnings: string[] = []
    const map = buildRepoMap(qctx, { tokens: 100, focus: ['no_such_thing'], warn: (message) => warnings.push(message) })
    assert.deepEqual(warnings, ["warning: focus 'no_such_thing' names no indexed file or symbol"])
    assert.equal(map.map, buildRepoMap(qctx, { tokens: 100 }).map)
  })

  it('is deterministic, cached or not', async () => {
    const again = await openQueryContext(repo.dir, { warn })
    for (const options of [{}, { tokens: 77 }, { scope: 'shop' }, { focus: ['Order.total', 'web/handlers.py'] }]) {
      assert.deepEqual(buildRepoMap(again, options), buildRepoMap(qctx, options))
      assert.deepEqual(buildRepoMap(qctx, options), buildRepoMap(qctx, options))
    }
  })

  it('answers in the JSON contract', () => {
    const map = buildRepoMap(qctx)
    assert.deepEqual(Object.keys(map).sort(), ['files', 'freshness', 'map', 'scope', 'symbolsIncluded', 'symbolsTotal', 'tokens'])
    assert.deepEqual(map.freshness, { treeHash: repo.git('rev-parse', 'HEAD^{tree}'), stale: false, overlayFiles: 0 })
    assert.equal(map.scope, null)
    assert.equal(defaultRepoMapTokens(qctx), map.tokens)
    assert.ok(map.tokens <= 1024 && map.tokens > 1000)
  })

  it('rejects a scope with no file and a budget that is not a positive integer', () => {
    assert.throws(() => buildRepoMap(qctx, { scope: 'nowhere' }), (error) => error instanceof UsageError && error.message === "no indexed file under 'nowhere'")
    assert.throws(() => buildRepoMap(qctx, { tokens: 0 }), UsageError)
    assert.throws(() => buildRepoMap(qctx, { tokens: 2.5 }), UsageError)
  })

  it('maps uncommitted edits', async () => {
    repo.write({ 'web/handlers.py': `${SHOP_FILES['web/handlers.py']}\n\ndef cancel_order(request: dict) -> dict:\n    return {"cancelled": True}\n` })
    try {
      const dirty = await openQueryContext(repo.dir, { warn })
      const web = buildRepoMap(dirty, { scope: 'web' })
      assert.equal(web.freshness.overlayFiles, 1)
      assert.equal(web.map, 'web/handlers.py:\n  def create_order(request: dict) -> dict\n  def health(request: dict) -> dict\n  def cancel_order(request: dict) -> dict')
    } finally {
      repo.git('checkout', '--', 'web/handlers.py')
    }
  })
})
