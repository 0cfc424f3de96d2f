import { strict as assert } from 'node:assert'
import { openQueryContext, type QueryContext } from '../../src/core/query/context.js'
import { findDefinitions } from '../../src/core/query/def.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const warn = (): void => {}

const FILES = {
  'app/models.py': [
    'class User:',
    '    def save(self):',
    '        return 1',
    '',
    'class Order:',
    '    def save(self):',
    '        return 2',
    '',
    'def authenticate_user(name):',
    '    return User()',
    '',
  ].join('\n'),
  'app/views.py': ['from app.models import authenticate_user', '', 'def login(request):', '    return authenticate_user(request)', ''].join('\n'),
  'tests/test_models.py': ['def authenticate_user(name):', '    return None', ''].join('\n'),
  'lib/util.c': ['int helper(int x);', '', 'int helper(int x) {', '  return x + 1;', '}', ''].join('\n'),
  'lib/proto.c': ['int helper(int x);', 'int use(void) { return helper(2); }', ''].join('\n'),
}

describe('def', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let qctx: QueryContext
  before(async () => {
    repo = createGitRepo({ files: FILES })
    qctx = await openQueryContext(repo.dir, { warn })
  })
  after(() => repo?.cleanup())

  const where = (symbol: string): string[] => findDefinitions(qctx, symbol).definitions.map((d) => `${d.path}:${d.line}:${d.qualifiedName}`)

  it('puts code before tests for a bare name', () => {
    assert.deepEqual(where('authenticate_user'), ['app/models.py:9:authenticate_user', 'tests/test_models.py:1:authenticate_user'])
  })

  it('resolves Class.method, module.name and path:name exactly', () => {
    assert.deepEqual(where('Order.save'), ['app/models.py:6:Order.save'])
    assert.deepEqual(where('app.models.User.save'), ['app/models.py:2:User.save'])
    assert.deepEqual(where('models.authenticate_user'), ['app/models.py:9:authenticate_user'])
    assert.deepEqual(where('tests/test_models.py:authenticate_user'), ['tests/test_models.py:1:authenticate_user'])
  })

  it('ranks a qualified match above bare-name matches', () => {
    assert.deepEqual(where('User.save').slice(0, 1), ['app/models.py:2:User.save'])
    assert.deepEqual(where('save'), ['app/models.py:2:User.save', 'app/models.py:6:Order.save'])
  })

  it('ranks a definition above a prototype in another file', () => {
    assert.deepEqual(where('helper'), ['lib/util.c:3:helper', 'lib/proto.c:1:helper'])
  })

  it('returns the full contract shape', () => {
    const result = findDefinitions(qctx, 'Order.save')
    assert.deepEqual(result.definitions, [{ name: 'save', qualifiedName: 'Order.save', kind: 'method', path: 'app/models.py', line: 6, endLine: 7, signature: 'def save(self)' }])
    assert.equal(result.total, 1)
    assert.equal(result.suggestions, undefined)
    assert.equal(result.freshness.treeHash, repo.git('rev-parse', 'HEAD^{tree}'))
  })

  it('suggests close names for an unknown symbol', () => {
    const result = findDefinitions(qctx, 'authenticate_usr')
    assert.deepEqual(result.definitions, [])
    assert.deepEqual(result.suggestions, ['authenticate_user'])
    assert.deepEqual(findDefinitions(qctx, 'Authenticate').suggestions, ['authenticate_user'])
  })

  it('sees uncommitted edits', async () => {
    repo.write({ 'app/extra.py': 'def fresh_thing():\n    pass\n' })
    const dirty = await openQueryContext(repo.dir, { warn })
    assert.deepEqual(findDefinitions(dirty, 'fresh_thing').definitions.map((d) => d.path), ['app/extra.py'])
  })
})
