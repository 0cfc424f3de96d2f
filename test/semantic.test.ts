import { strict as assert } from 'node:assert'
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { WarmIndex } from '../src/core/mcp/warm-index.js'
import { openQueryContext } from '../src/core/query/context.js'
import { searchCode } from '../src/core/query/search/index.js'
import { analyzeQuery } from '../src/core/search/index.js'
import { rankByCode } from '../src/core/semantic/code-view-path.js'
import { associationsPath, ASSOCIATIONS_RECORD_KIND, ASSOCIATIONS_RECORD_VERSION, learnInBackground, learningLockName } from '../src/core/semantic/model-store.js'
import { codeView, learnAssociations, prepareQuery, scoreCode, type DocumentedText } from '../src/core/semantic/term-associations.js'
import { acquireLock, readRecordSync } from '../src/core/store/index.js'
import { vltJson } from './helpers/cli.js'
import { createGitRepo, type GitFixture } from './helpers/git-fixture.js'
import { createIndexedRepo } from './query/search-fixture.js'

const warn = (): void => {}

/** An access check built on `grants`, long enough to be a chunk of its own. */
function check(action: string, docstring: string): string {
  return `def may_${action}(user, doc):
${docstring ? `    """${docstring}"""\n` : ''}    if user is None or doc is None:
        raise ValueError("an access check needs a user and a document")
    active = user.active and not doc.archived
    return active and grants(user, "${action}", doc)
`
}

/** What the access checks call. */
const ACL = 'def grants(user, action, doc):\n    return action in user.rights\n\n\ndef write_log(entry):\n    print(entry)\n'

/** Access checks documented in prose, the last one without a docstring, and a decoy that only talks about them. */
const ACCESS = [
  'from acl import grants, write_log\n',
  check('view', 'Whether the user is allowed to view the document.'),
  check('delete', 'Whether the user is allowed to delete the document.'),
  check('share', 'Whether the user is allowed to share the document with others.'),
  check('comment', 'Whether the user is allowed to comment on the document.'),
  `def note_publication(entry):
    """Remember in the audit trail that a user was allowed to publish a document."""
    if entry is None:
        raise ValueError("nothing to remember in the audit trail of publications")
    write_log(entry)
`,
  check('publish', ''),
].join('\n\n')

function chunk(name: string, signature: string, docstring: string, body: string): DocumentedText {
  return { name, signature, docstring, body: docstring ? body.replace(':\n', `:\n    ${docstring}\n`) : body }
}

describe('semantic: term associations', () => {
  const documented = [
    chunk('may_view', 'def may_view(user, doc)', '"""Whether the user is allowed to view it."""', 'def may_view(user, doc):\n    return grants(user, "view", doc)'),
    chunk('may_delete', 'def may_delete(user, doc)', '"""Whether the user is allowed to delete it."""', 'def may_delete(user, doc):\n    return grants(user, "delete", doc)'),
    chunk('may_share', 'def may_share(user, doc)', '"""Whether the user is allowed to share it."""', 'def may_share(user, doc):\n    return grants(user, "share", doc)'),
    chunk('render', 'def render(page)', '"""Draw the page as HTML."""', 'def render(page):\n    return template(page)'),
    chunk('undocumented', 'def undocumented(x)', '', 'def undocumented(x):\n    return grants(x)'),
  ]

  it('learns which code terms a prose word describes, from documented chunks only', () => {
    const model = learnAssociations(documented)
    assert.equal(model.pairs, 4)
    assert.deepEqual(model.words, model.words.slice().sort())
    const allow = model.words.indexOf('allow')
    const associated = new Map<string, number>()
    for (let k = model.starts[allow]!; k < model.starts[allow + 1]!; k++) associated.set(model.codeTerms[model.targets[k]!]!, model.strengths[k]!)
    assert.ok(associated.has('grant'), `allow → ${[...associated.keys()].join(' ')}`)
    // grants occurs in 3 documented chunks, each saying "allowed": 3 / (3 + smoothing 5).
    assert.ok(Math.abs(associated.get('grant')! - 3 / 8) < 1e-6)
    assert.ok(!associated.has('templat'), 'a term that never co-occurs twice is not associated')
  })

  it('reads code without its docstring, name and signature first', () => {
    const view = codeView(documented[0]!)
    assert.deepEqual(view.terms.slice(0, 4), ['may_view', 'may', 'view', 'user'])
    assert.ok(view.head.has('doc') && !view.head.has('grant'))
    assert.ok(!view.terms.includes('allow'), 'docstring words are not code')
  })

  it('scores code that a query word translates to above code it does not', () => {
    const model = learnAssociations(documented)
    const query = prepareQuery(model, analyzeQuery('allowed'))
    const withGrants = scoreCode(query, codeView(chunk('may_edit', 'def may_edit(u, d)', '', 'def may_edit(u, d):\n    return grants(u, d)')))
    const without = scoreCode(query, codeView(chunk('edit', 'def edit(u, d)', '', 'def edit(u, d):\n    return save(u, d)')))
    assert.ok(withGrants > 0 && without === 0, `${withGrants} vs ${without}`)
  })

  it('ranks an undocumented function above a documented one whose docstring only repeats the words', () => {
    const model = learnAssociations(documented)
    const candidates = [
      { path: 'audit.py', chunkIndex: 0, chunk: chunk('note_publication', 'def note_publication(entry)', '"""Remember that a user was allowed to publish a document."""', 'def note_publication(entry):\n    write_log(entry)') },
      { path: 'acl.py', chunkIndex: 0, chunk: chunk('may_publish', 'def may_publish(user, doc)', '', 'def may_publish(user, doc):\n    return grants(user, "publish", doc)') },
    ]
    const ranked = rankByCode(model, analyzeQuery('Whether the user is allowed to publish the document.'), candidates, (key) => candidates.find((c) => c.path === key.path)?.chunk)
    assert.deepEqual(ranked.map((hit) => hit.path), ['acl.py', 'audit.py'])
  })
})

