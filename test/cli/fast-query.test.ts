import { strict as assert } from 'node:assert'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Flags, Parser, type Command } from '@oclif/core'
import CoderagDef from '../../src/commands/coderag/def.js'
import CoderagMap from '../../src/commands/coderag/map.js'
import CoderagRefs from '../../src/commands/coderag/refs.js'
import CoderagSearch from '../../src/commands/coderag/search.js'
import { parseCommandLine, type ManifestCommand } from '../../src/core/cli/fast-query.js'
import { CLI, cliEnv, vlt, vltJson, type CliRun } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const MANIFEST = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'oclif.manifest.json')
const COMMANDS: Record<string, Command.Class> = { 'coderag:search': CoderagSearch, 'coderag:def': CoderagDef, 'coderag:refs': CoderagRefs, 'coderag:map': CoderagMap }

/** Command lines to try on a command: every flag with good and bad values, in every spelling. */
function commandLines(command: ManifestCommand): string[][] {
  const args = Object.values(command.args).filter((arg) => arg.required).map(() => 'greet')
  const lines: string[][] = [args, [], [...args, 'extra', 'extra'], [...args, '--', 'x'], [...args, '--help'], [...args, '-h'], [...args, '--cwd', '.'], [...args, '--bogus'], ['-x', ...args]]
  for (const flag of Object.values(command.flags)) {
    if (flag.type === 'boolean') {
      lines.push([...args, `--${flag.name}`], [`--${flag.name}`, ...args], [...args, `--${flag.name}=true`], [...args, `--${flag.name}`, `--${flag.name}`])
      continue
    }
    for (const value of [...(flag.options ?? []), 'klingon', '1', '7', '007', '0', '-1', 'abc', 'src/**', '', '--json']) {
      lines.push([...args, `--${flag.name}`, value], [`--${flag.name}=${value}`, ...args], [...args, `--${flag.name}`, value, `--${flag.name}`, value])
      if (flag.char) lines.push([...args, `-${flag.char}`, value], [...args, `-${flag.char}${value}`])
    }
    lines.push([`--${flag.name}`, '1', 'a', '--json', 'b', ...args], [...args, `--${flag.name}`])
  }
  return lines
}

describe('coderag query fast path: parsing', () => {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as { commands: Record<string, ManifestCommand> }

  // The manifest does not say which option flags are integers, their bounds, or how stdin and
  // repeated flags are read: this compares the fast path with oclif's own parser on the command
  // classes, so a flag added or changed in a way the fast path would get wrong fails here.
  for (const [id, Class] of Object.entries(COMMANDS)) {
    it(`parses ${id} exactly as oclif does, or leaves it to oclif`, async () => {
      const command = manifest.commands[id]!
      const args = Object.fromEntries(Object.entries(Class.args ?? {}).map(([name, arg]) => [name, { ...arg, ignoreStdin: true }]))
      const flags = { ...Class.baseFlags, ...Class.flags, json: Flags.boolean() }
      let served = 0
      for (const argv of commandLines(command)) {
        const fast = parseCommandLine(command, argv)
        if (fast === undefined) continue
        served++
        const oclif = await Parser.parse(argv, { args, flags, strict: Class.strict }).catch((error: Error) => error)
        assert.ok(!(oclif instanceof Error), `${argv.join(' ')}: oclif says ${(oclif as Error).message}`)
        assert.deepEqual({ args: fast.args, flags: fast.flags }, { args: oclif.args, flags: oclif.flags }, argv.join(' '))
      }
      assert.ok(served > 5, `the fast path parses only ${served} command lines of ${id}`)
    })
  }
})

/** Daemon tests opt in (the helpers default to GIT_VLT_DAEMON=0); no test leaves a daemon running. */
const ON = { GIT_VLT_DAEMON: '1' }
const OFF = { GIT_VLT_DAEMON: '0' }

/** A preload that records whether the CLI loaded oclif: the fast path must not. */
const PROBE_DIR = mkdtempSync(join(tmpdir(), 'vlt-probe-'))
process.on('exit', () => rmSync(PROBE_DIR, { recursive: true, force: true }))
const PROBE = join(PROBE_DIR, 'probe.cjs')
writeFileSync(PROBE, "process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_LOADED_FILE, String(Object.keys(require.cache).some((path) => path.includes('@oclif')))))\n")

/** The built CLI in `dir`, and whether it loaded oclif. */
function runCli(dir: string, args: string[], env: Record<string, string>, input?: string): CliRun & { oclif: boolean } {
  const loaded = join(mkdtempSync(join(PROBE_DIR, 'run-')), 'loaded')
  const child = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', input, env: cliEnv({ ...env, NODE_OPTIONS: `--require ${PROBE}`, PROBE_LOADED_FILE: loaded }) })
  return { status: child.status, stdout: child.stdout, stderr: child.stderr, oclif: readFileSync(loaded, 'utf8') === 'true' }
}

