import { strict as assert } from 'node:assert'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
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

describe('coderag query fast path (built CLI)', function () {
  this.timeout(90_000)
  let repo: GitFixture
  let probeDir: string

  // Records whether the CLI loaded oclif: the fast path must not.
  function run(args: string[], env: Record<string, string> = ON, input?: string): CliRun & { oclif: boolean } {
    const probe = join(probeDir, 'probe.cjs')
    const out = join(probeDir, 'loaded')
    rmSync(out, { force: true })
    const child = spawnSync(process.execPath, [CLI, ...args], {
      cwd: repo.dir,
      encoding: 'utf8',
      input,
      env: cliEnv({ ...env, NODE_OPTIONS: `--require ${probe}`, PROBE_LOADED_FILE: out }),
    })
    return { status: child.status, stdout: child.stdout, stderr: child.stderr, oclif: readFileSync(out, 'utf8') === 'true' }
  }
  const served = (): number => vltJson(repo.dir, ['daemon', 'status'], ON).daemon.served as number
  const output = (run: CliRun) => ({ status: run.status, stdout: run.stdout, stderr: run.stderr })

  before(() => {
    probeDir = mkdtempSync(join(tmpdir(), 'vlt-probe-'))
    writeFileSync(
      join(probeDir, 'probe.cjs'),
      "process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_LOADED_FILE, String(Object.keys(require.cache).some((path) => path.includes('@oclif')))))\n",
    )
  })
  after(() => rmSync(probeDir, { recursive: true, force: true }))
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

  it('leaves help, bad values and a disabled daemon to oclif', () => {
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

    const off = run(['coderag', 'def', 'greet', '--json'], { GIT_VLT_DAEMON: '0' })
    assert.deepEqual([off.status, off.oclif], [0, true])
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

  it('leaves the query to oclif when no daemon answers, which runs it in process and starts one', async () => {
    vlt(repo.dir, ['daemon', 'stop'], ON)
    const cold = run(['coderag', 'def', 'greet', '--json'])
    assert.deepEqual([cold.status, cold.oclif], [0, true])
    const deadline = Date.now() + 20_000
    while (vltJson(repo.dir, ['daemon', 'status'], ON).daemon === null) {
      assert.ok(Date.now() < deadline, 'no daemon was started')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const warm = run(['coderag', 'def', 'greet', '--json'])
    assert.deepEqual([warm.stdout, warm.oclif], [cold.stdout, false])
  })
})
