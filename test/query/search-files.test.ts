import { strict as assert } from 'node:assert'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DEFAULT_CONFIG } from '../../src/core/config/defaults.js'
import { createEmbeddingProvider } from '../../src/core/embed/index.js'
import { openQueryContext } from '../../src/core/query/context.js'
import { searchFiles } from '../../src/core/query/search/index.js'
import { vlt, vltJson } from '../helpers/cli.js'
import { startFakeEmbeddingsServer, type FakeEmbeddingsServer } from '../helpers/fake-embeddings-server.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/** Long enough that each function is a chunk of its own. */
function ledger(amount: string): string {
  const body = (name: string, doc: string, line: string) => `def ${name}(account, cents):\n    """${doc}"""\n${'    checked = account.check(cents)\n'.repeat(6)}    ${line}\n    return account.balance\n`
  return [body('post_entry', 'Adds a posting to the account.', `account.balance += ${amount}`), body('reverse_entry', 'Takes a posting back.', 'account.balance -= cents'), body('close_period', 'Closes the books of the account.', 'account.closed = True')].join('\n\n')
}

/**
 * A small shop whose history says where things happen: the code of `billing/ledger.py` never says
 * "invoice" or "rounding", but the commits that changed it do.
 */
function shopRepo(): GitFixture {
  const repo = createGitRepo()
  repo.write({
    'billing/ledger.py': ledger('cents'),
    'billing/tax.py': 'RATE = 0.2\n\n\ndef tax_of(cents):\n    return int(cents * RATE)\n',
    'web/views.py': 'def show_cart(request):\n    return render(request, "cart.html")\n',
    'tests/test_ledger.py': 'from billing.ledger import post_entry\n\n\ndef test_post():\n    assert post_entry\n',
  })
  repo.commit('Initial shop')
  repo.write({ 'billing/ledger.py': ledger('round(cents)') })
  repo.commit('Fix invoice rounding when posting partial payments')
  repo.write({ 'web/views.py': 'def show_cart(request):\n    return render(request, "cart.html", {"v": 2})\n' })
  repo.commit('Show the cart with the new template')
  return repo
}

