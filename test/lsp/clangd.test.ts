import { strict as assert } from 'node:assert'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'

const FILES = {
  'src/util.h': 'int add(int a, int b);\n',
  'src/util.c': [
    '#include "util.h"',
    '',
    'int add(int a, int b) {',
    '  return a + b;',
    '}',
    '',
    '#ifdef FROM_PROJECT_CONFIG',
    'int configured = "not an int";',
    '#endif',
    '',
    'int broken(void) {',
    '  return undefined_name;',
    '}',
    '',
  ].join('\n'),
  'src/main.c': ['#include "util.h"', '', 'int main(void) {', '  return add(1, 2);', '}', ''].join('\n'),
  // A committed clangd configuration: read, it would define the macro above (and could name a remote index server).
  '.clangd': 'CompileFlags:\n  Add: [-DFROM_PROJECT_CONFIG]\n',
}

/** Debian's clangd (installed by .ci/run), as a user who has it on PATH runs it. */
describe('LSP enrichment (clangd)', function () {
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

  it('adds the hover type of a C definition, to def and refs', () => {
    const typed = vltJson(repo.dir, ['coderag', 'def', 'add', '--lsp'], config.env)
    assert.deepEqual(
      typed.definitions.map((d: { path: string; line: number; type?: string }) => [d.path, d.line, d.type]),
      [['src/util.c', 3, 'int add(int a, int b)'], ['src/util.h', 1, 'int add(int a, int b)']],
    )
    const refs = vltJson(repo.dir, ['coderag', 'refs', 'add', '--lsp'], config.env)
    assert.equal(refs.definitions[0].type, 'int add(int a, int b)')
    assert.deepEqual(refs.references.map((r: { path: string; line: number }) => `${r.path}:${r.line}`), ['src/main.c:4'])
  })

  it("gives the oracle clangd's diagnostics of the cited C files, without the repository's .clangd and without writing into the working tree", () => {
    const response = vltJson(repo.dir, ['oracle', 'where is broken defined?', '--no-log'], config.env)
    const errors = (response.diagnostics ?? []).filter((d: { path: string }) => d.path === 'src/util.c')
    assert.ok(errors.some((d: { line: number; severity: string; message: string; source: string }) => d.line === 12 && d.severity === 'error' && /undeclared identifier 'undefined_name'/.test(d.message) && d.source === 'clang'), JSON.stringify(response.diagnostics))
    assert.ok(!errors.some((d: { line: number }) => d.line === 8), `the committed .clangd was applied: ${JSON.stringify(errors)}`)
    assert.equal(existsSync(join(repo.dir, '.cache')), false, 'clangd wrote its background index into the working tree')
    assert.equal(repo.git('status', '--porcelain', '--untracked-files=all', '--', '.', ':!.vlt'), '')
  })
})
