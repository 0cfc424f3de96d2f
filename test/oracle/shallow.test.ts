import { strict as assert } from 'node:assert'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { askOracle } from '../../src/core/oracle/index.js'
import { buildMessages } from '../../src/core/oracle/llm-answer.js'
import { FIXTURE_GIT_ENV, type GitFixture } from '../helpers/git-fixture.js'
import { createOracleRepo } from './fixture.js'

interface Blamed {
  commit: string
  author: string
  boundary: boolean
}

/**
 * A shallow clone's history stops at its boundary commits: git blames every older line on them and
 * their diff holds everything before them. The oracle says so instead of presenting it as authorship.
 */
describe('askOracle in a shallow clone', function () {
  this.timeout(60_000)
  let origin: GitFixture
  let clone: string
  let boundary: string

  before(() => {
    ;({ repo: origin } = createOracleRepo())
    // A later commit by someone else, so that a depth-2 clone holds real authorship beside the boundary.
    origin.write({ 'src/lock.ts': origin.git('show', 'HEAD:src/lock.ts').replace('  const started = Date.now()', '  const started = Date.now() // wall clock') })
    origin.git('-c', 'user.name=Second', 'commit', '-q', '-a', '--author', 'Second <second@example.com>', '-m', 'Comment the clock')
    clone = join(realpathSync(mkdtempSync(join(tmpdir(), 'vlt-shallow-'))), 'clone')
    execFileSync('git', ['clone', '-q', '--depth', '2', `file://${origin.dir}`, clone], { env: { ...process.env, ...FIXTURE_GIT_ENV } })
    boundary = execFileSync('git', ['rev-parse', 'HEAD~1'], { cwd: clone, encoding: 'utf8' }).trim()
  })
  after(() => {
    origin.cleanup()
    rmSync(join(clone, '..'), { recursive: true, force: true })
  })

  it('marks lines blamed on the boundary commit as such, keeps real authorship, and says the clone is shallow', async () => {
    const response = await askOracle(clone, 'where is acquireLock defined', { noLog: true, sources: ['code', 'git'] })
    assert.equal(response.shallow, true)
    const top = response.sources[0]!
    assert.equal(top.sourcePath, 'src/lock.ts:4-10')
    const blame = top.metadata.blame as Blamed[]
    assert.deepEqual(blame.map((b) => [b.author, b.boundary]).sort(), [['Fixture', true], ['Second', false]])
    assert.equal(blame.find((b) => b.boundary)!.commit, boundary)
    // The text never presents the boundary commit's author as the lines' author.
    assert.doesNotMatch(response.answer, new RegExp(`${boundary.slice(0, 12)} Fixture`))
    assert.match(response.answer, new RegExp(`${boundary.slice(0, 12)} \\(shallow clone boundary`))
    assert.match(response.answer, /[0-9a-f]{12} Second /)
    assert.ok(response.warnings.some((w) => /shallow clone/.test(w) && /not authorship/.test(w)), JSON.stringify(response.warnings))
  })

  it('tells a language model the same: the boundary is not who changed the lines', async () => {
    const response = await askOracle(clone, 'where is acquireLock defined', { noLog: true, sources: ['code', 'git'] })
    const prompt = buildMessages('where is acquireLock defined', 'definition', response.sources, '')[1]!.content
    const lastChanged = /last_changed="([^"]*)"/.exec(prompt)?.[1] ?? ''
    assert.match(lastChanged, new RegExp(`at or before ${boundary.slice(0, 12)} \\(shallow clone boundary, author unknown\\)`))
    assert.match(lastChanged, / Second /)
    assert.doesNotMatch(lastChanged, /Fixture/)
  })

  it('marks a commit found at the boundary: its diff holds all the history before it', async () => {
    const response = await askOracle(clone, 'why was LOCK_TIMEOUT_MS changed', { noLog: true, sources: ['code', 'git'] })
    const commit = response.sources.find((s) => s.sourceType === 'git' && s.sourcePath === boundary)!
    assert.ok(commit, JSON.stringify(response.sources.map((s) => s.sourcePath)))
    assert.equal(commit.metadata.boundary, true)
    assert.match(commit.content, /shallow clone boundary/)
  })

  it('marks a boundary commit that file-level search cites for a question in words', async () => {
    const response = await askOracle(clone, 'where would I change how long builds wait on slow NFS mounts', { noLog: true, sources: ['code', 'git'] })
    assert.equal(response.queryType, 'conceptual')
    const commit = response.sources.find((s) => s.sourceType === 'git' && s.metadata.found === 'similar')!
    assert.ok(commit, JSON.stringify(response.sources.map((s) => [s.sourcePath, s.metadata.found])))
    assert.deepEqual([commit.sourcePath, commit.metadata.boundary], [boundary, true])
    assert.match(commit.content, /shallow clone boundary/)
  })

  it('reports a complete repository as not shallow, its root commit as real authorship', async () => {
    const response = await askOracle(origin.dir, 'where is acquireLock defined', { noLog: true, sources: ['code', 'git'] })
    assert.equal(response.shallow, false)
    const blame = response.sources[0]!.metadata.blame as Blamed[]
    assert.ok(blame.length > 0 && blame.every((b) => b.boundary === false), JSON.stringify(blame))
    assert.ok(!response.warnings.some((w) => /shallow/.test(w)))
  })
})
