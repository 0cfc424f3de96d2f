import { strict as assert } from 'node:assert'
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bashCompletes, GIT_BASH_COMPLETION } from '../helpers/completion.js'
import { startLocalRegistry, type LocalRegistry } from '../helpers/local-registry.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** Issue 22: what `npm install -g` of the package may take on disk. */
const MAX_INSTALLED_BYTES = 60 * 1024 * 1024

function run(command: string, args: string[], options: SpawnSyncOptions = {}): string {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 26, ...options })
  assert.equal(result.status, 0, `${command} ${args.join(' ')}: ${result.stderr}`)
  return result.stdout as string
}

/** Like run(), leaving this process's event loop free: the local registry answers from it. */
function runAsync(command: string, args: string[], cwd: string): Promise<void> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve, reject) =>
    child.on('close', (status) => (status === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${status}: ${stderr}`)))),
  )
}

function diskBytes(path: string): number {
  const stat = statSync(path, { bigint: false })
  if (!stat.isDirectory()) return stat.blocks * 512
  return readdirSync(path).reduce((sum, name) => sum + diskBytes(join(path, name)), stat.blocks * 512)
}

/** package.json files under `dir`'s node_modules whose package runs something when installed. */
function installScripts(dir: string): string[] {
  const found: string[] = []
  const visit = (modules: string) => {
    if (!existsSync(modules)) return
    for (const name of readdirSync(modules)) {
      if (name.startsWith('.')) continue
      if (name.startsWith('@')) {
        for (const scoped of readdirSync(join(modules, name))) check(join(modules, name, scoped))
      } else check(join(modules, name))
    }
  }
  const check = (pkg: string) => {
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { name: string; scripts?: Record<string, string> }
    const scripts = ['preinstall', 'install', 'postinstall'].filter((hook) => manifest.scripts?.[hook])
    if (scripts.length > 0 || existsSync(join(pkg, 'binding.gyp'))) found.push(`${manifest.name} (${scripts.join(', ') || 'binding.gyp'})`)
    visit(join(pkg, 'node_modules'))
  }
  visit(join(dir, 'node_modules'))
  return found
}

describe('installed from the packed tarball (npm install -g --prefix)', function () {
  this.timeout(240_000)
  let work: string
  let prefix: string
  let registry: LocalRegistry
  let env: NodeJS.ProcessEnv

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'vlt-install-'))
    prefix = join(work, 'prefix')
    const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT })) as Array<{ filename: string }>
    registry = await startLocalRegistry(join(ROOT, 'package-lock.json'), run('npm', ['config', 'get', 'cache']).trim())
    // A cache of its own, so that nothing comes from anywhere but the local registry.
    const tarball = join(work, packed[0]!.filename)
    await runAsync('npm', ['install', '-g', '--prefix', prefix, tarball, '--registry', registry.url, '--cache', join(work, 'cache'), '--no-audit', '--no-fund', '--userconfig', join(work, 'npmrc')], work)
    env = {
      PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
      HOME: work,
      MANPATH: join(prefix, 'share', 'man'),
      MANPAGER: 'cat',
      GIT_PAGER: 'cat',
      MANWIDTH: '80',
      NO_COLOR: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
    }
  })
  after(async () => {
    await registry?.close()
    rmSync(work, { recursive: true, force: true })
  })

  it('git vlt --help shows the man page, through git', () => {
    const page = run('git', ['vlt', '--help'], { cwd: work, env })
    assert.match(page, /^GIT-VLT\(1\)/m)
    assert.match(page, /\$ git vlt \[COMMAND\]/)
    assert.match(page, /coderag\s+Build, update and inspect the code index/)
    assert.match(run('man', ['git-vlt-coderag'], { cwd: work, env }), /GIT VLT CODERAG SEARCH/)
  })

  it('git vlt help coderag and git vlt -h print the help, as git vlt', () => {
    const topic = run('git', ['vlt', 'help', 'coderag'], { cwd: work, env })
    assert.match(topic, /\$ git vlt coderag COMMAND/)
    assert.match(topic, /coderag search\s+Search the code/)
    assert.match(run('git', ['vlt', '-h'], { cwd: work, env }), /USAGE\s+\$ git vlt \[COMMAND\]/)
  })

  it('completes git vlt cod<TAB> to coderag in bash', function () {
    if (!existsSync(GIT_BASH_COMPLETION)) this.skip()
    const script = run('git', ['vlt', 'completion', 'bash'], { cwd: work, env })
    assert.deepEqual(bashCompletes(script, 'git vlt cod'), ['coderag'])
  })

  it(`takes at most ${MAX_INSTALLED_BYTES / 1024 / 1024} MB, with no dependency that runs an install script`, () => {
    const size = diskBytes(prefix)
    assert.ok(size <= MAX_INSTALLED_BYTES, `installed size ${(size / 1024 / 1024).toFixed(1)} MB`)
    const installed = join(prefix, 'lib', 'node_modules', 'git-vlt')
    assert.deepEqual(installScripts(installed), [])
    // Nor git-vlt itself: npm 11 warns about any lifecycle script of an installed package, prepare included.
    const own = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }
    assert.deepEqual(Object.keys(own.scripts ?? {}).filter((name) => /^(pre|post)?(install|prepare)$/.test(name)), [])
    // The registry here serves the lockfile's versions; a real one may serve newer ones, which the
    // lockfile's production tree stands for.
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }> }
    const scripted = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && !entry.dev && entry.hasInstallScript).map(([path]) => path)
    assert.deepEqual(scripted, [])
  })

  it('decodes strings natively with the prebuilt binary of this platform, without msgpackr-extract', function () {
    if (`${process.platform}-${process.arch}` !== 'linux-x64') this.skip()
    const installed = join(prefix, 'lib', 'node_modules', 'git-vlt')
    assert.ok(!existsSync(join(installed, 'node_modules', 'msgpackr-extract')))
    const module = join(installed, 'dist', 'core', 'store', 'msgpack.js')
    const probe = `import(${JSON.stringify(module)}).then((m) => process.stdout.write(String(m.nativeStrings)))`
    assert.equal(run(process.execPath, ['--input-type=module', '-e', probe], { cwd: work, env }), 'true')
  })
})