describe('semantic: code view in search', function () {
  this.timeout(60_000)
  let repo: GitFixture
  before(async () => {
    repo = await createIndexedRepo({ 'acl.py': ACL, 'access.py': ACCESS })
  })
  after(() => repo?.cleanup())

  it('finds an undocumented function for its missing docstring, and keeps exact identifiers first', async () => {
    const qctx = await openQueryContext(repo.dir, { warn, noSync: true })
    const prose = await searchCode(qctx, 'Whether the user is allowed to publish the document.', { provider: null })
    assert.equal(prose.results[0]?.name, 'may_publish', prose.results.map((r) => r.name).join(' '))
    // Keyword search alone prefers the decoy, whose docstring repeats the query.
    const keyword = qctx.aggregates.bm25.search('Whether the user is allowed to publish the document.', { limit: 1 })[0]!
    assert.equal(qctx.artifact(keyword.path)?.chunks[keyword.chunkIndex]?.name, 'note_publication')
    assert.deepEqual(prose.results[0]?.methods, ['bm25'])
    const exact = await searchCode(qctx, 'note_publication', { provider: null })
    assert.equal(exact.results[0]?.name, 'note_publication')
  })

  it('stores the model once per tree, and rebuilds a damaged record with one warning', async () => {
    const query = 'Whether the user is allowed to publish the document.'
    const first = await openQueryContext(repo.dir, { warn, noSync: true })
    await searchCode(first, query, { provider: null })
    const path = associationsPath(first)
    assert.ok(existsSync(path))
    const stored = readRecordSync<{ pairs: number }>(path, ASSOCIATIONS_RECORD_KIND, ASSOCIATIONS_RECORD_VERSION)
    assert.equal(stored?.pairs, 5)

    const bytes = readFileSync(path)
    bytes[bytes.length - 10] ^= 0xff
    writeFileSync(path, bytes)
    const damaged = await openQueryContext(repo.dir, { warn, noSync: true })
    const rebuilt = await searchCode(damaged, query, { provider: null })
    assert.equal(rebuilt.warnings.length, 1)
    // Printed as `warning: …` by the command: the path's warning does not say it again.
    assert.match(rebuilt.warnings[0]!, /^\/.*term-associations\.mpk: checksum mismatch .*; rebuilt the term associations$/)
    assert.equal(rebuilt.results[0]?.name, 'may_publish')
    assert.equal((await searchCode(damaged, query, { provider: null })).warnings.length, 0, 'warned once per context')

    const next = await openQueryContext(repo.dir, { warn, noSync: true })
    assert.deepEqual((await searchCode(next, query, { provider: null })).warnings, [])
    assert.equal(readRecordSync<{ pairs: number }>(path, ASSOCIATIONS_RECORD_KIND, ASSOCIATIONS_RECORD_VERSION)?.pairs, 5)
  })

  it('is learned in a worker thread by a warm index, before any search asks for it', async () => {
    const path = associationsPath(await openQueryContext(repo.dir, { warn, noSync: true }))
    rmSync(path, { force: true })
    const warm = await WarmIndex.open(repo.dir, { warn })
    try {
      const qctx = await warm.get()
      for (let waited = 0; !existsSync(path); waited += 20) {
        assert.ok(waited < 20_000, 'the warm index never learned the model')
        await sleep(20)
      }
      await learnInBackground(qctx)
      assert.equal(readRecordSync<{ pairs: number }>(path, ASSOCIATIONS_RECORD_KIND, ASSOCIATIONS_RECORD_VERSION)?.pairs, 5)
      const stored = statSync(path).mtimeMs
      const prose = await searchCode(qctx, 'Whether the user is allowed to publish the document.', { provider: null })
      assert.equal(prose.results[0]?.name, 'may_publish')
      assert.equal(statSync(path).mtimeMs, stored, 'the search used the stored model')
    } finally {
      warm.close()
    }
  })

  it('leaves the learning to whoever holds the learning lock of the tree', async () => {
    const qctx = await openQueryContext(repo.dir, { warn, noSync: true })
    const path = associationsPath(qctx)
    rmSync(path, { force: true })
    const held = await acquireLock(qctx.index.paths.root, { name: learningLockName(qctx), waitMs: 0 })
    try {
      await learnInBackground(qctx)
      assert.equal(existsSync(path), false)
    } finally {
      held.release()
    }
    await learnInBackground(qctx)
    assert.equal(existsSync(path), true)
  })

  it('is learned by `coderag init`, so that the first prose search finds it stored', async () => {
    const fresh = createGitRepo({ files: { 'acl.py': ACL, 'access.py': ACCESS } })
    try {
      vltJson(fresh.dir, ['coderag', 'init'])
      const qctx = await openQueryContext(fresh.dir, { warn, noSync: true })
      assert.equal(readRecordSync<{ pairs: number }>(associationsPath(qctx), ASSOCIATIONS_RECORD_KIND, ASSOCIATIONS_RECORD_VERSION)?.pairs, 5)
    } finally {
      fresh.cleanup()
    }
  })
})
