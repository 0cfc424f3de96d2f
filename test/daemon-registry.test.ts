import { strict as assert } from 'node:assert'
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { capDaemons, DaemonRegistry, DEFAULT_MAX_DAEMONS, maxDaemons, registryPlace, type RegistryEntry } from '../src/core/daemon/registry.js'
import { encodeLine, lineReader, type DaemonRequest, type DaemonStatus } from '../src/core/daemon/protocol.js'
import { isProcessAlive } from '../src/core/store/liveness.js'
import { vlt, vltJson } from './helpers/cli.js'
import { createGitRepo, type GitFixture } from './helpers/git-fixture.js'

const FILES = { 'app/greet.py': 'def greet(name):\n    """Say hello."""\n    return f"hello {name}"\n' }

async function waitFor(what: string, probe: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

describe('the per-user cap on query daemons (built CLI)', function () {
  this.timeout(120_000)
  let runtime: string
  let repos: GitFixture[]
  /** This test's own registry folder, so that its counts are exact. */
  const env = () => ({ GIT_VLT_DAEMON: '1', GIT_VLT_DAEMON_MAX: '2', XDG_RUNTIME_DIR: runtime })
  const start = (repo: GitFixture): number => vltJson(repo.dir, ['daemon', 'start'], env()).daemon.pid
  const log = (repo: GitFixture): string => readFileSync(join(repo.dir, '.vlt', 'run', 'daemon.log'), 'utf8')
  const registered = (): RegistryEntry[] => {
    const dir = join(runtime, 'git-vlt')
    return readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as RegistryEntry)
  }

  beforeEach(() => {
    runtime = mkdtempSync(join(tmpdir(), 'vlt-runtime-'))
    repos = [createGitRepo({ files: FILES }), createGitRepo({ files: FILES }), createGitRepo({ files: FILES })]
  })
  afterEach(() => {
    for (const repo of repos) {
      vlt(repo.dir, ['daemon', 'stop'], env())
      repo.cleanup()
    }
    rmSync(runtime, { recursive: true, force: true })
  })

  it('asks the least recently used idle daemon to exit when one more would pass GIT_VLT_DAEMON_MAX', async () => {
    const [a, b, c] = repos as [GitFixture, GitFixture, GitFixture]
    const pidA = start(a)
    const pidB = start(b)
    // A answers a query after B started: B is now the least recently used.
    assert.deepEqual(vltJson(a.dir, ['coderag', 'def', 'greet'], env()).definitions.map((d: { path: string }) => d.path), ['app/greet.py'])
    assert.equal(vltJson(a.dir, ['daemon', 'status'], env()).daemon.served, 1)
    const pidC = start(c)

    await waitFor('the least recently used daemon to exit', () => !isProcessAlive(pidB))
    assert.ok(isProcessAlive(pidA) && isProcessAlive(pidC))
    assert.deepEqual(registered().map((entry) => entry.pid).sort(), [pidA, pidC].sort())
    assert.match(log(b), /stopping: asked to stop: 3 daemons would run, at most 2 \(GIT_VLT_DAEMON_MAX\); this one was the least recently used/)
    assert.match(log(c), new RegExp(`asked the daemon of ${b.dir}/\\.vlt \\(pid ${pidB}, last used never`))

    // B's next query runs in process and brings its daemon back, which sends A away (used before C started).
    assert.equal(vltJson(b.dir, ['coderag', 'def', 'greet'], env()).definitions.length, 1)
    await waitFor("B's daemon to return and A's to leave", () => vltJson(b.dir, ['daemon', 'status'], env()).daemon !== null && !isProcessAlive(pidA))
    assert.equal(registered().length, 2)
  })

  it('drops the entry of a daemon that was killed, without counting it', async () => {
    const [a, b, c] = repos as [GitFixture, GitFixture, GitFixture]
    const pidA = start(a)
    start(b)
    process.kill(pidA, 'SIGKILL')
    await waitFor('the killed daemon to be gone', () => !isProcessAlive(pidA))
    start(c)
    await waitFor("the killed daemon's entry to go", () => registered().length === 2)
    assert.ok(registered().every((entry) => entry.pid !== pidA))
    assert.ok(vltJson(b.dir, ['daemon', 'status'], env()).daemon !== null, 'two live daemons are within the cap')
  })
})

