import { strict as assert } from 'node:assert'
import { rmSync } from 'node:fs'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { vltJson } from '../helpers/cli.js'
import { installTranscripts, MAIN_SESSION } from './fixtures/install.js'

describe('git vlt history (built CLI)', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let worktree: string
  let configDir: string
  afterEach(() => {
    repo.cleanup()
    rmSync(worktree, { recursive: true, force: true })
    rmSync(configDir, { recursive: true, force: true })
  })

  it('ingests from CLAUDE_CONFIG_DIR, searches, and lists the sessions of a file', () => {
    repo = createGitRepo({ files: { 'src/lock.ts': 'export function acquireLock(path: string) {}\n', 'README.md': '# demo\n' } })
    worktree = `${repo.dir}-wt`
    repo.git('worktree', 'add', '-q', '-b', 'feature/bm25', worktree)
    configDir = installTranscripts(repo.dir, worktree).configDir
    const env = { CLAUDE_CONFIG_DIR: configDir }
    const ingest = vltJson(repo.dir, ['history', 'ingest'], env)
    assert.ok(ingest.sessions >= 3, JSON.stringify(ingest))
    assert.ok(ingest.newExchanges > 0)
    assert.equal(vltJson(repo.dir, ['history', 'ingest'], env).newExchanges, 0, 'nothing new the second time')

    const search = vltJson(repo.dir, ['history', 'search', 'stale lock'], env)
    assert.ok(search.results.length > 0)
    assert.deepEqual(Object.keys(search.results[0]).sort(), ['agentId', 'branch', 'exchangeId', 'files', 'isSidechain', 'kind', 'prompt', 'reply', 'score', 'sessionId', 'timestamp', 'title'])
    assert.equal(search.results[0].sessionId, MAIN_SESSION)

    const file = vltJson(repo.dir, ['history', 'file', 'src/lock.ts'], env)
    assert.ok(JSON.stringify(file).includes(MAIN_SESSION))
  })
})
