import { strict as assert } from 'node:assert'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { vlt, vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'
import { isProcessAlive } from '../../src/core/store/liveness.js'
import { hangingServer } from './fake-servers.js'

const FILES = {
  'app/__init__.py': '',
  'app/greet.py': [
    'def greet(name: str) -> str:',
    '    """Say hello."""',
    '    return "hello " + name',
    '',
    '',
    'count: int = "not a number"',
    '',
  ].join('\n'),
  'app/main.py': ['from app.greet import greet', '', 'print(greet("world"))', ''].join('\n'),
}

const TYPE = '(function) def greet(name: str) -> str'

describe('LSP enrichment (pyright-langserver)', function () {
  // pyright starts in a few seconds, more on a loaded machine.
  this.timeout(240_000)
  let repo: GitFixture
  let config: UserConfigFile

  before(() => {
    repo = createGitRepo({ files: FILES })
    repo.commit('greet')
    config = userConfigFile('[lsp]\ntimeout_ms = 120000\n')
  })
  after(() => {
    repo.cleanup()
    config.cleanup()
  })

  it('adds the hover type of a Python definition with --lsp, to def and refs', () => {
    const typed = vltJson(repo.dir, ['coderag', 'def', 'greet', '--lsp'], config.env)
    assert.deepEqual(
      typed.definitions.map((d: { path: string; line: number; type?: string }) => [d.path, d.line, d.type]),
      [['app/greet.py', 1, TYPE]],
    )
    const refs = vltJson(repo.dir, ['coderag', 'refs', 'greet', '--lsp'], config.env)
    assert.equal(refs.definitions[0].type, TYPE)
    assert.deepEqual(refs.references.map((r: { path: string; line: number }) => `${r.path}:${r.line}`), ['app/main.py:1', 'app/main.py:3'])
  })

  it("gives the oracle pyright's diagnostics of the Python files it cites, with [lsp] enabled", () => {
    const enabled = userConfigFile('[lsp]\nenabled = true\ntimeout_ms = 120000\n')
    try {
      const response = vltJson(repo.dir, ['oracle', 'where is greet defined?', '--no-log'], enabled.env)
      assert.ok(response.sources.some((s: { sourcePath: string }) => s.sourcePath.startsWith('app/greet.py')), JSON.stringify(response.sources.map((s: { sourcePath: string }) => s.sourcePath)))
      const wrong = response.diagnostics?.find((d: { path: string; line: number }) => d.path === 'app/greet.py' && d.line === 6)
      assert.ok(wrong, JSON.stringify(response.diagnostics))
      assert.deepEqual([wrong.severity, wrong.source, wrong.column], ['error', 'Pyright', 13])
      assert.match(wrong.message, /is not assignable to declared type "int"/)
    } finally {
      enabled.cleanup()
    }
  })

  it("never runs the repository's programs through the server: PATH entries inside it are left out of the server's PATH too", () => {
    // pyright runs `python3` from PATH for its search paths: one planted in the repository, on a PATH
    // that names the repository's bin/ (a user with `.` or ./bin on PATH), must not be it.
    const other = createGitRepo({ files: { ...FILES, 'bin/python3': '#!/bin/sh\ntouch "$(dirname "$0")/../ran"\nexit 1\n' } })
    try {
      chmodSync(join(other.dir, 'bin/python3'), 0o755)
      other.commit('a python3 of its own')
      const typed = vltJson(other.dir, ['coderag', 'def', 'greet', '--lsp'], { ...config.env, PATH: `${join(other.dir, 'bin')}:${process.env.PATH}` })
      assert.equal(typed.definitions[0].type, TYPE)
      assert.equal(existsSync(join(other.dir, 'ran')), false, "the server ran the repository's python3")
    } finally {
      other.cleanup()
    }
  })

  it('answers without a pyright-langserver that hangs, after its deadline, with one warning, and kills it', () => {
    const bin = mkdtempSync(join(tmpdir(), 'vlt-pyright-hang-'))
    const hanging = userConfigFile('[lsp]\ntimeout_ms = 1500\n')
    try {
      const pidFile = hangingServer(bin, 'pyright-langserver')
      const run = vlt(repo.dir, ['coderag', 'def', 'greet', '--lsp'], { ...hanging.env, PATH: `${bin}:${process.env.PATH}` })
      assert.equal(run.status, 0, run.stderr)
      assert.equal(run.stdout, 'app/greet.py:1  function greet  def greet(name: str) -> str\n')
      assert.deepEqual(run.stderr.split('\n').filter((line) => line.startsWith('warning:')), ['warning: pyright-langserver did not answer within 1500 ms; answering without it'])
      assert.equal(isProcessAlive(Number(readFileSync(pidFile, 'utf8'))), false, 'the hanging server was left running')
    } finally {
      hanging.cleanup()
      rmSync(bin, { recursive: true, force: true })
    }
  })
})