describe('the daemon registry folder', () => {
  let base: string
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'vlt-runtime-'))
  })
  afterEach(() => rmSync(base, { recursive: true, force: true }))

  it('is created for this user alone under XDG_RUNTIME_DIR', () => {
    const place = registryPlace({ XDG_RUNTIME_DIR: base })
    assert.deepEqual(place, { dir: join(base, 'git-vlt') })
    const info = lstatSync(join(base, 'git-vlt'))
    assert.equal(info.mode & 0o777, 0o700)
    assert.equal(info.uid, process.getuid!())
  })

  it('is refused when it is a link, open to other users, or owned by someone else', () => {
    mkdirSync(join(base, 'elsewhere'), { mode: 0o700 })
    symlinkSync(join(base, 'elsewhere'), join(base, 'git-vlt'))
    assert.match((registryPlace({ XDG_RUNTIME_DIR: base }) as { refused: string }).refused, /is not a directory \(a link/)
    rmSync(join(base, 'git-vlt'))
    mkdirSync(join(base, 'git-vlt'))
    chmodSync(join(base, 'git-vlt'), 0o777)
    assert.match((registryPlace({ XDG_RUNTIME_DIR: base }) as { refused: string }).refused, /is open to other users \(mode 777\)/)
    if (process.getuid!() === 0) {
      chmodSync(join(base, 'git-vlt'), 0o700)
      chownSync(join(base, 'git-vlt'), 65534, 65534)
      assert.match((registryPlace({ XDG_RUNTIME_DIR: base }) as { refused: string }).refused, /belongs to uid 65534, not to this user/)
    }
  })

  it('takes its cap from GIT_VLT_DAEMON_MAX, a whole number of at least 1', () => {
    assert.equal(maxDaemons({}), DEFAULT_MAX_DAEMONS)
    assert.equal(maxDaemons({ GIT_VLT_DAEMON_MAX: '7' }), 7)
    for (const bad of ['0', '-1', '2.5', 'many', '']) assert.equal(maxDaemons({ GIT_VLT_DAEMON_MAX: bad }), DEFAULT_MAX_DAEMONS)
  })
})

describe('capping the daemons (registry.ts, against a daemon speaking the protocol on a real socket)', function () {
  this.timeout(20_000)
  let base: string
  let server: Server | undefined
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'vlt-cap-'))
  })
  afterEach(() => {
    server?.close()
    rmSync(base, { recursive: true, force: true })
  })

  /** An idle daemon that acknowledges each request `lateMs` late, as one warming its index on a loaded machine does; a hung one never answers after that. */
  async function slowIdleDaemon(socket: string, lateMs: number, stops: string[], hung = false): Promise<void> {
    const status: DaemonStatus = {
      pid: process.pid,
      current: true,
      startedAt: new Date(Date.now() - 60_000).toISOString(),
      build: 'test',
      socket,
      served: 0,
      active: 0,
      idleTimeoutMs: 600_000,
      lastRequestAt: null,
    }
    server = createServer((connection) => {
      connection.on('error', () => {})
      connection.on(
        'data',
        lineReader(
          (message) => {
            const request = message as DaemonRequest
            setTimeout(() => {
              connection.write(encodeLine({ type: 'accepted' }))
              if (hung) return
              if (request.type === 'stop') stops.push(request.reason ?? '')
              connection.end(encodeLine(request.type === 'stop' ? { type: 'stopping', pid: process.pid } : { type: 'status', status }))
            }, lateMs)
          },
          () => connection.destroy(),
        ),
      )
    })
    await new Promise<void>((resolve) => server!.listen(socket, resolve))
  }

  /** A registry holding the daemon `other` (served by `slowIdleDaemon` on its socket) and `self`, capped at one. */
  async function capTwo(other: string, lateMs: number, hung = false) {
    const registry = new DaemonRegistry(base)
    const socket = join(base, `${other}.sock`)
    const stops: string[] = []
    await slowIdleDaemon(socket, lateMs, stops, hung)
    const entry: RegistryEntry = { pid: process.pid, vltDir: join(base, other, '.vlt'), socket, startedAt: new Date().toISOString() }
    const self: RegistryEntry = { pid: process.pid, vltDir: join(base, 'self', '.vlt'), socket: join(base, 'self.sock'), startedAt: new Date().toISOString() }
    registry.register(entry)
    registry.register(self)
    const lines: string[] = []
    await capDaemons(registry, self, 1, (line) => lines.push(line))
    return { registry, other: entry, self, stops, lines }
  }

  it('asks an idle daemon that acknowledges over a second late to exit, rather than counting it busy', async () => {
    const { registry, self, stops, lines } = await capTwo('other', 1_500)
    assert.deepEqual(stops, ['2 daemons would run, at most 1 (GIT_VLT_DAEMON_MAX); this one was the least recently used'])
    assert.deepEqual(registry.entries().map((entry) => entry.vltDir), [self.vltDir])
    assert.match(lines.join('\n'), /asked the daemon of .*other\/\.vlt .* to exit/)
  })

  it('counts a daemon that acknowledges and then never answers as busy, instead of waiting for it forever', async function () {
    this.timeout(30_000)
    const { registry, other, self, stops, lines } = await capTwo('hung', 0, true)
    assert.deepEqual(stops, [])
    assert.deepEqual(registry.entries().map((entry) => entry.vltDir).sort(), [other.vltDir, self.vltDir].sort())
    assert.match(lines.join('\n'), /2 daemons are running, over the cap of 1 .*the others are busy/)
  })
})
