import { strict as assert } from 'node:assert'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { askOracle } from '../../src/core/oracle/index.js'
import { appendEntry, createThread, readThread, threadNames } from '../../src/core/threads/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { createOracleRepo } from './fixture.js'

describe('askOracle (extractive, no LLM configured)', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let timeoutCommit: string
  before(() => {
    ;({ repo, timeoutCommit } = createOracleRepo())
  })
  after(() => repo.cleanup())

  it('answers a definition question with the exact definition lines first', async () => {
    const response = await askOracle(repo.dir, 'where is acquireLock defined', { noLog: true })
    assert.equal(response.queryType, 'definition')
    assert.equal(response.sources[0]!.sourcePath, 'src/lock.ts:4-10')
    assert.equal(response.sources[0]!.retrievalMethod, 'symbol')
    assert.match(response.sources[0]!.content, /^export function acquireLock\(path: string\): number \{/)
    assert.match(response.answer, /^`acquireLock` is defined at `src\/lock\.ts:4-10`/)
    assert.equal(response.model, 'extractive')
    const test = response.sources.find((s) => s.metadata.role === 'test')!
    assert.deepEqual([test.sourcePath, test.metadata.exercises], ['test/lock.test.ts:1-5', 'src/lock.ts:4-10'])
  })

  it('answers a references question with each use and its file:line', async () => {
    const response = await askOracle(repo.dir, 'where is acquireLock used', { noLog: true, sources: ['code'] })
    assert.equal(response.queryType, 'references')
    const uses = response.sources.filter((s) => s.metadata.role === 'reference')
    assert.deepEqual(
      uses.map((s) => [s.sourcePath, (s.metadata.references as Array<{ line: number }>).map((r) => r.line)]).sort(),
      [['src/store.ts:1-7', [1, 5]], ['test/lock.test.ts:1-6', [1, 4]]],
    )
  })

  it('cites code ranges as path:start-end, with blame, code before the note saying the same', async () => {
    const response = await askOracle(repo.dir, 'how are blob records written', { noLog: true })
    const top = response.sources[0]!
    assert.equal(top.sourcePath, 'src/store.ts:1-11')
    assert.match(response.answer, /^The strongest match is `src\/store\.ts:1-11`\. Found 1 code location, 1 note section, best first\./)
    assert.match(response.answer, /\n- `src\/store\.ts:1-11`\n  ```typescript\n  import \{ acquireLock \}/)
    assert.deepEqual((top.metadata.blame as Array<{ subject: string; lines: number }>).map((b) => [b.subject, b.lines]), [['initial', 11]])
    assert.ok(response.sources.some((s) => s.sourceType === 'vault' && s.sourcePath === 'docs/storage.md:1-3'))
    assert.notEqual(response.repoMapSlice, '')
    assert.match(response.repoMapSlice, /src\/store\.ts/)
  })

  it('says plainly that nothing was found, citing nothing, for a question the repository cannot answer', async () => {
    const response = await askOracle(repo.dir, 'What is the meaning of life?', { noLog: true })
    assert.deepEqual(response.sources, [])
    assert.equal(response.repoMapSlice, '')
    assert.match(response.answer, /^No relevant evidence found for "What is the meaning of life\?"/)
  })

  it('says first that a symbol the question names does not exist, with the nearest names, and labels the rest loosely related', async () => {
    const response = await askOracle(repo.dir, 'Where is LockService used?', { noLog: true })
    assert.deepEqual(response.missingSymbols, [{ name: 'LockService', nearest: ['acquireLock', 'LOCK_TIMEOUT_MS'] }])
    assert.match(
      response.answer,
      /^There is no `LockService` in this repository's code: no definition of it, and no reference to it\. Closest names: `acquireLock`, `LOCK_TIMEOUT_MS`\. What follows is only loosely related, found by the question's other words\./,
    )
    assert.doesNotMatch(response.answer, /strongest match/)

    const typo = await askOracle(repo.dir, 'where is acquireLocks defined', { noLog: true, sources: ['code'] })
    assert.deepEqual(typo.missingSymbols, [{ name: 'acquireLocks', nearest: ['acquireLock'] }])
    const far = await askOracle(repo.dir, 'Where is UserService used?', { noLog: true })
    assert.match(far.answer, /^There is no `UserService` in this repository's code: no definition of it, and no reference to it\. No defined name is close to it\./)

    // Half of it exists: the rest is evidence for that half.
    const half = await askOracle(repo.dir, 'does writeBlobRecord call acquireLockFast', { noLog: true, sources: ['code'] })
    assert.deepEqual(half.missingSymbols?.map((m) => m.name), ['acquireLockFast'])
    assert.match(half.answer, /What follows is the evidence for the rest of the question\./)
  })

  it('claims nothing missing for names the code defines or references, nor for prose words', async () => {
    for (const question of ['where is acquireLock used', 'where is the lock used?', 'how are blob records written', 'how does Kubernetes work']) {
      const response = await askOracle(repo.dir, question, { noLog: true, sources: ['code'] })
      assert.equal(response.missingSymbols, undefined, question)
    }
  })

  it('claims nothing missing for a name the code writes in a way the symbol index does not record', async () => {
    // A named function expression passed as an argument: no definition the tags queries recognise, yet in the code.
    const app = createGitRepo({ files: { 'lib/app.js': "exports.mount = function (router, path) {\n  router.use(path, function mounted_app(req, res, next) {\n    next()\n  })\n}\n" } })
    try {
      const response = await askOracle(app.dir, 'Where is mounted_app used?', { noLog: true, sources: ['code'] })
      assert.equal(response.missingSymbols, undefined)
      assert.doesNotMatch(response.answer, /There is no `mounted_app`/)
      const absent = await askOracle(app.dir, 'Where is mounted_router used?', { noLog: true, sources: ['code'] })
      assert.deepEqual(absent.missingSymbols?.map((m) => m.name), ['mounted_router'])
    } finally {
      app.cleanup()
    }
  })

  it('answers a history question with the commit that changed the symbol and its message', async () => {
    const response = await askOracle(repo.dir, 'why was LOCK_TIMEOUT_MS changed', { noLog: true, sources: ['code', 'git'] })
    assert.equal(response.queryType, 'history')
    const commits = response.sources.filter((s) => s.sourceType === 'git')
    assert.equal(commits[0]!.sourcePath, timeoutCommit)
    assert.match(commits[0]!.content, /NFS mounts are slow to release locks/)
    assert.match(response.answer, new RegExp(`most relevant commit is ${timeoutCommit.slice(0, 12)} \\(Raise LOCK_TIMEOUT_MS to 30 s\\)`))
  })

  it('answers a "where would I change" question with the files and the past commits behind them', async () => {
    const response = await askOracle(repo.dir, 'where would I change how long builds wait on slow NFS mounts', { noLog: true, sources: ['code', 'git'], explain: true })
    assert.equal(response.queryType, 'conceptual')
    const files = response.traces!.paths.find((path) => path.path === 'code:files')!
    assert.ok(files.results.some((result) => result.sourcePath.startsWith('src/lock.ts:')), files.results.map((r) => r.sourcePath).join(' '))
    const commit = response.sources.find((s) => s.sourceType === 'git')!
    assert.deepEqual([commit.sourcePath, commit.metadata.found, commit.metadata.files], [timeoutCommit, 'similar', ['src/lock.ts']])
    assert.match(commit.content, /NFS mounts are slow to release locks/)
    assert.ok(response.sources.some((s) => s.sourceType === 'code' && s.metadata.path === 'src/lock.ts'))
    const codeOnly = await askOracle(repo.dir, 'where would I change how long builds wait on slow NFS mounts', { noLog: true, sources: ['code'] })
    assert.ok(codeOnly.sources.every((s) => s.sourceType === 'code'), 'commits are cited only when git is a source')
  })

  it('gives the summary of the threads whose entries match as evidence too', async () => {
    const vltDir = join(repo.dir, '.vlt')
    await createThread(vltDir, { name: 'retry-policy', title: 'Retry policy' })
    await appendEntry(vltDir, 'retry-policy', { text: 'Retries back off exponentially, capped at 30 seconds.', type: 'decision', author: 'user' })
    await appendEntry(vltDir, 'retry-policy', { text: 'Idempotent requests only are retried.', type: 'decision', author: 'user' })
    try {
      const response = await askOracle(repo.dir, 'what did we decide about retries backing off', { noLog: true, sources: ['threads'] })
      const summary = response.sources.find((s) => s.sourcePath === 'retry-policy#summary')
      assert.ok(summary, JSON.stringify(response.sources.map((s) => s.sourcePath)))
      assert.match(summary.content, /Decisions[\s\S]*Idempotent requests only are retried\.[\s\S]*Retries back off exponentially/)
      assert.deepEqual({ generatedBy: summary.metadata.generatedBy, summary: summary.metadata.summary }, { generatedBy: 'extractive', summary: true })
      assert.match(response.answer, /`retry-policy#summary` — summary of the thread \(extractive\)/)
    } finally {
      rmSync(join(vltDir, 'threads', 'retry-policy.md'))
    }
  })

  it('consults only the sources asked for', async () => {
    const response = await askOracle(repo.dir, 'how are blob records written', { noLog: true, sources: ['vault'] })
    assert.deepEqual([...new Set(response.sources.map((s) => s.sourceType))], ['vault'])
    assert.equal(response.repoMapSlice, '')
  })

  it('names a source that is not initialised in the warnings and traces, without telling the user', async () => {
    // A repository that never set up threads is not a problem to report on every question.
    const told: string[] = []
    const response = await askOracle(repo.dir, 'how are blob records written', { noLog: true, sources: ['code', 'threads'], explain: true, warn: (message) => told.push(message) })
    assert.ok(response.warnings.includes('threads: skipped (not initialised)'), JSON.stringify(response.warnings))
    assert.deepEqual(response.traces!.paths.find((path) => path.path === 'threads'), { path: 'threads', results: [], note: 'not initialised' })
    assert.deepEqual(told.filter((message) => message.includes('not initialised')), [])
  })

  it('appends each question and answer to the day\'s session thread, unless told not to', async () => {
    const now = new Date().toISOString().slice(0, 10)
    await askOracle(repo.dir, 'where is acquireLock defined', { noLog: true })
    assert.deepEqual(await threadNames(`${repo.dir}/.vlt`), [])
    await askOracle(repo.dir, 'where is acquireLock defined', { author: 'alice' })
    const thread = await readThread(`${repo.dir}/.vlt`, `oracle-session-${now}`)
    assert.equal(thread.entries.length, 1)
    assert.equal(thread.entries[0]!.type, 'research')
    assert.equal(thread.entries[0]!.author, 'alice')
    assert.match(thread.entries[0]!.text, /^\*\*Q:\*\* where is acquireLock defined\n\n`acquireLock` is defined at `src\/lock\.ts:4-10`/)
  })
})

