import { strict as assert } from 'node:assert'
import { writeFileSync } from 'node:fs'
import { vlt, vltJson, vltJsonAsync } from '../helpers/cli.js'
import { startFakeEmbeddingsServer } from '../helpers/fake-embeddings-server.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile } from '../helpers/user-config.js'

describe('notes commands', function () {
  this.timeout(30_000)
  let repo: GitFixture
  before(() => {
    repo = createGitRepo({
      files: {
        'README.md': '# Project\n\nRead [[Runbook]] first.\n',
        'docs/runbook.md': '---\ntags: [ops]\n---\n# Runbook\n\n## Restart\n\nRestart the indexer with a sync.\n',
      },
    })
  })
  after(() => repo.cleanup())

  it('search --json prints {query, results, freshness, warnings}', () => {
    const out = vltJson(repo.dir, ['notes', 'search', 'restart indexer', '--tag', 'ops'])
    assert.deepEqual(Object.keys(out).sort(), ['freshness', 'query', 'results', 'warnings'])
    assert.deepEqual(out.warnings, [])
    assert.deepEqual(out.results.map(({ score: _score, ...hit }: { score: number }) => hit), [
      { path: 'docs/runbook.md', methods: ['bm25'], heading: 'Runbook > Restart', startLine: 6, endLine: 8, snippet: 'Restart the indexer with a sync.', tags: ['ops'] },
    ])
    assert.equal(out.freshness.notes, 2)
    assert.equal(out.freshness.treeHash, repo.git('rev-parse', 'HEAD^{tree}'))
  })

  it('search adds the configured vector path, and warns once when the server fails', async () => {
    const server = await startFakeEmbeddingsServer({ dimensions: 16 })
    // A generous deadline while the server answers (a loaded machine is slow to), a short one once it hangs.
    const embedding = (timeoutMs: number) => `[embedding]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "fake-embed"\ntimeout_ms = ${timeoutMs}\n`
    const user = userConfigFile(embedding(10_000))
    try {
      const section = 'Runbook > Restart\n\n## Restart\n\nRestart the indexer with a sync.'
      const hybrid = await vltJsonAsync(repo.dir, ['notes', 'search', section], user.env)
      assert.deepEqual(hybrid.warnings, [])
      assert.deepEqual([hybrid.results[0].path, hybrid.results[0].startLine, hybrid.results[0].methods, hybrid.results[0].score], ['docs/runbook.md', 6, ['bm25', 'vector'], 1])

      server.script = () => ({ kind: 'hang' })
      writeFileSync(user.path, embedding(300))
      const fallback = await vltJsonAsync(repo.dir, ['notes', 'search', 'restart indexer'], user.env)
      assert.equal(fallback.warnings.length, 1)
      assert.match(fallback.warnings[0], /^embeddings unavailable \(timeout\): /)
      assert.deepEqual(fallback.results.map((hit: { path: string; methods: string[] }) => [hit.path, hit.methods]), [['docs/runbook.md', ['bm25']]])
    } finally {
      user.cleanup()
      await server.close()
    }
  })

  it('read --json prints the note with links and backlinks', () => {
    const out = vltJson(repo.dir, ['notes', 'read', 'docs/runbook.md'])
    assert.deepEqual(out, {
      path: 'docs/runbook.md',
      title: 'Runbook',
      tags: ['ops'],
      aliases: [],
      frontMatter: { tags: ['ops'] },
      headings: [{ level: 1, text: 'Runbook', line: 4 }, { level: 2, text: 'Restart', line: 6 }],
      links: [],
      backlinks: [{ path: 'README.md', line: 3, anchor: '', text: '' }],
      content: '---\ntags: [ops]\n---\n# Runbook\n\n## Restart\n\nRestart the indexer with a sync.\n',
    })
  })

  it('read refuses a path leaving the repository with exit code 2', () => {
    const run = vlt(repo.dir, ['notes', 'read', '../outside.md'])
    assert.equal(run.status, 2)
    assert.match(run.stderr, /git vlt: \.\.\/outside\.md: '\.\.' is not allowed/)
  })
})
