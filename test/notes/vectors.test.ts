import { strict as assert } from 'node:assert'
import { DEFAULT_CONFIG } from '../../src/core/config/defaults.js'
import { createEmbeddingProvider, type EmbeddingProvider } from '../../src/core/embed/index.js'
import { findNotes, searchNotes } from '../../src/core/notes/index.js'
import { startFakeEmbeddingsServer, type FakeEmbeddingsServer } from '../helpers/fake-embeddings-server.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { withUserConfig } from '../helpers/user-config.js'

const STORAGE = '# Storage design\n\nWe keep records checksummed.\n\n## Layout\n\nObjects fan out by two hex digits.\n'
const DEPLOY = '# Deploy\n\nShip it on Fridays after the canary passes.\n'
const README = '# Project\n\nA tool that indexes repositories.\n'
/** What the vector path embeds for each section: its lines, nested ones after their heading path. */
const SECTION_TEXTS = [
  '# Project\n\nA tool that indexes repositories.',
  '# Deploy\n\nShip it on Fridays after the canary passes.',
  '# Storage design\n\nWe keep records checksummed.',
  'Storage design > Layout\n\n## Layout\n\nObjects fan out by two hex digits.',
]

/** The fake server's vectors are hashes of the text; a synonym is simulated by embedding the query as the text it means. */
function withSynonyms(provider: EmbeddingProvider, synonyms: Record<string, string>): EmbeddingProvider {
  return {
    id: provider.id,
    usage: provider.usage,
    embed: (texts, signal, onBatch) => provider.embed(texts.map((text) => synonyms[text] ?? text), signal, onBatch),
  }
}

describe('notes vector search', function () {
  this.timeout(30_000)
  let repo: GitFixture
  let server: FakeEmbeddingsServer
  beforeEach(async () => {
    repo = createGitRepo({ files: { 'README.md': README, 'docs/deploy.md': DEPLOY, 'docs/storage.md': STORAGE } })
    server = await startFakeEmbeddingsServer({ dimensions: 16 })
  })
  afterEach(async () => {
    await server.close()
    repo.cleanup()
  })

  const providerFor = (timeoutMs = 2000) =>
    createEmbeddingProvider({ ...DEFAULT_CONFIG.embedding, provider: 'openai', baseUrl: server.baseUrl, model: 'fake-embed', timeoutMs }, {}, { retry: { attempts: 1 } })!
  const embedded = (): string[] => server.requests.flatMap((request) => request.input)

  it('finds a section by meaning when none of the query words occur', async () => {
    const query = 'where do blobs live on disk'
    assert.deepEqual((await findNotes(repo.dir, query, { embedding: null })).results, [], 'no note has these words')
    const warnings: string[] = []
    const results = await searchNotes(repo.dir, query, { embedding: withSynonyms(providerFor(), { [query]: SECTION_TEXTS[3]! }), warn: (w) => warnings.push(w) })
    assert.deepEqual(warnings, [])
    assert.equal(results.length, 4, 'every section is some distance away')
    assert.deepEqual(
      { sourcePath: results[0]!.sourcePath, retrievalMethod: results[0]!.retrievalMethod, score: results[0]!.score, methods: results[0]!.metadata.methods },
      { sourcePath: 'docs/storage.md:5', retrievalMethod: 'vector', score: 1, methods: ['vector'] },
    )
    assert.deepEqual(results.map((r) => r.retrievalMethod), ['vector', 'vector', 'vector', 'vector'])
    assert.deepEqual([...embedded()].sort(), [...SECTION_TEXTS, SECTION_TEXTS[3]!].sort(), 'each section once, and the query')
  })

  it('fuses words and meaning: a section both find is hybrid and first', async () => {
    const found = await findNotes(repo.dir, SECTION_TEXTS[1]!, { embedding: providerFor() })
    assert.deepEqual(found.warnings, [])
    const [top] = found.results
    assert.deepEqual({ path: top!.path, startLine: top!.startLine, methods: top!.methods, score: top!.score }, { path: 'docs/deploy.md', startLine: 1, methods: ['bm25', 'vector'], score: 1 })
    assert.ok(found.results.slice(1).every((hit) => hit.score < 1))
    const [result] = await searchNotes(repo.dir, SECTION_TEXTS[1]!, { embedding: providerFor() })
    assert.equal(result!.retrievalMethod, 'hybrid')
  })

  it('embeds only sections never embedded before', async () => {
    await findNotes(repo.dir, 'canary', { embedding: providerFor() })
    assert.equal(embedded().length, SECTION_TEXTS.length + 1)
    await findNotes(repo.dir, 'checksums', { embedding: providerFor() })
    assert.deepEqual(embedded().slice(SECTION_TEXTS.length + 1), ['checksums'], 'only the query the second time')
    repo.write({ 'docs/deploy.md': `${DEPLOY}\n## Rollback\n\nRevert the tag.\n` })
    const before = embedded().length
    const found = await findNotes(repo.dir, 'Revert the tag', { embedding: providerFor() })
    assert.deepEqual(embedded().slice(before).sort(), ['Deploy > Rollback\n\n## Rollback\n\nRevert the tag.', 'Revert the tag'])
    assert.deepEqual(found.results[0]!.methods, ['bm25', 'vector'])
  })

  it('falls back to BM25 with one warning when the server fails', async () => {
    const keyword = await findNotes(repo.dir, 'records checksummed', { embedding: null })
    server.script = () => ({ kind: 'status', status: 500 })
    const seen: string[] = []
    const found = await findNotes(repo.dir, 'records checksummed', { embedding: providerFor(), warn: (w) => seen.push(w) })
    assert.equal(found.warnings.length, 1)
    assert.match(found.warnings[0]!, /^embeddings unavailable \(server\): .*500.*; using keyword search only$/)
    assert.deepEqual(seen, found.warnings, 'the warning is told once')
    assert.deepEqual(found.results, keyword.results)
    assert.deepEqual(found.results.map((hit) => hit.methods), [['bm25']])
  })

  it('uses the provider configured in the user config, and falls back when it times out', async () => {
    const embedding = (timeoutMs: number) => `[embedding]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "fake-embed"\ntimeout_ms = ${timeoutMs}\n`
    // A generous deadline while the server answers (a loaded machine is slow to), a short one once it hangs.
    await withUserConfig(embedding(10_000), async () => {
      const configured = await findNotes(repo.dir, SECTION_TEXTS[2]!)
      assert.deepEqual(configured.warnings, [])
      assert.deepEqual(configured.results[0]!.methods, ['bm25', 'vector'])
    })
    await withUserConfig(embedding(300), async () => {
      server.script = () => ({ kind: 'hang' })
      const started = Date.now()
      const warnings: string[] = []
      const results = await searchNotes(repo.dir, 'canary', { warn: (w) => warnings.push(w) })
      assert.ok(Date.now() - started < 5000)
      assert.equal(warnings.length, 1)
      assert.match(warnings[0]!, /^embeddings unavailable \(timeout\): .*; using keyword search only$/)
      assert.deepEqual(results.map((r) => [r.sourcePath, r.retrievalMethod]), [['docs/deploy.md:1', 'bm25']])
    })
  })
})