const output = (run: CliRun) => ({ status: run.status, stdout: run.stdout, stderr: run.stderr })

describe('coderag query fast path (built CLI)', function () {
  this.timeout(90_000)
  let repo: GitFixture

  const run = (args: string[], env: Record<string, string> = ON, input?: string) => runCli(repo.dir, args, env, input)
  const served = (): number => vltJson(repo.dir, ['daemon', 'status'], ON).daemon.served as number

  beforeEach(() => {
    repo = createGitRepo({
      files: {
        'app/greet.py': 'def greet(name):\n    """Say hello, 100%% sure."""\n    return f"hello {name}"\n\n\nclass Greeter:\n    def welcome(self, name):\n        return greet(name)\n',
        'app/main.py': 'from app.greet import greet, Greeter\n\n\ndef main():\n    print(greet("world"))\n    Greeter().welcome("you")\n',
      },
    })
    assert.equal(vltJson(repo.dir, ['daemon', 'start'], ON).started, true)
  })
  afterEach(() => {
    vlt(repo.dir, ['daemon', 'stop'], ON)
    repo.cleanup()
  })

  it('prints what the oclif command prints, text and JSON, results and errors', () => {
    const queries = [
      ['coderag', 'def', 'greet'],
      ['coderag', 'def', 'nosuchname'],
      ['coderag', 'refs', 'greet', '--limit', '1'],
      ['coderag', 'search', 'say hello to a name', '-n', '3', '--no-tests'],
      ['coderag', 'search', 'x', '--path', '../up'],
      ['coderag', 'map', '--tokens=200', '--focus', 'app/greet.py', 'Greeter.welcome'],
      ['coderag', 'map', 'app'],
    ]
    const before = served()
    for (const query of queries) {
      for (const args of [query, [...query, '--json']]) {
        const fast = run(args)
        const oclif = run([...args, '--cwd', repo.dir])
        assert.deepEqual(output(fast), output(oclif), args.join(' '))
        assert.deepEqual([fast.oclif, oclif.oclif], [false, true], args.join(' '))
      }
    }
    assert.equal(served() - before, queries.length * 4)
    // The bad --path is a usage error of the query itself, answered by the daemon.
    const bad = run(['coderag', 'search', 'x', '--path', '../up'])
    assert.deepEqual([bad.status, bad.stdout, bad.oclif], [2, '', false])
    assert.match(bad.stderr, /^git vlt: --path "\.\.\/up": paths are repo-relative/)
    assert.match(run(['coderag', 'def', 'nosuchname']).stdout, /^No definition of nosuchname/)
  })

  it("reads map's scope from stdin like oclif", function () {
    // oclif gives stdin 10 ms (and the fast path, to answer alike, too): on a loaded machine either run may
    // miss text that was there. A real difference between the paths fails every attempt.
    this.retries(2)
    const fast = run(['coderag', 'map', '--json'], ON, 'app\n')
    const oclif = run(['coderag', 'map', '--json', '--cwd', repo.dir], ON, 'app\n')
    assert.deepEqual([output(fast), fast.oclif], [output(oclif), false])
    assert.equal(JSON.parse(fast.stdout).scope, 'app')
  })

  it('leaves help and bad values to oclif', () => {
    const before = served()
    const abc = run(['coderag', 'def', 'greet', '--limit', 'abc'])
    assert.deepEqual([abc.status, abc.oclif], [2, true])
    assert.match(abc.stderr, /Expected an integer but received: abc/)
    const klingon = run(['coderag', 'search', 'greet', '--lang', 'klingon'])
    assert.deepEqual([klingon.status, klingon.oclif], [2, true])
    assert.match(klingon.stderr, /Expected --lang=klingon to be one of/)
    const help = run(['coderag', 'refs', 'greet', '--help'])
    assert.deepEqual([help.status, help.oclif], [0, true])
    assert.match(help.stdout, /USAGE/)
    assert.equal(served(), before)
  })

  it('answers in process with the daemon disabled, without oclif, as the daemon answers', () => {
    const before = served()
    const off = run(['coderag', 'def', 'greet', '--json'], OFF)
    assert.deepEqual([off.status, off.oclif], [0, false])
    assert.equal(served(), before)
    assert.deepEqual(JSON.parse(off.stdout), JSON.parse(run(['coderag', 'def', 'greet', '--json']).stdout))
    assert.equal(served(), before + 1)
  })

  it('rejects a bad number for any query flag as a usage error, text and JSON, with the daemon or without', () => {
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as { commands: Record<string, ManifestCommand> }
    for (const id of Object.keys(COMMANDS)) {
      const command = manifest.commands[id]!
      const args = Object.values(command.args).filter((arg) => arg.required).map(() => 'greet')
      const numeric = Object.values(command.flags).filter((flag) => typeof flag.default === 'number')
      assert.ok(numeric.length > 0, id)
      for (const flag of numeric) {
        for (const value of ['-1', 'abc']) {
          const argv = [...id.split(':'), ...args, `--${flag.name}`, value]
          for (const env of [ON, { GIT_VLT_DAEMON: '0' }]) {
            const what = `${argv.join(' ')} (GIT_VLT_DAEMON=${env.GIT_VLT_DAEMON})`
            const text = run(argv, env)
            assert.deepEqual([text.status, text.stdout], [2, ''], what)
            assert.match(text.stderr, new RegExp(`^git vlt: --${flag.name}: Expected an integer .*${value} \\(see --help\\)\n$`), what)
            const json = run([...argv, '--json'], env)
            assert.deepEqual([json.status, json.stderr], [2, ''], what)
            assert.deepEqual(JSON.parse(json.stdout), { error: { message: text.stderr.slice('git vlt: '.length, -1), code: 'usage' } }, what)
          }
        }
      }
    }
  })

  it('rejects a blank symbol for def and refs as a usage error, like a blank search, with the daemon or without', () => {
    for (const env of [ON, { GIT_VLT_DAEMON: '0' }]) {
      for (const [command, blank, message] of [['def', '', 'the symbol is empty'], ['refs', '  ', 'the symbol is empty'], ['search', ' ', 'the search query is empty']]) {
        const what = `${command} ${JSON.stringify(blank)} (GIT_VLT_DAEMON=${env.GIT_VLT_DAEMON})`
        const text = run(['coderag', command!, blank!], env)
        assert.deepEqual([text.status, text.stdout, text.stderr], [2, '', `git vlt: ${message}\n`], what)
        const json = run(['coderag', command!, blank!, '--json'], env)
        assert.deepEqual([json.status, JSON.parse(json.stdout)], [2, { error: { message, code: 'usage' } }], what)
      }
    }
  })

  it('answers in process without oclif when no daemon answers, and starts one for the next query', async () => {
    vlt(repo.dir, ['daemon', 'stop'], ON)
    const cold = run(['coderag', 'def', 'greet', '--json'])
    assert.deepEqual([cold.status, cold.oclif], [0, false])
    const deadline = Date.now() + 20_000
    while (vltJson(repo.dir, ['daemon', 'status'], ON).daemon === null) {
      assert.ok(Date.now() < deadline, 'no daemon was started')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const warm = run(['coderag', 'def', 'greet', '--json'])
    assert.deepEqual([warm.stdout, warm.oclif], [cold.stdout, false])
  })
})

describe('coderag query fast path without a daemon (built CLI)', function () {
  this.timeout(180_000)
  const FILES = {
    'app/greet.py': 'def greet(name):\n    """Say hello, 100%% sure."""\n    return f"hello {name}"\n\n\nclass Greeter:\n    def welcome(self, name):\n        return greet(name)\n',
    'app/main.py': 'from app.greet import greet, Greeter\n\n\ndef main():\n    print(greet("world"))\n    Greeter().welcome("you")\n',
    // A setting a repository may not decide: one config warning, in text and in `--json`'s warnings.
    'vlt.toml': '[llm]\nbase_url = "https://example.invalid/v1"\n',
  }
  const QUERIES = [
    ['coderag', 'def', 'greet'],
    ['coderag', 'def', 'nosuchname'],
    ['coderag', 'def', ' '],
    ['coderag', 'refs', 'greet', '--limit', '1'],
    ['coderag', 'search', 'say hello to a name', '-n', '3', '--no-tests'],
    ['coderag', 'search', 'x', '--path', '../up'],
    ['coderag', 'search', 'greet', '--paths', 'history'],
    ['coderag', 'map', '--tokens=200', '--focus', 'app/greet.py', 'Greeter.welcome'],
    ['coderag', 'map', 'app'],
  ]
  // Two identical repositories (same files, same commit): a query that syncs or heals changes its
  // repository, so the fast path runs in one and oclif (`--cwd`) in the other, each on the same state.
  let fast: GitFixture
  let oclif: GitFixture

  beforeEach(() => {
    fast = createGitRepo({ files: FILES })
    oclif = createGitRepo({ files: FILES })
  })
  afterEach(() => {
    fast.cleanup()
    oclif.cleanup()
  })

  /** The output with what must differ between the twins made alike: the repository's folder, a lock's age. */
  function comparable(run: CliRun, repo: GitFixture): CliRun {
    const alike = (text: string): string => text.replaceAll(repo.dir, '<repo>').replace(/, \d+(\.\d+)? s ago;/g, ', <age> ago;')
    return { status: run.status, stdout: alike(run.stdout), stderr: alike(run.stderr) }
  }

  /** Each twin changed alike by `change`, then `args` run by the fast path in one and by oclif in the other: the same output. */
  function samePrinting(args: string[], change: (repo: GitFixture) => void = () => {}): CliRun {
    change(fast)
    change(oclif)
    const viaFast = runCli(fast.dir, args, OFF)
    const viaOclif = runCli(oclif.dir, [...args, '--cwd', oclif.dir], OFF)
    assert.deepEqual(comparable(viaFast, fast), comparable(viaOclif, oclif), args.join(' '))
    assert.deepEqual([viaFast.oclif, viaOclif.oclif], [false, true], args.join(' '))
    return viaFast
  }

  it('prints what the oclif command prints, text and JSON, results, warnings and errors, building the index first', () => {
    const first = samePrinting(['coderag', 'def', 'greet', '--json'])
    assert.equal(first.status, 0)
    assert.match(JSON.parse(first.stdout).warnings?.[0] ?? first.stderr, /vlt\.toml: \[llm\]/)
    for (const query of QUERIES) for (const args of [query, [...query, '--json']]) samePrinting(args)
    assert.deepEqual(output(runCli(fast.dir, ['coderag', 'search', 'x', '--path', '../up'], OFF)).status, 2)
    assert.match(runCli(fast.dir, ['coderag', 'def', 'greet'], OFF).stderr, /^warning: vlt\.toml: \[llm\]/)
  })

  it('brings the index up to date first, as oclif does: a commit, then an uncommitted edit', () => {
    const salute = (repo: GitFixture): void => {
      repo.write({ 'app/salute.py': 'from app.greet import greet\n\n\ndef salute(name):\n    return greet(name)\n' })
      repo.commit('salute')
    }
    assert.match(samePrinting(['coderag', 'refs', 'greet', '--json'], salute).stdout, /app\/salute\.py/)
    const edit = (repo: GitFixture): void => repo.write({ 'app/wave.py': 'from app.greet import greet\n\n\ndef wave():\n    return greet("wave")\n' })
    for (const args of [['coderag', 'def', 'wave'], ['coderag', 'map', '--json']]) samePrinting(args, edit)
    assert.equal(JSON.parse(samePrinting(['coderag', 'refs', 'greet', '--json']).stdout).freshness.overlayFiles, 1)
  })

  it('answers from the last complete index, marked stale in one line, when a stopped run holds the lock', () => {
    for (const repo of [fast, oclif]) vlt(repo.dir, ['coderag', 'sync'])
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' })
    try {
      process.kill(sleeper.pid!, 'SIGSTOP')
      const holder = { pid: sleeper.pid, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z', command: 'git vlt coderag sync', token: 'aaaaaaaaaaaaaaaaaaaaaaaa' }
      const hold = (repo: GitFixture): void => {
        repo.write({ 'app/wave.py': 'from app.greet import greet\n\n\ndef wave():\n    return greet("wave")\n' })
        writeFileSync(join(repo.dir, '.vlt', 'locks', 'index.lock'), JSON.stringify(holder))
      }
      const text = samePrinting(['coderag', 'def', 'greet'], hold)
      assert.match(text.stderr, /holds the index lock but is stopped/)
      assert.equal(JSON.parse(samePrinting(['coderag', 'search', 'greet', '--json']).stdout).freshness.staleReason, 'locked')
    } finally {
      sleeper.kill('SIGKILL')
    }
  })

  it('rebuilds a damaged symbol table and says so in one line, as oclif does', () => {
    for (const repo of [fast, oclif]) vlt(repo.dir, ['coderag', 'sync'])
    const damage = (repo: GitFixture): void => {
      const trees = join(repo.dir, '.vlt', 'trees')
      const file = join(trees, readdirSync(trees)[0]!, 'symbols.mpk')
      const bytes = readFileSync(file)
      bytes[bytes.length >> 1] ^= 0xff
      writeFileSync(file, bytes)
    }
    const text = samePrinting(['coderag', 'def', 'greet'], damage)
    assert.match(text.stderr, /symbols\.mpk/)
    assert.match(text.stdout, /app\/greet\.py:1/)
    samePrinting(['coderag', 'refs', 'greet', '--json'], damage)
  })

  it('reports a directory outside any repository as oclif does', () => {
    const outside = mkdtempSync(join(tmpdir(), 'vlt-outside-'))
    try {
      for (const args of [['coderag', 'def', 'greet'], ['coderag', 'map', '--json']]) {
        const viaFast = runCli(outside, args, OFF)
        const viaOclif = runCli(outside, [...args, '--cwd', outside], OFF)
        assert.deepEqual([output(viaFast), viaFast.oclif, viaOclif.oclif], [output(viaOclif), false, true], args.join(' '))
        assert.equal(viaFast.status, 2, viaFast.stderr + viaFast.stdout)
      }
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })
})
