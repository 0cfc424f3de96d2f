import { strict as assert } from 'node:assert'
import { startFakeEmbeddingsServer, type FakeEmbeddingsServer } from '../helpers/fake-embeddings-server.js'
import { vlt, vltJson } from '../helpers/cli.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile } from '../helpers/user-config.js'
import { createIndexedRepo } from './search-fixture.js'

describe('git vlt coderag search (built CLI)', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let server: FakeEmbeddingsServer
  before(async () => {
    repo = await createIndexedRepo()
    server = await startFakeEmbeddingsServer()
  })
  after(async () => {
    repo?.cleanup()
    await server?.close()
  })

  it('prints the JSON contract', () => {
    const out = vltJson(repo.dir, ['coderag', 'search', 'where do we check the password in authenticate_user', '--limit', '2', '--no-tests'])
    assert.deepEqual(Object.keys(out).sort(), ['freshness', 'query', 'results', 'warnings'])
    assert.equal(out.query, 'where do we check the password in authenticate_user')
    assert.deepEqual(out.freshness, { treeHash: repo.git('rev-parse', 'HEAD^{tree}'), stale: false })
    assert.deepEqual(out.warnings, [])
    assert.equal(out.results.length, 2)
    const { score, snippet, ...first } = out.results[0]
    assert.deepEqual(first, {
      path: 'app/auth/service.py', startLine: 9, endLine: 14, name: 'authenticate_user', qualifiedName: 'authenticate_user',
      kind: 'function', language: 'python', methods: ['symbol', 'bm25'],
    })
    assert.equal(typeof score, 'number')
    assert.match(snippet, /^def authenticate_user\(username, password\):\n/)
  })

  it('applies --lang, --path and --kind, and rejects bad values as usage errors', () => {
    const out = vltJson(repo.dir, ['coderag', 'search', 'session token', '--lang', 'typescript', '--path', 'web/src/*.ts', '--kind', 'class'])
    // The filters are the point here, not the order of the two classes.
    assert.deepEqual(out.results.map((r: { path: string; name: string }) => `${r.path}:${r.name}`).sort(), ['web/src/session.ts:Session', 'web/src/session.ts:SessionStore'])
    assert.equal(vlt(repo.dir, ['coderag', 'search', 'x', '--kind', 'widget']).status, 2)
    const badGlob = vlt(repo.dir, ['coderag', 'search', 'x', '--path', '../up'])
    assert.equal(badGlob.status, 2)
    assert.match(badGlob.stderr, /--path "\.\.\/up"/)
  })

  it('falls back when the embedding server times out: one warning on stderr, or in `warnings`', () => {
    server.script = () => ({ kind: 'hang' })
    const user = userConfigFile(`[embedding]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "fake-embed"\ntimeout_ms = 300\n`)
    try {
      const text = vlt(repo.dir, ['coderag', 'search', 'authenticate_user'], user.env)
      assert.equal(text.status, 0, text.stderr)
      assert.equal(text.stderr.match(/embeddings unavailable/g)?.length, 1, text.stderr)
      assert.match(text.stdout, /^ 1\. app\/auth\/service\.py:9-14  authenticate_user \(function\)/)
      const json = vltJson(repo.dir, ['coderag', 'search', 'authenticate_user'], user.env)
      assert.equal(json.warnings.length, 1)
      assert.match(json.warnings[0], /^embeddings unavailable \(timeout\)/)
      assert.equal(json.results[0].name, 'authenticate_user')
    } finally {
      user.cleanup()
    }
  })
})