describe('askOracle: a symbol named among words that match nothing', function () {
  this.timeout(60_000)
  let repo: GitFixture
  before(() => {
    repo = createGitRepo({
      files: {
        'lib/context.py': 'class Context:\n    """Holds the state of one request."""\n\n    def __init__(self, request):\n        self.request = request\n',
        'lib/app.py': 'from lib.context import Context\n\n\ndef handle(request):\n    return Context(request)\n',
      },
    })
  })
  after(() => repo.cleanup())

  it('finds a capitalised word the code defines, whatever else the question says', async () => {
    for (const question of ['how does Context 45 work', 'how does Context work', 'Context flurbl?']) {
      const response = await askOracle(repo.dir, question, { noLog: true, sources: ['code'] })
      assert.equal(response.sources[0]?.sourcePath, 'lib/context.py:1-5', question)
      assert.equal(response.sources[0]!.metadata.role, 'definition', question)
    }
  })

  it('still finds nothing when the capitalised word names no symbol', async () => {
    const response = await askOracle(repo.dir, 'how does Kubernetes 45 work', { noLog: true, sources: ['code'] })
    assert.deepEqual(response.sources, [])
  })
})

describe('askOracle: what a history answer cites', function () {
  this.timeout(60_000)
  let repo: GitFixture
  const commits: Record<string, string> = {}
  before(() => {
    repo = createGitRepo({
      files: {
        'lib/config.py': 'def parse_settings(text):\n    """Parse the settings text."""\n    return text\n',
        'lib/app.py': 'from lib.config import parse_settings\n\n\ndef load(text):\n    """Load the settings of the app."""\n    return parse_settings(text)\n',
      },
    })
    commits.origin = repo.git('rev-parse', 'HEAD').trim()
    repo.write({ 'lib/config.py': 'def parse_settings(text):\n    """Parse the settings text."""\n    return text.strip()\n' })
    commits.body = repo.commit('Strip the settings text')
    repo.write({ 'lib/app.py': 'from lib.config import parse_settings\n\n\ndef load(text):\n    """Load the settings of the app."""\n    return parse_settings(text.lower())\n' })
    commits.caller = repo.commit('Lower-case the app settings before loading them')
    repo.git('mv', 'lib/config.py', 'lib/settings.py')
    repo.write({ 'lib/app.py': 'from lib.settings import parse_settings\n\n\ndef load(text):\n    """Load the settings of the app."""\n    return parse_settings(text.lower())\n' })
    commits.move = repo.commit('Move the settings parser')
    repo.write({ 'lib/settings.py': 'def parse_settings(text):\n    """Parse the settings text."""\n    return text.strip() or "{}"\n' })
    commits.moved = repo.commit('Default to empty settings')
    repo.write({ 'lib/settings.py': 'def parse_settings(text):\n    """Parse the settings text."""\n    return text.strip() or "{}"\n\n\ndef normalize(key):\n    return key.lower()\n' })
    commits.normalize = repo.commit('Compare keys whatever their case')
  })
  after(() => repo.cleanup())

  const cited = (answer: string): string[] => Object.entries(commits).filter(([, hash]) => answer.includes(hash.slice(0, 12))).map(([name]) => name)

  it("cites the commits that changed the symbol's definition, through its file's move, not those that edited a line using it", async () => {
    const response = await askOracle(repo.dir, 'Why was parse_settings changed?', { noLog: true, sources: ['code', 'git'] })
    assert.equal(response.queryType, 'history')
    assert.deepEqual(cited(response.answer).sort(), ['body', 'moved', 'origin'], response.answer)
    assert.match(response.answer, new RegExp(`most relevant commit is ${commits.moved!.slice(0, 12)}`))
  })

  it('takes a plain word the question asks the history of for the symbol the code defines under that name', async () => {
    const response = await askOracle(repo.dir, 'When was normalize added?', { noLog: true, sources: ['code', 'git'], explain: true })
    assert.equal(response.traces!.classification.symbol, 'normalize')
    assert.deepEqual(cited(response.answer), ['normalize'], response.answer)
  })

  it('leads with the commit that introduced the symbol when the question asks when it was added', async () => {
    const response = await askOracle(repo.dir, 'When was parse_settings added?', { noLog: true, sources: ['code', 'git'] })
    assert.match(response.answer, new RegExp(`most relevant commit is ${commits.origin!.slice(0, 12)}`), response.answer)
  })
})
