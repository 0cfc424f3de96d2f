import { strict as assert } from 'node:assert'
import { spawnSync } from 'node:child_process'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { CLI, cliEnv, vlt } from '../helpers/cli.js'

/** Enough files for the worker pool (more than the in-thread limit) and a visible bar. */
function repoWithFiles(n: number): GitFixture {
  return createGitRepo({ files: Object.fromEntries(Array.from({ length: n }, (_, i) => [`m${i}.py`, `def f${i}():\n    return ${i}\n`])) })
}

describe('progress', function () {
  this.timeout(60_000)
  let repo: GitFixture
  afterEach(() => repo?.cleanup())

  it('draws a bar with rate and ETA on a terminal', () => {
    repo = repoWithFiles(40)
    // script(1) gives the CLI a pseudo-terminal, as a user's shell would.
    const env = cliEnv()
    delete env.CI
    const run = spawnSync('script', ['-qfec', `${process.execPath} ${CLI} coderag init`, '/dev/null'], { cwd: repo.dir, encoding: 'utf8', env })
    assert.equal(run.status, 0, run.stdout)
    assert.match(run.stdout, /indexing \[[#-]{24}\] \d+\/40 files {2}\d+ files\/s/)
    assert.match(run.stdout, /Indexed tree [0-9a-f]{12}: 40 files/)
  })

  it('prints only the summary in a pipe', () => {
    repo = repoWithFiles(40)
    const run = vlt(repo.dir, ['coderag', 'init'])
    assert.equal(run.status, 0)
    assert.equal(run.stderr, '')
    assert.match(run.stdout, /^Indexed tree [0-9a-f]{12}: 40 files, \d+ chunks, \d+ symbols, \d+ edges, 1 commits in [\d.]+s\n$/)
  })
})
