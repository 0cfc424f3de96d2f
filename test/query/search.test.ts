import { strict as assert } from 'node:assert'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DEFAULT_CONFIG } from '../../src/core/config/defaults.js'
import { createEmbeddingProvider, embeddingText } from '../../src/core/embed/index.js'
import { UsageError } from '../../src/core/errors.js'
import { openQueryContext, type QueryContext } from '../../src/core/query/context.js'
import { isTestPath, parseQuery, searchCode, type SearchResponse } from '../../src/core/query/search/index.js'
import { startFakeEmbeddingsServer, type FakeEmbeddingsServer } from '../helpers/fake-embeddings-server.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { withUserConfig } from '../helpers/user-config.js'
import { createIndexedRepo } from './search-fixture.js'

const warn = (): void => {}
const where = (response: SearchResponse): string[] => response.results.map((r) => `${r.path}:${r.qualifiedName || r.kind}`)

describe('search: query parsing', () => {
  it('finds identifiers in prose and leaves plain words to BM25', () => {
    assert.deepEqual(parseQuery('where do we check the password in authenticate_user').identifiers, ['authenticate_user'])
    assert.deepEqual(parseQuery('how does UserService.login open a session, e.g. with parseSessionCookie()').identifiers, ['UserService.login', 'parseSessionCookie'])
    assert.deepEqual(parseQuery('the `render` step and Foo::bar').identifiers, ['render', 'Foo::bar'])
    assert.deepEqual(parseQuery('kmalloc').identifiers, ['kmalloc'])
    assert.deepEqual(parseQuery('Password hashing with a salt').identifiers, [])
    assert.equal(parseQuery('the tests of login').mentionsTests, true)
    assert.equal(parseQuery('latest login').mentionsTests, false)
  })

  it('recognises test files of each ecosystem', () => {
    for (const path of ['tests/test_auth.py', 'app/test_models.py', 'pkg/server_test.go', 'web/src/api/client.test.ts', 'src/__tests__/a.js', 'src/FooTest.java', 'conftest.py']) {
      assert.equal(isTestPath(path), true, path)
    }
    for (const path of ['app/auth/service.py', 'src/latest.ts', 'attestation/sign.c', 'src/contest/entry.py']) assert.equal(isTestPath(path), false, path)
  })
})

