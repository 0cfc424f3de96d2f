import { strict as assert } from 'node:assert'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { vlt, vltJson, vltJsonAsync } from '../helpers/cli.js'
import { startFakeOpenAIServer } from '../helpers/fake-openai-server.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile, withUserConfig, type UserConfigFile } from '../helpers/user-config.js'
import { connect, textOf } from '../mcp/mcp-helpers.js'
import { isProcessAlive } from '../../src/core/store/liveness.js'
import { countingServer, hangingServer } from './fake-servers.js'
import { startUiServer } from '../../src/core/ui/index.js'
import { askEvents } from '../ui/http.js'

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

/** The typescript-language-server processes `parent` started. */
function serversOf(parent: number): number[] {
  return childrenOf(parent, 'typescript-language-server')
}

/** The processes `parent` started whose command line holds `word` (Linux: read from /proc). */
function childrenOf(parent: number, word: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // Fields after the command name (which may hold spaces): state, ppid, …
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(word)) found.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return found
}

async function until(what: string, done: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!done()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
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
      // The text output lists them under the answer, as compilers print them.
      const text = vlt(repo.dir, ['oracle', 'where is totalRadius defined?', '--no-log'], enabled.env)
      assert.equal(text.status, 0, text.stderr)
      assert.match(text.stdout, /\nDiagnostics of the cited files:\n(.*\n)*src\/shapes\.ts:10:\d+: error: .*not assignable to type 'number'/)
      // Without [lsp], no server runs and the field is absent.
      assert.equal(vltJson(repo.dir, ['oracle', 'where is totalRadius defined?', '--no-log']).diagnostics, undefined)
    } finally {
      enabled.cleanup()
    }
  })

  it("gives the oracle's agent the hover types through its tools, from the one server that also gives the diagnostics", async () => {
    const server = await startFakeOpenAIServer()
    const enabled = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "test-model"\n[lsp]\nenabled = true\ntimeout_ms = 120000\n`)
    // A typescript-language-server first on PATH that notes each start and runs the real one.
    const bin = mkdtempSync(join(tmpdir(), 'vlt-lsp-count-'))
    const starts = countingServer(bin, 'typescript-language-server', join(process.cwd(), 'node_modules', '.bin', 'typescript-language-server'))
    try {
      server.replyNext({ toolCalls: [{ id: 'def', name: 'find_definition', arguments: { symbol: 'broken' } }] }, { text: 'Defined in `src/shapes.ts:10`.' })
      const response = await vltJsonAsync(repo.dir, ['oracle', 'where is totalRadius defined?', '--no-log'], { ...enabled.env, PATH: `${bin}:${process.env.PATH}` })
      assert.deepEqual(response.agent.toolCalls.map((c: { id: string; status: string }) => [c.id, c.status]), [['def', 'ok']])
      assert.match(response.agent.toolCalls[0].result, /src\/shapes\.ts:10-10  constant broken  .*  : const broken: number\n/)
      assert.ok(response.diagnostics.some((d: { path: string; line: number }) => d.path === 'src/shapes.ts' && d.line === 10), JSON.stringify(response.diagnostics))
      assert.equal(readFileSync(starts, 'utf8'), 'started\n', 'one server for the diagnostics and the tool')
    } finally {
      rmSync(bin, { recursive: true, force: true })
      enabled.cleanup()
      await server.close()
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
      const pidFile = hangingServer(bin, 'typescript-language-server')
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
        assert.equal(isProcessAlive(pid), false, 'the hanging server was left running')
      } finally {
        hanging.cleanup()
      }
    } finally {
      rmSync(bin, { recursive: true, force: true })
    }
  })
})

describe('LSP servers kept by the query daemon, the MCP server and the UI server', function () {
  this.timeout(300_000)
  if (process.platform !== 'linux') return
  let repo: GitFixture
  let config: UserConfigFile
  const typeOf = (env: Record<string, string>): string | undefined => vltJson(repo.dir, ['coderag', 'def', 'totalRadius', '--lsp'], env).definitions[0].type
  const daemonPid = (env: Record<string, string>): number => vltJson(repo.dir, ['daemon', 'status'], env).daemon.pid

  beforeEach(() => {
    repo = createGitRepo({ files: FILES })
    repo.commit('shapes')
  })
  afterEach(() => {
    if (config) vlt(repo.dir, ['daemon', 'stop'], { ...config.env, GIT_VLT_DAEMON: '1' })
    config?.cleanup()
    repo.cleanup()
  })

  it('reuses one server across queries, re-syncs an edited file, restarts a crashed server, and stops it with the daemon', async () => {
    config = userConfigFile('[lsp]\ntimeout_ms = 120000\n')
    const env = { ...config.env, GIT_VLT_DAEMON: '1' }
    assert.equal(vltJson(repo.dir, ['daemon', 'start'], env).started, true)
    const daemon = daemonPid(env)
    assert.equal(typeOf(env), 'function totalRadius(shapes: Circle[]): number')
    const [server] = serversOf(daemon)
    assert.ok(server, 'the daemon keeps no language server')
    assert.equal(typeOf(env), 'function totalRadius(shapes: Circle[]): number')
    assert.deepEqual(serversOf(daemon), [server], 'the second query started another server')
    // The kept server is shown the new text: no answer from the old one.
    writeFileSync(join(repo.dir, 'src/shapes.ts'), readFileSync(join(repo.dir, 'src/shapes.ts'), 'utf8').replace('): number {', '): unknown {'))
    assert.equal(typeOf(env), 'function totalRadius(shapes: Circle[]): unknown')
    assert.deepEqual(serversOf(daemon), [server])
    process.kill(server, 'SIGKILL')
    await until('the killed server is gone', () => !isProcessAlive(server))
    assert.equal(typeOf(env), 'function totalRadius(shapes: Circle[]): unknown')
    const [restarted] = serversOf(daemon)
    assert.ok(restarted !== undefined && restarted !== server, 'the crashed server was not started again')
    vlt(repo.dir, ['daemon', 'stop'], env)
    await until('the server is stopped with the daemon', () => !isProcessAlive(restarted))
  })

  it('stops the servers after [lsp] idle_s unused, and leaves none behind a daemon killed outright', async () => {
    config = userConfigFile('[lsp]\ntimeout_ms = 120000\nidle_s = 2\n')
    const env = { ...config.env, GIT_VLT_DAEMON: '1' }
    assert.equal(vltJson(repo.dir, ['daemon', 'start'], env).started, true)
    const daemon = daemonPid(env)
    assert.equal(typeOf(env), 'function totalRadius(shapes: Circle[]): number')
    const [idle] = serversOf(daemon)
    assert.ok(idle, 'the daemon keeps no language server')
    await until('the idle server is stopped', () => !isProcessAlive(idle))
    assert.equal(daemonPid(env), daemon, 'the daemon itself stopped')
    assert.equal(typeOf(env), 'function totalRadius(shapes: Circle[]): number')
    const [again] = serversOf(daemon)
    assert.ok(again, 'no server was started at the next need')
    process.kill(daemon, 'SIGKILL')
    await until('the server of a killed daemon exits', () => !isProcessAlive(again))
  })

  it('gives MCP find_definition and find_references the hover type with [lsp] enabled, from one kept server', async () => {
    config = userConfigFile('[lsp]\nenabled = true\ntimeout_ms = 120000\n')
    const mcp = await connect(repo.dir, config.env)
    try {
      const def = await mcp.call('find_definition', { symbol: 'totalRadius' })
      assert.equal(def.structuredContent.definitions[0].type, 'function totalRadius(shapes: Circle[]): number')
      const refs = await mcp.call('find_references', { symbol: 'totalRadius' })
      assert.equal(refs.structuredContent.definitions[0].type, 'function totalRadius(shapes: Circle[]): number')
      const [server] = childrenOf(process.pid, 'mcp').flatMap(serversOf)
      assert.ok(server, 'the MCP server keeps no language server')
      assert.equal(childrenOf(process.pid, 'mcp').flatMap(serversOf).length, 1)
      await mcp.close()
      await until('the server is stopped with the MCP server', () => !isProcessAlive(server))
    } finally {
      await mcp.close()
    }
  })

  it("gives the UI's answers the diagnostics of the cited files from the server it keeps, started once for two questions", async () => {
    await withUserConfig('[lsp]\nenabled = true\ntimeout_ms = 120000\n', async () => {
      const ui = await startUiServer({ cwd: repo.dir })
      try {
        const diagnosticsOf = async (): Promise<Array<{ path: string; line: number; severity: string }>> => {
          const { events } = await askEvents(ui.port, ui.token, { question: 'where is totalRadius defined?', sources: ['code'] })
          const answer = events.find((e) => e.event === 'answer')
          assert.ok(answer, JSON.stringify(events))
          return answer.data.diagnostics ?? []
        }
        assert.ok((await diagnosticsOf()).some((d) => d.path === 'src/shapes.ts' && d.line === 10 && d.severity === 'error'))
        const [server] = serversOf(process.pid)
        assert.ok(server, 'the UI server killed the language server after the answer')
        assert.ok((await diagnosticsOf()).some((d) => d.path === 'src/shapes.ts' && d.line === 10))
        assert.deepEqual(serversOf(process.pid), [server], 'the second question started another server')
        await ui.close()
        await until('the server is stopped with the UI server', () => !isProcessAlive(server))
      } finally {
        await ui.close().catch(() => undefined)
      }
    })
  })

  it("gives MCP ask_oracle the diagnostics of the cited files from the kept server, started once for two questions", async () => {
    config = userConfigFile('[lsp]\nenabled = true\ntimeout_ms = 120000\n')
    const mcp = await connect(repo.dir, config.env)
    const servers = (): number[] => childrenOf(process.pid, 'mcp').flatMap(serversOf)
    try {
      const first = await mcp.call('ask_oracle', { question: 'where is totalRadius defined?' })
      const broken = first.structuredContent.diagnostics?.find((d: { path: string; line: number }) => d.path === 'src/shapes.ts' && d.line === 10)
      assert.ok(broken, JSON.stringify(first.structuredContent))
      assert.equal(broken.severity, 'error')
      assert.match(broken.message, /not assignable to type 'number'/)
      assert.match(textOf(first), /^src\/shapes\.ts:10:\d+: error: .*not assignable to type 'number'/m)
      const [server] = servers()
      assert.ok(server, 'the MCP server killed the language server after the answer')
      const second = await mcp.call('ask_oracle', { question: 'where is totalRadius defined?' })
      assert.ok(second.structuredContent.diagnostics?.some((d: { path: string; line: number }) => d.path === 'src/shapes.ts' && d.line === 10), JSON.stringify(second.structuredContent))
      assert.deepEqual(servers(), [server], 'the second question started another server')
    } finally {
      await mcp.close()
    }
  })
})
