import { strict as assert } from 'node:assert'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'
import { environmentServer } from './fake-servers.js'

const FILES = {
  'go.mod': 'module example.com/shapes\n\ngo 1.19\n',
  'add.go': ['package shapes', '', '// Add sums two ints.', 'func Add(a, b int) int {', '\treturn a + b', '}', '', 'func Broken() int {', '\treturn undefinedName', '}', ''].join('\n'),
  'use.go': ['package shapes', '', 'func Use() int {', '\treturn Add(1, 2)', '}', ''].join('\n'),
}

/** Debian's gopls and go (installed by .ci/run), as a user who has them on PATH runs them. */
describe('LSP enrichment (gopls)', function () {
  this.timeout(240_000)
  let repo: GitFixture
  let config: UserConfigFile

  before(() => {
    repo = createGitRepo({ files: FILES })
    repo.commit('add')
    config = userConfigFile('[lsp]\nenabled = true\ntimeout_ms = 120000\n')
  })
  after(() => {
    repo.cleanup()
    config.cleanup()
  })

  it('adds the hover type of a Go definition, and gives the oracle the diagnostics of the cited file', () => {
    const typed = vltJson(repo.dir, ['coderag', 'def', 'Add', '--lsp'], config.env)
    assert.deepEqual(typed.definitions.map((d: { path: string; line: number; type?: string }) => [d.path, d.line, d.type]), [['add.go', 4, 'func Add(a int, b int) int']])
    const response = vltJson(repo.dir, ['oracle', 'where is Broken defined?', '--no-log'], config.env)
    assert.ok(
      (response.diagnostics ?? []).some((d: { path: string; line: number; severity: string; message: string }) => d.path === 'add.go' && d.line === 9 && d.severity === 'error' && /undefinedName/.test(d.message)),
      JSON.stringify(response.diagnostics),
    )
  })

  it("runs gopls with go kept from downloading or running anything the repository names, whatever the user's environment", () => {
    const bin = mkdtempSync(join(tmpdir(), 'vlt-gopls-env-'))
    try {
      const real = execFileSync('sh', ['-c', 'command -v gopls'], { encoding: 'utf8' }).trim()
      const seen = environmentServer(bin, 'gopls', real, ['GOTOOLCHAIN', 'GOPROXY', 'CGO_ENABLED', 'HOME'])
      const env = { ...config.env, PATH: `${bin}:${process.env.PATH}`, GOTOOLCHAIN: 'auto', GOPROXY: 'https://proxy.golang.org,direct', CGO_ENABLED: '1' }
      const typed = vltJson(repo.dir, ['coderag', 'def', 'Add', '--lsp'], env)
      assert.equal(typed.definitions[0].type, 'func Add(a int, b int) int')
      assert.deepEqual(JSON.parse(readFileSync(seen, 'utf8')), { GOTOOLCHAIN: 'local', GOPROXY: 'off', CGO_ENABLED: '0', HOME: process.env.HOME ?? null })
    } finally {
      rmSync(bin, { recursive: true, force: true })
    }
  })
})