describe('search: retrieval and ranking', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let qctx: QueryContext
  before(async () => {
    repo = await createIndexedRepo()
    qctx = await openQueryContext(repo.dir, { warn, noSync: true })
  })
  after(() => repo?.cleanup())

  it('ranks the definition of an identifier named in a prose query first', async () => {
    const response = await searchCode(qctx, 'where do we check the password in authenticate_user')
    const first = response.results[0]!
    assert.deepEqual(
      { path: first.path, startLine: first.startLine, endLine: first.endLine, name: first.name, kind: first.kind, language: first.language, methods: first.methods },
      { path: 'app/auth/service.py', startLine: 9, endLine: 14, name: 'authenticate_user', kind: 'function', language: 'python', methods: ['symbol', 'bm25'] },
    )
    assert.equal(first.snippet, 'def authenticate_user(username, password):\n    """Look the user up and check the password against the stored hash."""\n    user = find_user(username)\n    if user is None or not verify_password(password, user.password_hash):\n        raise AuthenticationError(username)')
    assert.ok(first.score > 1 && response.results[1]!.score < 1, 'the exact symbol hit is above every other result')
  })

  it('resolves Class.method and starts the snippet at the method', async () => {
    const response = await searchCode(qctx, 'how does UserService.login open a session')
    const first = response.results[0]!
    assert.equal(first.path, 'app/auth/service.py')
    assert.ok(first.startLine <= 23 && first.endLine >= 27, `${first.startLine}-${first.endLine} holds login`)
    assert.deepEqual(first.methods, ['symbol', 'bm25'])
    assert.equal(first.snippet.split('\n')[0], '    def login(self, username, password):')
  })

  it('expands to the callers and callees of a named symbol', async () => {
    const response = await searchCode(qctx, 'authenticate_user', { explain: true })
    const graph = response.explain!.paths.graph.map((hit) => `${hit.path}#${hit.chunkIndex} ${hit.reason}`)
    assert.ok(graph.includes('app/api/views.py#1 uses authenticate_user'), graph.join('\n'))
    assert.ok(graph.includes('app/auth/passwords.py#2 called by authenticate_user'), graph.join('\n'))
    const views = response.results.find((r) => r.path === 'app/api/views.py')!
    assert.deepEqual(views.methods, ['bm25', 'graph'])
    assert.equal(views.name, 'login_view')
    assert.equal(response.results[0]!.name, 'authenticate_user')
  })

  it('filters by language, path glob and kind', async () => {
    const typescript = await searchCode(qctx, 'session token', { language: 'typescript' })
    assert.ok(typescript.results.length >= 2)
    assert.deepEqual([...new Set(typescript.results.map((r) => r.language))], ['typescript'])

    const web = await searchCode(qctx, 'session', { path: 'web/src/*.ts' })
    assert.deepEqual([...new Set(web.results.map((r) => r.path))], ['web/src/session.ts'])
    const anyDepth = await searchCode(qctx, 'password', { path: '*.py', limit: 50 })
    assert.ok(anyDepth.results.every((r) => r.path.endsWith('.py')) && anyDepth.results.some((r) => r.path.startsWith('app/auth/')))

    const functions = await searchCode(qctx, 'password', { kind: 'function', limit: 50 })
    assert.deepEqual(new Set(functions.results.map((r) => r.kind)), new Set(['function']))
    assert.ok(functions.results.some((r) => r.name === 'verify_password'))

    await assert.rejects(searchCode(qctx, 'password', { path: '../outside' }), UsageError)
    await assert.rejects(searchCode(qctx, 'password', { limit: 0 }), UsageError)
    await assert.rejects(searchCode(qctx, '   '), UsageError)
  })

  it('demotes tests unless asked for, and excludes them with noTests', async () => {
    const demoted = await searchCode(qctx, 'authenticate_user wrong password', { explain: true, limit: 20 })
    const test = demoted.explain!.rerank.find((d) => d.path === 'tests/test_auth.py' && d.chunkIndex === 1)!
    assert.equal(test.features.testFactor, 0.5)
    assert.ok(where(demoted).indexOf('tests/test_auth.py:test_authenticate_user_rejects_wrong_password') > where(demoted).indexOf('app/auth/service.py:authenticate_user'))

    const asked = await searchCode(qctx, 'tests of authenticate_user wrong password', { explain: true, limit: 20 })
    assert.equal(asked.explain!.rerank.find((d) => d.path === 'tests/test_auth.py' && d.chunkIndex === 1)!.features.testFactor, undefined)

    const none = await searchCode(qctx, 'authenticate_user wrong password', { noTests: true, limit: 50 })
    assert.ok(none.results.length > 0)
    assert.deepEqual(none.results.filter((r) => r.path.startsWith('tests/') || r.path.endsWith('.test.ts')), [])
  })

  it('suppresses identical chunks in other files', async () => {
    const response = await searchCode(qctx, 'salted PBKDF2 hash of the password', { explain: true })
    const hashes = response.results.filter((r) => r.name === 'hash_password').map((r) => r.path)
    assert.equal(hashes.length, 1)
    const kept = `${hashes[0]}#1`
    const twin = response.explain!.rerank.find((d) => d.suppressedBy === kept)!
    assert.ok(twin, 'the copy is reported as suppressed')
    assert.notEqual(twin.path, hashes[0])
  })

  it('answers with exactly the contract keys', async () => {
    const response = await searchCode(qctx, 'retry with backoff', { limit: 3 })
    assert.deepEqual(Object.keys(response).sort(), ['freshness', 'query', 'results', 'warnings'])
    assert.deepEqual(Object.keys(response.freshness).sort(), ['stale', 'treeHash'])
    assert.deepEqual(response.freshness, { treeHash: repo.git('rev-parse', 'HEAD^{tree}'), stale: false })
    assert.deepEqual(response.warnings, [])
    assert.equal(response.results.length, 3)
    for (const result of response.results) {
      assert.deepEqual(Object.keys(result).sort(), ['endLine', 'kind', 'language', 'methods', 'name', 'path', 'qualifiedName', 'score', 'snippet', 'startLine'])
      assert.ok(result.snippet.split('\n').length <= 5)
    }
    assert.deepEqual(
      response.results.map(({ path, qualifiedName, methods }) => ({ path, qualifiedName, methods })),
      [
        { path: 'web/src/api/client.ts', qualifiedName: 'fetchWithRetry', methods: ['bm25'] },
        { path: 'web/src/api/client.ts', qualifiedName: 'ApiClient', methods: ['bm25'] },
        { path: 'web/src/api/client.test.ts', qualifiedName: '', methods: ['bm25'] },
      ],
    )
  })
})

