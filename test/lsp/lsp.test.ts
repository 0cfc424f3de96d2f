import { strict as assert } from 'node:assert'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { vlt, vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'

const FILES = {
  'tsconfig.json': '{"compilerOptions":{"strict":true,"target":"es2020","module":"commonjs"},"include":["src"]}\n',
  'src/shapes.ts': [
    'export class Circle {',
    '  constructor(public radius: number) {}',
    '}',
    '',
    '/** The total radius of the shapes. */',
    'export function totalRadius(shapes: Circle[]): number {',
    '  return shapes.reduce((sum, s) => sum + s.radius, 0)',
    '}',
    '',
    "export const broken: number = 'not a number'",
    '',
  ].join('\n'),
  'src/main.ts': ["import { Circle, totalRadius } from './shapes'", '', 'console.log(totalRadius([new Circle(1)]))', ''].join('\n'),
}

/** True while a process of that pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('LSP enrichment (typescript-language-server)', function () {
  // A language server starts in seconds, more on a loaded machine: the bound is generous here.
  this.timeout(240_000)
  let repo: GitFixture
  let config: UserConfigFile

  before(() => {
    repo = createGitRepo({ files: FILES })
    repo.commit('shapes')
    config = userConfigFile('[lsp]\ntimeout_ms = 120000\n')
  })
  after(() => {
    repo.cleanup()
    config.cleanup()
  })

  it('adds the hover type of a definition with --lsp, and nothing without it', () => {
    const plain = vltJson(repo.dir, ['coderag', 'def', 'totalRadius'], config.env)
    assert.equal(plain.definitions[0].type, undefined)
    const typed = vltJson(repo.dir, ['coderag', 'def', 'totalRadius', '--lsp'], config.env)
    assert.deepEqual(
      typed.definitions.map((d: { path: string; line: number; precision: string; type?: string }) => [d.path, d.line, d.precision, d.type]),
      [['src/shapes.ts', 6, 'syntactic', 'function totalRadius(shapes: Circle[]): number']],
    )
    const refs = vltJson(repo.dir, ['coderag', 'refs', 'totalRadius', '--lsp'], config.env)
    assert.equal(refs.definitions[0].type, 'function totalRadius(shapes: Circle[]): number')
    assert.deepEqual(refs.references.map((r: { path: string; line: number }) => `${r.path}:${r.line}`), ['src/main.ts:1', 'src/main.ts:3'])
  })

  it('gives the oracle the diagnostics of the files it cites, with [lsp] enabled', () => {
    const enabled = userConfigFile('[lsp]\nenabled = true\ntimeout_ms = 120000\n')
    try {
      const response = vltJson(repo.dir, ['oracle', 'where is totalRadius defined?', '--no-log'], enabled.env)
      assert.ok(response.sources.some((s: { sourcePath: string }) => s.sourcePath.startsWith('src/shapes.ts')), JSON.stringify(response.sources.map((s: { sourcePath: string }) => s.sourcePath)))
      const broken = response.diagnostics.find((d: { path: string; line: number }) => d.path === 'src/shapes.ts' && d.line === 10)
      assert.ok(broken, JSON.stringify(response.diagnostics))
      assert.equal(broken.severity, 'error')
      assert.match(broken.message, /not assignable to type 'number'/)
      // Without [lsp], no server runs and the field is absent.
      assert.equal(vltJson(repo.dir, ['oracle', 'where is totalRadius defined?', '--no-log']).diagnostics, undefined)
    } finally {
      enabled.cleanup()
    }
  })

  it("ignores a repository's [lsp] table: only the user starts language servers", () => {
    const other = createGitRepo({ files: { ...FILES, 'vlt.toml': '[lsp]\nenabled = true\n' } })
    try {
      other.commit('shapes')
      const run = vlt(other.dir, ['coderag', 'def', 'totalRadius'])
      assert.equal(run.status, 0, run.stderr)
      assert.match(run.stderr, /vlt\.toml: \[lsp\] ignored: a repository's file cannot start language servers/)
      assert.doesNotMatch(run.stdout, /: function totalRadius\(shapes/)
    } finally {
      other.cleanup()
    }
  })

  it('answers without a server that hangs, after its deadline, with one warning, and kills it', () => {
    // A "language server" on the user's PATH that reads its requests and never answers.
    const bin = mkdtempSync(join(tmpdir(), 'vlt-lsp-hang-'))
    try {
      const pidFile = join(bin, 'pid')
      writeFileSync(join(bin, 'typescript-language-server'), `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid))\nprocess.stdin.on('data', () => {})\nsetInterval(() => {}, 1000)\n`)
      chmodSync(join(bin, 'typescript-language-server'), 0o755)
      const hanging = userConfigFile('[lsp]\ntimeout_ms = 1500\n')
      try {
        const started = Date.now()
        const run = vlt(repo.dir, ['coderag', 'def', 'totalRadius', '--lsp'], { ...hanging.env, PATH: `${bin}:${process.env.PATH}` })
        assert.equal(run.status, 0, run.stderr)
        assert.match(run.stdout, /src\/shapes\.ts:6 {2}function totalRadius/)
        assert.doesNotMatch(run.stdout, /: function totalRadius\(shapes/)
        const warnings = run.stderr.split('\n').filter((line) => line.startsWith('warning:'))
        assert.deepEqual(warnings, ['warning: typescript-language-server did not answer within 1500 ms; answering without it'])
        assert.ok(Date.now() - started < 60_000)
        const pid = Number(readFileSync(pidFile, 'utf8'))
        assert.equal(alive(pid), false, 'the hanging server was left running')
      } finally {
        hanging.cleanup()
      }
    } finally {
      rmSync(bin, { recursive: true, force: true })
    }
  })
})
