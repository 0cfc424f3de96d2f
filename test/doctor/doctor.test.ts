import { strict as assert } from 'node:assert'
import { symlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { installHooks } from '../../src/core/hooks/index.js'
import { vlt, vltAsync } from '../helpers/cli.js'
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../helpers/fake-openai-server.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'

interface Check {
  name: string
  ok: boolean
  detail: string
  fix: string | null
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function doctor(dir: string, env: Record<string, string> = {}): Promise<{ status: number | null; ok: boolean; checks: Record<string, Check>; names: string[] }> {
  const run = await vltAsync(dir, ['doctor', '--json'], env)
  const report = JSON.parse(run.stdout) as { ok: boolean; checks: Check[] }
  return { status: run.status, ok: report.ok, checks: Object.fromEntries(report.checks.map((check) => [check.name, check])), names: report.checks.map((check) => check.name) }
}

describe('git vlt doctor', () => {
  let repo: GitFixture
  let server: FakeOpenAIServer | undefined
  let config: UserConfigFile | undefined
  beforeEach(() => {
    repo = createGitRepo({ files: { 'app.py': 'def main():\n    return 1\n' } })
  })
  afterEach(async () => {
    repo.cleanup()
    await server?.close()
    config?.cleanup()
    server = undefined
    config = undefined
  })

  it('names what a fresh repository lacks, with the command that fixes it, and exits 1', async () => {
    const report = await doctor(repo.dir)
    assert.equal(report.status, 1)
    assert.equal(report.ok, false)
    assert.deepEqual(report.names, ['git', 'node', 'index', 'hooks', 'daemon', 'writable', 'size'], 'no llm or embedding line when they are not configured')
    assert.match(report.checks.git!.detail, /^git version \d/)
    assert.equal(report.checks.node!.ok, true)
    assert.deepEqual([report.checks.index!.ok, report.checks.index!.fix], [false, 'git vlt coderag init'])
    assert.deepEqual([report.checks.hooks!.ok, report.checks.hooks!.fix], [false, 'git vlt hooks install'])
    assert.equal(report.checks.writable!.ok, true)
  })

  it('passes once the repository is indexed and hooked, and prints one ✓ line per check', async () => {
    assert.equal(vlt(repo.dir, ['coderag', 'init']).status, 0)
    assert.equal(vlt(repo.dir, ['hooks', 'install']).status, 0)
    const report = await doctor(repo.dir)
    assert.equal(report.status, 0, JSON.stringify(report.checks))
    assert.ok(Object.values(report.checks).every((check) => check.ok))
    assert.match(report.checks.index!.detail, /1 files, .*up to date with HEAD/)
    assert.match(report.checks.writable!.detail, /\.vlt is writable$/)
    assert.match(report.checks.size!.detail, /^\d+(\.\d+)? (B|KiB|MiB) in /)
    const text = await vltAsync(repo.dir, ['doctor'])
    assert.equal(text.status, 0)
    assert.deepEqual(text.stdout.trim().split('\n').map((line) => line.slice(0, 11)), ['✓ git      ', '✓ node     ', '✓ index    ', '✓ hooks    ', '✓ daemon   ', '✓ writable ', '✓ size     '])
  })

  it('tells hooks written by another build apart', async () => {
    await installHooks(repo.dir, { launcher: { node: '/opt/node', cli: '/opt/old-git-vlt/run.js' } })
    const { checks } = await doctor(repo.dir)
    assert.equal(checks.hooks!.ok, false)
    assert.match(checks.hooks!.detail, /^installed by another build of git-vlt: post-commit/)
    assert.equal(checks.hooks!.fix, 'git vlt hooks install')
  })

  it('says when a link under .vlt/ makes the installed hooks skip, and which to remove', async () => {
    assert.equal(vlt(repo.dir, ['coderag', 'init']).status, 0)
    assert.equal(vlt(repo.dir, ['hooks', 'install']).status, 0)
    const elsewhere = createGitRepo()
    try {
      symlinkSync(elsewhere.dir, join(repo.dir, '.vlt', 'logs'))
      const { status, checks } = await doctor(repo.dir)
      assert.equal(status, 1)
      assert.equal(checks.hooks!.ok, false)
      assert.match(checks.hooks!.detail, /^installed, but they queue nothing or start no background indexer: .*\/\.vlt\/logs is a symbolic link/)
      assert.equal(checks.hooks!.fix, `rm ${join(repo.dir, '.vlt', 'logs')}`)
    } finally {
      elsewhere.cleanup()
    }
  })

  it('asks a configured endpoint for its model list with the key, and says when the key is rejected', async () => {
    server = await startFakeOpenAIServer({ apiKey: 'right-key' })
    config = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "test/chat-small"\napi_key_env = "DOCTOR_TEST_KEY"\n`)
    const good = await doctor(repo.dir, { ...config.env, DOCTOR_TEST_KEY: 'right-key' })
    assert.equal(good.checks.llm!.ok, true, good.checks.llm!.detail)
    assert.equal(good.checks.llm!.detail, `${server.baseUrl} answers (model test/chat-small)`)
    assert.deepEqual(server.requests.map((request) => [request.method, request.path, request.headers.authorization]), [['GET', '/v1/models', 'Bearer right-key']])

    const wrong = await doctor(repo.dir, { ...config.env, DOCTOR_TEST_KEY: 'wrong-key' })
    assert.equal(wrong.status, 1)
    assert.equal(wrong.checks.llm!.ok, false)
    assert.match(wrong.checks.llm!.detail, /rejected the API key from DOCTOR_TEST_KEY \(HTTP 401: Incorrect API key provided\)/)
    assert.equal(wrong.checks.llm!.fix, 'set DOCTOR_TEST_KEY to a valid key')
    assert.equal(server.chatRequests.length, 0, 'no chat request: the check costs nothing')
  })

  it('says an embedding endpoint is unreachable, in one line', async () => {
    const port = await closedPort()
    config = userConfigFile(`[embedding]\nprovider = "openai"\nbase_url = "http://127.0.0.1:${port}/v1"\nmodel = "fake-embed"\n`)
    const { checks, names } = await doctor(repo.dir, config.env)
    assert.ok(names.includes('embedding') && !names.includes('llm'))
    assert.equal(checks.embedding!.ok, false)
    assert.equal(checks.embedding!.detail, `http://127.0.0.1:${port}/v1 is unreachable (ECONNREFUSED)`)
    assert.match(checks.embedding!.fix!, /^check that the server runs, and embedding\.base_url in /)
  })

  it('runs outside a repository: git and Node, then why the rest cannot be checked', async () => {
    const run = await vltAsync('/', ['doctor', '--json'])
    assert.equal(run.status, 1)
    const report = JSON.parse(run.stdout) as { checks: Check[] }
    assert.deepEqual(report.checks.map((check) => [check.name, check.ok]), [['git', true], ['node', true], ['index', false]])
    assert.match(report.checks[2]!.detail, /not a git repository/)
  })
})