describe('search: vector path', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let server: FakeEmbeddingsServer
  before(async () => {
    repo = await createIndexedRepo()
  })
  beforeEach(async () => {
    server = await startFakeEmbeddingsServer({ dimensions: 16 })
  })
  afterEach(() => server.close())
  after(() => repo?.cleanup())

  const providerFor = (timeoutMs = 2000) =>
    createEmbeddingProvider({ ...DEFAULT_CONFIG.embedding, provider: 'openai', baseUrl: server.baseUrl, model: 'fake-embed', timeoutMs }, {}, { retry: { attempts: 1 } })

  it('finds the chunk whose embedding is nearest, and embeds each chunk once', async () => {
    const qctx = await openQueryContext(repo.dir, { warn, noSync: true })
    const target = qctx.artifact('app/auth/passwords.py')!.chunks[2]!
    assert.equal(target.name, 'verify_password')
    const provider = providerFor()
    const response = await searchCode(qctx, embeddingText(target), { provider, explain: true })
    assert.deepEqual(response.warnings, [])
    const top = response.explain!.paths.vector[0]!
    assert.deepEqual({ path: top.path, chunkIndex: top.chunkIndex }, { path: 'app/auth/passwords.py', chunkIndex: 2 })
    assert.ok(Math.abs(top.score - 1) < 1e-5)
    assert.ok(response.results.find((r) => r.name === 'verify_password')!.methods.includes('vector'))
    const embedded = server.requests.flatMap((request) => request.input).length

    const again = await searchCode(await openQueryContext(repo.dir, { warn, noSync: true }), 'password hashing', { provider })
    assert.deepEqual(server.requests.slice(-1)[0]!.input, ['password hashing'], 'only the query is embedded the second time')
    assert.equal(server.requests.flatMap((request) => request.input).length, embedded + 1)
    assert.ok(again.results.some((r) => r.methods.includes('vector')))
  })

  it('rebuilds a damaged record of the tree\'s vectors from the vector cache, with one warning saying so', async () => {
    const provider = providerFor()
    const query = 'password hashing'
    const first = await searchCode(await openQueryContext(repo.dir, { warn, noSync: true }), query, { provider })
    assert.deepEqual(first.warnings, [])
    const dir = join(repo.dir, '.vlt', 'trees', repo.git('rev-parse', 'HEAD^{tree}'))
    // Each test's server listens on its own port, which is part of the provider's id: the record
    // just written is the newest of the tree's search-vectors files.
    const records = readdirSync(dir).filter((name) => name.startsWith('search-vectors-')).map((name) => join(dir, name))
    const record = records.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!
    const bytes = readFileSync(record)
    bytes[bytes.length >> 1]! ^= 0xff
    writeFileSync(record, bytes)
    const embedded = server.requests.flatMap((request) => request.input).length
    const again = await searchCode(await openQueryContext(repo.dir, { warn, noSync: true }), query, { provider })
    assert.equal(again.warnings.length, 1)
    assert.match(again.warnings[0]!, /search-vectors-.*\.mpk: checksum mismatch .*; rebuilt the search vectors from the vector cache$/)
    assert.deepEqual(again.results, first.results)
    assert.equal(server.requests.flatMap((request) => request.input).length, embedded + 1, 'only the query is embedded: the chunks come from the cache')
    assert.deepEqual((await searchCode(await openQueryContext(repo.dir, { warn, noSync: true }), query, { provider })).warnings, [], 'stored again')
  })

  it('falls back to the other paths with one warning when the server fails', async () => {
    const qctx = await openQueryContext(repo.dir, { warn, noSync: true })
    server.script = () => ({ kind: 'status', status: 500 })
    const response = await searchCode(qctx, 'where do we check the password in authenticate_user', { provider: providerFor() })
    assert.equal(response.warnings.length, 1)
    assert.match(response.warnings[0]!, /^embeddings unavailable \(server\): .*500.*; using keyword, symbol and graph search only$/)
    assert.equal(response.results[0]!.name, 'authenticate_user')
    assert.ok(response.results.every((r) => !r.methods.includes('vector')))
  })

  it('falls back when the configured server times out', async () => {
    await withUserConfig(`[embedding]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "fake-embed"\ntimeout_ms = 300\n`, async () => {
      server.script = () => ({ kind: 'hang' })
      const qctx = await openQueryContext(repo.dir, { warn, noSync: true })
      const started = Date.now()
      const response = await searchCode(qctx, 'session token')
      assert.ok(Date.now() - started < 5000)
      assert.deepEqual(response.warnings.map((w) => w.replace(/\(.*/, '')), ['embeddings unavailable '])
      assert.match(response.warnings[0]!, /\(timeout\)/)
      assert.ok(response.results.length > 0)
    })
  })
})
