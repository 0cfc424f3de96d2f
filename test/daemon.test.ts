import { strict as assert } from 'node:assert'
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { connect, createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { envFingerprint } from '../src/core/daemon/identity.js'
import { encodeLine, PROTOCOL_VERSION, type DaemonReply, type DaemonRequest } from '../src/core/daemon/protocol.js'
import { EXTRACTOR_VERSION } from '../src/core/parse/version.js'
import { isProcessAlive } from '../src/core/store/liveness.js'
import { CLI, cliEnv, vlt, vltAsync, vltJson, type CliRun } from './helpers/cli.js'
import { createGitRepo, type GitFixture } from './helpers/git-fixture.js'
import { userConfigFile } from './helpers/user-config.js'

/** Daemon tests opt in (the helpers default to GIT_VLT_DAEMON=0); no test leaves a daemon running. */
const ON = { GIT_VLT_DAEMON: '1' }
const OFF = { GIT_VLT_DAEMON: '0' }

/** Where a blob's loose record lies under objects/<extractor version>/. */
const looseRecord = (blob: string): string[] => [blob.slice(0, 2), `${blob.slice(2)}.python.mpk`]

const FILES = {
  'app/greet.py': 'def greet(name):\n    """Say hello."""\n    return f"hello {name}"\n\n\nclass Greeter:\n    def welcome(self, name):\n        return greet(name)\n',
  'app/main.py': 'from app.greet import greet, Greeter\n\n\ndef main():\n    print(greet("world"))\n    Greeter().welcome("you")\n',
}

describe('query daemon (built CLI)', function () {
  this.timeout(90_000)
  let repo: GitFixture
  const socket = (): string => join(repo.dir, '.vlt', 'run', 'daemon.sock')
  const log = (): string => join(repo.dir, '.vlt', 'run', 'daemon.log')
  const status = (env: Record<string, string> = ON) => vltJson(repo.dir, ['daemon', 'status'], env).daemon as { pid: number; served: number; build: string; current: boolean } | null

  async function waitFor<T>(what: string, probe: () => T | undefined | null | false, ms = 20_000): Promise<T> {
    const deadline = Date.now() + ms
    for (;;) {
      const value = probe()
      if (value) return value
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await sleep(50)
    }
  }

  /** Runs a query in process once, then until a daemon is up; returns the daemon's status. */
  async function startViaQuery(): Promise<{ pid: number; served: number; build: string }> {
    vltJson(repo.dir, ['coderag', 'def', 'greet'], ON)
    return waitFor('the daemon', () => status())
  }

  function exchange(request: DaemonRequest | string, { hangUp = false } = {}): Promise<DaemonReply[]> {
    return new Promise((resolve, reject) => {
      const client = connect(socket())
      let text = ''
      client.on('connect', () => {
        client.write(typeof request === 'string' ? request : encodeLine(request))
        if (hangUp) client.destroy()
      })
      client.on('data', (chunk) => (text += chunk))
      client.on('error', reject)
      client.on('close', () => resolve(text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as DaemonReply)))
    })
  }

  const same = (a: CliRun, b: CliRun): void => assert.deepEqual({ status: a.status, stdout: a.stdout, stderr: a.stderr }, { status: b.status, stdout: b.stdout, stderr: b.stderr })

  beforeEach(() => {
    repo = createGitRepo({ files: FILES })
  })
  afterEach(() => {
    vlt(repo.dir, ['daemon', 'stop'], ON)
    repo.cleanup()
  })

  it('serves the next query from the daemon, printing exactly what the command prints in process', async () => {
    const first = await startViaQuery()
    assert.equal(first.served, 0)
    const queries = [
      ['coderag', 'def', 'greet'],
      ['coderag', 'def', 'nosuchname'],
      ['coderag', 'refs', 'greet'],
      ['coderag', 'refs', 'greet', '--limit', '1'],
      ['coderag', 'search', 'say hello to a name', '--limit', '3'],
      ['coderag', 'map', 'app', '--tokens', '200'],
      ['coderag', 'search', 'x', '--path', '../up'],
      ['coderag', 'search', 'say hello to a name', '--files', '--limit', '2'],
      ['coderag', 'search', 'say hello', '--files', '--paths', 'history'],
      ['coderag', 'search', 'say hello', '--files', '--paths', 'gossip'],
    ]
    for (const args of queries) {
      same(vlt(repo.dir, args, ON), vlt(repo.dir, args, OFF))
      same(vlt(repo.dir, [...args, '--json'], ON), vlt(repo.dir, [...args, '--json'], OFF))
    }
    const after = status()!
    assert.equal(after.pid, first.pid)
    assert.equal(after.served, queries.length * 2)
    // The bad --path is a usage error, returned by the daemon and printed as in process.
    const bad = vlt(repo.dir, ['coderag', 'search', 'x', '--path', '../up'], ON)
    assert.equal(bad.status, 2)
    assert.match(bad.stderr, /^git vlt: /)
  })

  it('answers with new commits and uncommitted edits, like the in-process command', async () => {
    await startViaQuery()
    repo.write({ 'app/farewell.py': 'def farewell(name):\n    return f"bye {name}"\n' })
    repo.commit('farewell')
    const committed = vltJson(repo.dir, ['coderag', 'def', 'farewell'], ON)
    // The commit is in the daemon's history at once: its message votes for its file.
    const files = vltJson(repo.dir, ['coderag', 'search', 'farewell', '--files', '--paths', 'history'], ON)
    assert.deepEqual(files.files.map((f: { path: string; commits: Array<{ subject: string }> }) => [f.path, f.commits[0]!.subject]), [['app/farewell.py', 'farewell']])
    assert.deepEqual(committed.definitions.map((d: { path: string }) => d.path), ['app/farewell.py'])
    assert.equal(committed.freshness.treeHash, repo.git('rev-parse', 'HEAD^{tree}'))
    repo.write({ 'app/farewell.py': 'def farewell(name):\n    return f"bye {name}"\n\n\ndef wave():\n    return farewell("all")\n' })
    const edited = vltJson(repo.dir, ['coderag', 'refs', 'farewell'], ON)
    assert.deepEqual(edited.references.map((r: { path: string; line: number }) => `${r.path}:${r.line}`), ['app/farewell.py:6'])
    assert.deepEqual(edited, vltJson(repo.dir, ['coderag', 'refs', 'farewell'], OFF))
    assert.equal(status()!.served, 3)
  })

  it('serves concurrent clients, and clients starting it at once leave one daemon', async () => {
    const queries = [['def', 'greet'], ['refs', 'greet'], ['def', 'Greeter.welcome'], ['search', 'greet'], ['map'], ['refs', 'main']]
    const expected = queries.map((args) => vltJson(repo.dir, ['coderag', ...args], OFF))
    // No daemon yet: every client runs in process and launches one; one wins the lock.
    const cold = await Promise.all(queries.slice(0, 4).map((args) => vltAsync(repo.dir, ['coderag', ...args, '--json'], ON)))
    cold.forEach((run, i) => assert.deepEqual(JSON.parse(run.stdout), expected[i]))
    const daemon = await waitFor('the daemon', () => status())
    const warm = await Promise.all(queries.map((args) => vltAsync(repo.dir, ['coderag', ...args, '--json'], ON)))
    warm.forEach((run, i) => assert.deepEqual(JSON.parse(run.stdout), expected[i]))
    assert.equal(status()!.served - daemon.served, queries.length)
    // The other launches waited for the lock (3 s at most) and left.
    await sleep(4_000)
    assert.equal(readFileSync(log(), 'utf8').match(/ serving /g)?.length, 1)
    assert.equal(status()!.pid, daemon.pid)
  })

  it('heals blob records removed or damaged under it, saying so in one warning line', async () => {
    await startViaQuery()
    const query = ['coderag', 'search', 'say hello to a name', '--limit', '3']
    const answer = vlt(repo.dir, query, ON)
    assert.equal(answer.stderr, '')
    const served = status()!.served
    // The whole directory gone (a cache restored without it): the context is opened again, restoring every record at once.
    rmSync(join(repo.dir, '.vlt', 'objects'), { recursive: true })
    const restored = vlt(repo.dir, query, ON)
    assert.equal(restored.stdout, answer.stdout)
    assert.match(restored.stderr, /^warning: 2 records of \.vlt\/objects were missing or damaged; re-extracted them\n$/)
    // One record damaged in place: healed as the query reads it (an edit elsewhere makes the daemon
    // open a new context, whose artifacts are read afresh).
    const record = join(repo.dir, '.vlt', 'objects', String(EXTRACTOR_VERSION), ...looseRecord(repo.git('rev-parse', 'HEAD:app/greet.py')))
    const bytes = readFileSync(record)
    bytes[bytes.length >> 1]! ^= 0xff
    writeFileSync(record, bytes)
    repo.write({ 'scratch.txt': 'x\n' })
    const healed = vlt(repo.dir, query, ON)
    assert.equal(healed.stdout, vlt(repo.dir, query, OFF).stdout)
    assert.match(healed.stderr, /^warning: 1 record of \.vlt\/objects was missing or damaged; re-extracted it\n$/)
    assert.equal(vlt(repo.dir, query, ON).stderr, '', 'whole again')
    assert.equal(status()!.served, served + 3, 'all answered by the daemon')
  })

  it('rebuilds a stored symbol table whose block a served query finds damaged, saying so in one warning line', async () => {
    const expected = vlt(repo.dir, ['coderag', 'def', 'Greeter.welcome'], OFF)
    const tree = repo.git('rev-parse', 'HEAD^{tree}')
    const symbols = join(repo.dir, '.vlt', 'trees', tree, 'symbols.mpk')
    const bytes = readFileSync(symbols)
    // A table this small has one bucket: the last block, before the record's own checksum. Damaged
    // before the daemon starts: its warm-up reads every block of it (and leaves damage to a query).
    bytes[bytes.length - 8]! ^= 0xff
    writeFileSync(symbols, bytes)
    const pid = vltJson(repo.dir, ['daemon', 'start'], ON).daemon.pid as number

    const served = vlt(repo.dir, ['coderag', 'def', 'Greeter.welcome'], ON)
    assert.equal(served.status, 0, served.stderr)
    assert.equal(served.stdout, expected.stdout)
    assert.match(served.stderr, /^warning: .*symbols\.mpk: checksum mismatch.*rebuilt the index of tree [0-9a-f]{12} from the blob records\n$/)
    const again = vlt(repo.dir, ['coderag', 'refs', 'greet'], ON)
    assert.equal(again.stderr, '', 'whole again')
    assert.match(again.stdout, /app\/main\.py:5/)
    assert.equal(status()!.pid, pid, 'answered by the same daemon')
  })

  it('survives a client that hangs up mid-request', async () => {
    const { build } = await startViaQuery()
    const env = envFingerprint(cliEnv(ON), repo.dir, { keyNames: ['OPENROUTER_API_KEY'] })
    await exchange({ protocol: PROTOCOL_VERSION, build, env, vltDir: join(repo.dir, '.vlt'), type: 'query', command: 'search', params: { query: 'greet' } }, { hangUp: true })
    await waitFor('the abandoned query to be answered', () => status()!.served === 1)
    assert.deepEqual(vltJson(repo.dir, ['coderag', 'def', 'greet'], ON), vltJson(repo.dir, ['coderag', 'def', 'greet'], OFF))
    assert.equal(status()!.served, 2)
  })

  it('replaces the stale socket of a killed daemon', async () => {
    const old = await startViaQuery()
    process.kill(old.pid, 'SIGKILL')
    await waitFor('the kill', () => !isProcessAlive(old.pid))
    assert.ok(existsSync(socket()), 'a killed daemon leaves its socket')
    // This query finds nobody listening: it runs in process and starts a new daemon.
    assert.deepEqual(vltJson(repo.dir, ['coderag', 'def', 'greet'], ON), vltJson(repo.dir, ['coderag', 'def', 'greet'], OFF))
    const fresh = await waitFor('a new daemon', () => status())
    assert.notEqual(fresh.pid, old.pid)
    vltJson(repo.dir, ['coderag', 'def', 'greet'], ON)
    assert.equal(status()!.served, 1)
  })

  it('exits after the idle timeout, and when .vlt/ is removed', async () => {
    const idle = { ...ON, GIT_VLT_DAEMON_IDLE_MS: '1500' }
    const started = vltJson(repo.dir, ['daemon', 'start'], idle)
    assert.equal(started.started, true)
    const pid = started.daemon.pid as number
    await waitFor('the idle exit', () => !isProcessAlive(pid), 15_000)
    assert.ok(!existsSync(socket()), 'the socket is removed on exit')
    assert.match(readFileSync(log(), 'utf8'), /stopping: idle for 1500 ms/)

    const second = vltJson(repo.dir, ['daemon', 'start'], ON).daemon.pid as number
    // The daemon may still be writing its warm-up sync into .vlt/: remove again what it recreates meanwhile.
    await waitFor('.vlt/ to be removed', () => {
      try {
        rmSync(join(repo.dir, '.vlt'), { recursive: true, force: true })
        return true
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw error
        return false
      }
    })
    await waitFor('the exit after .vlt/ went away', () => !isProcessAlive(second), 15_000)
  })

  it('a daemon of another build exits when a client calls, and the client answers in process', async () => {
    const { pid } = await startViaQuery()
    const env = envFingerprint(cliEnv(ON), repo.dir, { keyNames: ['OPENROUTER_API_KEY'] })
    const replies = await exchange({ protocol: PROTOCOL_VERSION, build: `${PROTOCOL_VERSION}/0.0.0/0`, env, vltDir: join(repo.dir, '.vlt'), type: 'query', command: 'def', params: { symbol: 'greet', limit: 20 } })
    assert.deepEqual(replies, [{ type: 'accepted' }, { type: 'mismatch', reason: 'the client is another build of git-vlt' }])
    await waitFor('the old daemon to exit', () => !isProcessAlive(pid))

    // An old daemon that speaks another protocol (here: acknowledges, then hangs up) is not a failure.
    let fake: Server | undefined
    try {
      rmSync(socket(), { force: true })
      fake = createServer((client) => client.end(encodeLine({ type: 'accepted' })))
      await new Promise<void>((resolve) => fake!.listen(socket(), resolve))
      const run = await vltAsync(repo.dir, ['coderag', 'refs', 'greet'], ON)
      same(run, vlt(repo.dir, ['coderag', 'refs', 'greet'], OFF))
    } finally {
      fake?.close()
    }
  })

  it('reports ignored vlt.toml settings as the in-process command does, and gives way when the user config changes', async () => {
    repo.write({ 'vlt.toml': '[llm]\nprovider = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n' })
    repo.commit('llm in vlt.toml')
    const user = userConfigFile('[search]\nllm_candidates = 10\n')
    try {
      const on = { ...ON, ...user.env }
      const off = { ...OFF, ...user.env }
      vltJson(repo.dir, ['coderag', 'def', 'greet'], on)
      const first = await waitFor('the daemon', () => status(on))
      for (const args of [['coderag', 'search', 'say hello', '--limit', '2'], ['coderag', 'def', 'greet']]) {
        same(vlt(repo.dir, args, on), vlt(repo.dir, args, off))
        same(vlt(repo.dir, [...args, '--json'], on), vlt(repo.dir, [...args, '--json'], off))
      }
      assert.equal(status(on)!.served, 4)
      const served = vltJson(repo.dir, ['coderag', 'search', 'say hello'], on)
      assert.deepEqual(served.warnings.filter((w: string) => w.startsWith('vlt.toml: [llm]')).length, 1)
      assert.equal(vlt(repo.dir, ['coderag', 'def', 'greet'], on).stderr.match(/^warning: vlt\.toml: \[llm\] \(provider, base_url\) ignored/gm)?.length, 1)
      // Its settings reach the answers: an edited user config is another environment.
      writeFileSync(user.path, '[search]\nllm_candidates = 5\n')
      vltJson(repo.dir, ['coderag', 'def', 'greet'], on)
      await waitFor('the daemon started with the old config to exit', () => !isProcessAlive(first.pid))
    } finally {
      user.cleanup()
    }
  })

  it('serves `git vlt` and `git-vlt` from one daemon, and not a client whose PATH finds another language server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vlt-daemon-path-'))
    try {
      // git-vlt installed on PATH, as npm links it; `git vlt` finds it there (and puts its exec path first).
      mkdirSync(join(dir, 'bin'))
      symlinkSync(CLI, join(dir, 'bin', 'git-vlt'))
      const path = `${join(dir, 'bin')}:${dirname(process.execPath)}:${process.env.PATH}`
      const def = (command: string[], PATH: string): unknown => {
        const child = spawnSync(command[0]!, [...command.slice(1), 'coderag', 'def', 'greet', '--json'], { cwd: repo.dir, env: cliEnv({ ...ON, PATH }), encoding: 'utf8' })
        assert.equal(child.status, 0, child.stderr)
        return JSON.parse(child.stdout)
      }
      const answer = vltJson(repo.dir, ['coderag', 'def', 'greet'], OFF)
      assert.deepEqual(def([join(dir, 'bin', 'git-vlt')], path), answer)
      const daemon = await waitFor('the daemon', () => status({ ...ON, PATH: path }))
      assert.deepEqual(def(['git', 'vlt'], path), answer)
      assert.deepEqual(def([join(dir, 'bin', 'git-vlt')], path), answer)
      assert.deepEqual([status({ ...ON, PATH: path })!.pid, status({ ...ON, PATH: path })!.served], [daemon.pid, 2], 'git vlt and git-vlt replaced each other\'s daemon')
      // Another pyright-langserver first on PATH: `--lsp` would start another server than the daemon's.
      mkdirSync(join(dir, 'servers'))
      writeFileSync(join(dir, 'servers', 'pyright-langserver'), '#!/bin/sh\n')
      chmodSync(join(dir, 'servers', 'pyright-langserver'), 0o755)
      assert.deepEqual(def(['git', 'vlt'], `${join(dir, 'servers')}:${path}`), answer)
      await waitFor('the daemon of the other PATH to exit', () => !isProcessAlive(daemon.pid))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('GIT_VLT_DAEMON=0 and [query] daemon = false keep queries in process and start no daemon', async () => {
    vltJson(repo.dir, ['coderag', 'def', 'greet'], OFF)
    assert.ok(!existsSync(log()), 'GIT_VLT_DAEMON=0 launched a daemon')
    repo.write({ 'vlt.toml': '[query]\ndaemon = false\n' })
    repo.commit('no daemon')
    vltJson(repo.dir, ['coderag', 'def', 'greet'], ON)
    assert.ok(!existsSync(log()), '[query] daemon = false launched a daemon')
    assert.equal(status(), null)
    assert.equal(vltJson(repo.dir, ['daemon', 'status'], ON).enabled, false)
    assert.equal(vlt(repo.dir, ['daemon', 'start'], ON).status, 2)
  })
})
