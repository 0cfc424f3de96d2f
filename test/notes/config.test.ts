import { strict as assert } from 'node:assert'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { staysInRepository } from '../../src/core/notes/config.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { vlt, vltJson } from '../helpers/cli.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'

describe('notes settings', function () {
  this.timeout(60_000)
  let repo: GitFixture | undefined
  let vault: string | undefined
  let user: UserConfigFile | undefined
  afterEach(() => {
    repo?.cleanup()
    user?.cleanup()
    if (vault) rmSync(vault, { recursive: true, force: true })
    repo = user = vault = undefined
  })

  const makeVault = (): string => {
    vault = mkdtempSync(join(tmpdir(), 'vlt-vault-'))
    mkdirSync(join(vault, 'ops'))
    writeFileSync(join(vault, 'ops', 'release.md'), '# Release checklist\n\nTag the release, then publish the changelog.\n')
    writeFileSync(join(vault, 'ops', 'release-keys.txt'), 'release checklist signing passphrase\n')
    return vault
  }

  it('searches an extra folder named in [notes] folders of the user config, and its own include only', () => {
    user = userConfigFile(`[notes]\nfolders = [${JSON.stringify(makeVault())}]\n`)
    // The repository's include would turn every file into a note: it applies to the repository's files only.
    repo = createGitRepo({ files: { 'vlt.toml': '[notes]\ninclude = ["*"]\n', 'README.md': '# Project\n\nNothing about shipping here.\n', 'NOTES.txt': 'shipping notes\n' } })
    const found = vltJson(repo.dir, ['notes', 'search', 'release checklist'], user.env)
    assert.deepEqual(found.results.map((hit: { path: string }) => hit.path), [join(vault!, 'ops', 'release.md')])
    assert.equal(found.results[0].heading, 'Release checklist')
    assert.deepEqual(found.warnings, [])
    assert.equal(vltJson(repo.dir, ['notes', 'search', 'shipping notes'], user.env).results[0].path, 'NOTES.txt')
  })

  it('keeps relative folders of vlt.toml inside the repository, symbolic links included', () => {
    const outside = makeVault()
    repo = createGitRepo({
      files: {
        'vlt.toml': '[notes]\nfolders = ["docs/../wiki", "wiki/../../x", "linked/ops"]\n',
        'wiki/deploy.md': '# Deploy guide\n\nShip the release after the checklist.\n',
      },
    })
    symlinkSync(outside, join(repo.dir, 'linked'))
    const found = vltJson(repo.dir, ['notes', 'search', 'release checklist'])
    assert.deepEqual(found.results.map((hit: { path: string }) => hit.path), ['wiki/deploy.md'])
    assert.deepEqual(found.warnings, [
      `vlt.toml: notes.folders "wiki/../../x" ignored: folders outside the repository are read only from your own config (${join(process.env.XDG_CONFIG_HOME!, 'git-vlt', 'config.toml')})`,
      `notes folder linked/ops leads outside the repository through a symbolic link (to ${join(outside, 'ops')}): skipped`,
    ])
  })

  it('rejects a bad [notes] value naming the key and the file', () => {
    repo = createGitRepo({ files: { 'vlt.toml': '[notes]\nfolders = "not a list"\n' } })
    const run = vlt(repo.dir, ['notes', 'search', 'x'])
    assert.equal(run.status, 2)
    assert.match(run.stderr, /^git vlt: vlt\.toml: notes\.folders must be a list of strings/)
    user = userConfigFile('[notes]\ninclude = ["[x"]\n')
    const bad = vlt(repo.dir, ['notes', 'search', 'x'], user.env)
    assert.equal(bad.status, 2)
    assert.equal(bad.stderr, `git vlt: ${user.path}: notes.include pattern "[x" is invalid: missing closing "]"\n`)
  })
})

describe('notes: staysInRepository', () => {
  it('accepts relative folders that stay inside once normalised', () => {
    for (const spec of ['docs', 'docs/vault', './notes', 'docs/../notes', 'a/b/../../c', '.', '~bob/notes', 'docs\\vault']) assert.ok(staysInRepository(spec), spec)
  })

  it('refuses absolute, home and climbing folders', () => {
    for (const spec of ['/', '/etc', '~', '~/vault', '~\\vault', '..', '../outside', 'docs/../../x', 'a/../../b', '..\\x', 'C:/Users', 'c:x', '\\\\server\\share']) assert.ok(!staysInRepository(spec), spec)
  })
})
