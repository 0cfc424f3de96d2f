import { strict as assert } from 'node:assert'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { vlt, vltJson } from '../helpers/cli.js'

describe('notes settings in vlt.toml', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let vault: string
  afterEach(() => {
    repo?.cleanup()
    rmSync(vault, { recursive: true, force: true })
  })

  it('searches an extra folder named in [notes] folders', () => {
    vault = mkdtempSync(join(tmpdir(), 'vlt-vault-'))
    mkdirSync(join(vault, 'ops'))
    writeFileSync(join(vault, 'ops', 'release.md'), '# Release checklist\n\nTag the release, then publish the changelog.\n')
    repo = createGitRepo({ files: { 'vlt.toml': `[notes]\nfolders = [${JSON.stringify(vault)}]\n`, 'README.md': '# Project\n\nNothing about shipping here.\n' } })
    const found = vltJson(repo.dir, ['notes', 'search', 'release checklist'])
    assert.equal(found.results[0].heading, 'Release checklist')
    assert.match(found.results[0].path, /ops\/release\.md$/)
  })

  it('rejects a bad [notes] value naming the key', () => {
    vault = ''
    repo = createGitRepo({ files: { 'vlt.toml': '[notes]\nfolders = "not a list"\n' } })
    const run = vlt(repo.dir, ['notes', 'search', 'x'])
    assert.equal(run.status, 2)
    assert.match(run.stderr, /notes\.folders/)
  })
})
