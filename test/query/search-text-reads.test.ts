import { strict as assert } from 'node:assert'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openQueryContext } from '../../src/core/query/context.js'
import { searchCode } from '../../src/core/query/search/index.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { createIndexedRepo } from './search-fixture.js'

const warn = (): void => {}
/** A prose query: the code view reads its keyword candidates' code, the rerank their text. */
const PROSE = 'check the password against the stored hash'

/**
 * Chunk text comes from git (index/chunk-text.ts), a process per read: a search reads each file's
 * text once, in a few runs, and a warm context (the daemon, the MCP server) holds what it read.
 */
describe('search: chunk text read from git', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let traceDir: string
  before(async () => {
    repo = await createIndexedRepo()
    traceDir = mkdtempSync(join(tmpdir(), 'vlt-text-reads-'))
    // The first prose search learns the term associations (reading files of its own) and stores them.
    await searchCode(await openQueryContext(repo.dir, { warn, noSync: true }), PROSE)
  })
  after(() => {
    repo?.cleanup()
    if (traceDir) rmSync(traceDir, { recursive: true, force: true })
  })

  /** How many `git cat-file --batch` runs `run` makes (git's own trace of the commands it runs). */
  async function catFileRuns(name: string, run: () => Promise<unknown>): Promise<number> {
    const trace = join(traceDir, name)
    const before = process.env.GIT_TRACE
    process.env.GIT_TRACE = trace
    try {
      await run()
    } finally {
      if (before === undefined) delete process.env.GIT_TRACE
      else process.env.GIT_TRACE = before
    }
    let text = ''
    try {
      text = readFileSync(trace, 'utf8')
    } catch {
      // No git ran at all.
    }
    return text.split('\n').filter((line) => /built-in: git .*cat-file.*--batch/.test(line)).length
  }

  it('reads the candidates\' files in one git run, not one per file', async () => {
    const qctx = await openQueryContext(repo.dir, { warn, noSync: true })
    const runs = await catFileRuns('cold', () => searchCode(qctx, PROSE))
    // The code view's candidates together, then the rerank's that it has not read (if any).
    assert.ok(runs >= 1 && runs <= 2, `${runs} git runs`)
  })

  it('reads no text again for a search a warm context has answered before, another one in between', async () => {
    const qctx = await openQueryContext(repo.dir, { warn, noSync: true })
    const first = await searchCode(qctx, PROSE)
    // Files of its own only: a context that holds only the last search's files would read the first's again.
    await searchCode(qctx, 'fetchWithRetry', { language: 'typescript' })
    let again: unknown
    const runs = await catFileRuns('warm', async () => (again = await searchCode(qctx, PROSE)))
    assert.equal(runs, 0)
    assert.deepEqual(again, first)
  })
})