describe('coderag search --files', function () {
  this.timeout(120_000)
  let repo: GitFixture
  before(() => {
    repo = shopRepo()
  })
  after(() => repo?.cleanup())

  it('prints the JSON contract: files with their chunks and supporting commits', () => {
    const out = vltJson(repo.dir, ['coderag', 'search', 'invoice rounding is wrong for partial payments', '--files', '--limit', '3'])
    assert.deepEqual(Object.keys(out).sort(), ['files', 'freshness', 'query', 'warnings'])
    assert.deepEqual(out.freshness, { treeHash: repo.git('rev-parse', 'HEAD^{tree}'), stale: false })
    const first = out.files[0]
    assert.deepEqual(Object.keys(first).sort(), ['chunks', 'commits', 'language', 'methods', 'path', 'score'])
    assert.equal(first.path, 'billing/ledger.py')
    assert.equal(first.language, 'python')
    assert.ok(first.methods.includes('history'), first.methods.join(','))
    assert.deepEqual(first.commits, [{ hash: repo.git('rev-parse', 'HEAD~1'), subject: 'Fix invoice rounding when posting partial payments', date: '2024-01-01T00:00:00.000Z', author: 'Fixture' }])
    assert.deepEqual(Object.keys(first.chunks[0]).sort(), ['endLine', 'kind', 'name', 'qualifiedName', 'snippet', 'startLine'])
    assert.equal(first.chunks[0].name, 'post_entry', 'the chunk the supporting commit changed')
    assert.ok(out.files.length <= 3)
  })

  it('prints files, chunks and commits as text', () => {
    const run = vlt(repo.dir, ['coderag', 'search', 'invoice rounding is wrong for partial payments', '--files', '--limit', '1'])
    assert.equal(run.status, 0, run.stderr)
    const lines = run.stdout.trimEnd().split('\n')
    assert.match(lines[0]!, /^1\. billing\/ledger\.py {2}\d\.\d{3} {2}\[.*history.*\]$/)
    assert.ok(lines.some((line) => /^ {3}\d+-\d+ {2}post_entry \(function\)$/.test(line)), run.stdout)
    assert.ok(lines.some((line) => new RegExp(`^ {3}${repo.git('rev-parse', '--short=10', 'HEAD~1')} 2024-01-01  Fix invoice rounding`).test(line)), run.stdout)
  })

  it('runs single paths with --paths and rejects bad uses as usage errors', () => {
    const history = vltJson(repo.dir, ['coderag', 'search', 'invoice rounding', '--files', '--paths', 'history'])
    assert.deepEqual(history.files.map((f: { path: string }) => f.path), ['billing/ledger.py'])
    assert.deepEqual(history.files[0].methods, ['history'])
    const code = vltJson(repo.dir, ['coderag', 'search', 'invoice rounding', '--files', '--paths', 'code'])
    assert.ok(code.files.every((f: { methods: string[]; commits: unknown[] }) => f.methods.join() === 'code' && f.commits.length === 0))
    for (const args of [['--files', '--paths', 'gossip'], ['--files', '--paths', 'cochange'], ['--paths', 'history'], ['--files', '--rerank', 'llm']]) {
      const run = vlt(repo.dir, ['coderag', 'search', 'invoice', ...args])
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`)
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
    }
  })

  it('uses no commit newer than HEAD: another branch, or commits after a checked-out older one', async () => {
    repo.git('checkout', '-q', '-b', 'other')
    repo.write({ 'web/views.py': 'def show_cart(request):\n    return render(request, "cart.html", {"v": 3})\n' })
    repo.commit('Fix the zanzibar discount in the cart view')
    repo.git('checkout', '-q', 'main')
    const query = 'zanzibar discount'
    const onMain = vltJson(repo.dir, ['coderag', 'search', query, '--files', '--paths', 'history'])
    assert.deepEqual(onMain.files, [], 'the other branch\'s commit votes for nothing')
    repo.git('checkout', '-q', 'other')
    assert.deepEqual(vltJson(repo.dir, ['coderag', 'search', query, '--files', '--paths', 'history']).files.map((f: { path: string }) => f.path), ['web/views.py'])
    repo.git('checkout', '-q', '--detach', 'main~2')
    const older = await searchFiles(await openQueryContext(repo.dir, { warn: () => {} }), 'invoice rounding partial payments', { paths: ['history'] })
    assert.deepEqual(older.files, [], 'the rounding fix came after this commit')
    repo.git('checkout', '-q', 'main')
  })

  it('coderag verify reads every commit pack and rebuilds a damaged one from git', () => {
    vlt(repo.dir, ['coderag', 'sync'])
    const packs = join(repo.dir, '.vlt', 'commits', 'packs')
    const [pack] = readdirSync(packs)
    const bytes = readFileSync(join(packs, pack!))
    bytes[bytes.length - 8] ^= 0xff
    writeFileSync(join(packs, pack!), bytes)
    const verified = vltJson(repo.dir, ['coderag', 'verify'])
    assert.deepEqual(verified.problems.map((p: { path: string; repaired: boolean }) => [p.path, p.repaired]), [[`.vlt/commits/packs/${pack}`, true]])
    assert.equal(verified.whole, true)
    assert.deepEqual(vltJson(repo.dir, ['coderag', 'verify']).problems, [])
  })

  it('reports the commit index in status and sync', () => {
    vlt(repo.dir, ['coderag', 'sync'])
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.deepEqual(Object.keys(status.commits).sort(), ['bytes', 'head', 'indexed', 'stale'])
    assert.equal(status.commits.indexed, 3)
    assert.equal(status.commits.head, repo.git('rev-parse', 'HEAD'))
    assert.ok(status.commits.bytes > 0)
    assert.equal(status.commits.stale, false)
    repo.write({ 'billing/tax.py': 'RATE = 0.25\n\n\ndef tax_of(cents):\n    return int(cents * RATE)\n' })
    repo.commit('Raise the tax rate')
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).commits.stale, true)
    const synced = vltJson(repo.dir, ['coderag', 'sync'])
    assert.deepEqual({ ...synced.commits, durationMs: 0 }, { indexed: 4, added: 1, dropped: 0, mode: 'incremental', durationMs: 0 })
  })
})

describe('coderag search --files follows HEAD\'s history as it is rewritten, renamed and damaged', function () {
  this.timeout(120_000)
  let repo: GitFixture
  beforeEach(() => {
    repo = shopRepo()
  })
  afterEach(() => repo?.cleanup())
  const historyFiles = (query: string) => vltJson(repo.dir, ['coderag', 'search', query, '--files', '--paths', 'history']).files as Array<{ path: string; commits: Array<{ hash: string }> }>

  it('cites the rebased commits, never the ones a rebase rewrote', () => {
    repo.git('checkout', '-q', '-b', 'feature')
    repo.write({ 'web/views.py': 'def show_cart(request):\n    return render(request, "cart.html", {"v": 3})\n' })
    const before = repo.commit('Fix the zanzibar discount in the cart view')
    vlt(repo.dir, ['coderag', 'sync'])
    assert.deepEqual(historyFiles('zanzibar discount').map((f) => [f.path, f.commits.map((c) => c.hash)]), [['web/views.py', [before]]])
    repo.git('checkout', '-q', 'main')
    repo.write({ 'billing/tax.py': 'RATE = 0.25\n\n\ndef tax_of(cents):\n    return int(cents * RATE)\n' })
    repo.commit('Raise the tax rate for quokkas')
    repo.git('checkout', '-q', 'feature')
    repo.git('rebase', '-q', 'main')
    const after = repo.git('rev-parse', 'HEAD')
    assert.notEqual(after, before)
    const synced = vltJson(repo.dir, ['coderag', 'sync'])
    assert.deepEqual([synced.commits.mode, synced.commits.added, synced.commits.dropped, synced.commits.indexed], ['rebuilt', 2, 1, 5])
    assert.deepEqual(historyFiles('zanzibar discount').map((f) => [f.path, f.commits.map((c) => c.hash)]), [['web/views.py', [after]]])
    assert.deepEqual(historyFiles('quokkas tax rate').map((f) => f.path), ['billing/tax.py'], 'the commit rebased onto is in HEAD\'s history now')
  })

  it('votes for a file under its name today when older commits changed it under another', () => {
    vlt(repo.dir, ['coderag', 'sync'])
    const fix = repo.git('rev-parse', 'HEAD~1')
    repo.git('mv', 'billing/ledger.py', 'billing/journal.py')
    const rename = repo.commit('Rename the ledger to the journal')
    const synced = vltJson(repo.dir, ['coderag', 'sync'])
    assert.deepEqual([synced.commits.mode, synced.commits.added], ['incremental', 1])
    const files = historyFiles('invoice rounding partial payments')
    assert.deepEqual(files.map((f) => f.path), ['billing/journal.py'])
    assert.deepEqual(files[0]!.commits.map((c) => c.hash), [fix])
    assert.deepEqual(historyFiles('journal').map((f) => [f.path, f.commits.map((c) => c.hash)]), [['billing/journal.py', [rename]]])
  })

  it('answers from git with one warning when a commit pack is damaged, and is whole again after', () => {
    vlt(repo.dir, ['coderag', 'sync'])
    const packs = join(repo.dir, '.vlt', 'commits', 'packs')
    for (const pack of readdirSync(packs)) {
      const bytes = readFileSync(join(packs, pack))
      bytes[bytes.length >> 1] ^= 0xff
      writeFileSync(join(packs, pack), bytes)
    }
    const damaged = vlt(repo.dir, ['coderag', 'search', 'invoice rounding partial payments', '--files', '--paths', 'history'])
    assert.equal(damaged.status, 0, damaged.stderr)
    assert.match(damaged.stdout, /^1\. billing\/ledger\.py /)
    assert.equal(damaged.stderr.trim().split('\n').length, 1, damaged.stderr)
    assert.match(damaged.stderr, /\.vlt\/commits\/packs\/.*rebuilding it from git/)
    const again = vlt(repo.dir, ['coderag', 'search', 'invoice rounding partial payments', '--files', '--paths', 'history'])
    assert.deepEqual([again.status, again.stderr, again.stdout], [0, '', damaged.stdout])
  })
})

describe('coderag search --files: commit messages as vectors', function () {
  this.timeout(120_000)
  let repo: GitFixture
  let server: FakeEmbeddingsServer
  before(async () => {
    repo = shopRepo()
    // Only stopwords: BM25 cannot find this message, a vector of the same text can.
    repo.write({ 'billing/tax.py': 'RATE = 0.21\n\n\ndef tax_of(cents):\n    return int(cents * RATE)\n' })
    repo.commit('It is as it was')
    server = await startFakeEmbeddingsServer({ dimensions: 16 })
  })
  after(async () => {
    repo?.cleanup()
    await server?.close()
  })

  const providerFor = () => createEmbeddingProvider({ ...DEFAULT_CONFIG.embedding, provider: 'openai', baseUrl: server.baseUrl, model: 'fake-embed' }, {}, { retry: { attempts: 1 } })

  it('finds past commits by message vector, embedding each message once', async () => {
    const qctx = await openQueryContext(repo.dir, { warn: () => {} })
    assert.deepEqual((await searchFiles(qctx, 'It is as it was', { paths: ['history'], provider: null })).files, [])
    const provider = providerFor()
    const found = await searchFiles(qctx, 'It is as it was', { paths: ['history'], provider })
    assert.deepEqual(found.warnings, [])
    assert.equal(found.files[0]!.path, 'billing/tax.py')
    assert.equal(found.files[0]!.commits[0]!.subject, 'It is as it was')
    const sent = server.requests.flatMap((request) => request.input)
    assert.equal(sent.filter((text) => text.startsWith('Fix invoice rounding')).length, 1, 'each message is embedded once')
    await searchFiles(await openQueryContext(repo.dir, { warn: () => {} }), 'rounding', { paths: ['history'], provider })
    assert.deepEqual(server.requests.slice(-1)[0]!.input, ['rounding'], 'later, only the query is embedded')
  })

  it('falls back to keyword similarity with one warning when the server fails', async () => {
    server.script = () => ({ kind: 'status', status: 500 })
    try {
      const qctx = await openQueryContext(repo.dir, { warn: () => {} })
      const response = await searchFiles(qctx, 'invoice rounding', { paths: ['history'], provider: providerFor() })
      assert.equal(response.warnings.length, 1)
      assert.match(response.warnings[0]!, /^embeddings unavailable \(server\): .*; using keyword similarity for past commits$/)
      assert.equal(response.files[0]!.path, 'billing/ledger.py')
    } finally {
      server.script = undefined
    }
  })
})
