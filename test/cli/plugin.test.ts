import { strict as assert } from 'node:assert'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cliEnv } from '../helpers/cli.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

describe('packaging', () => {
  it('loads as an oclif plugin of another CLI', () => {
    const host = mkdtempSync(join(tmpdir(), 'vlt-host-'))
    try {
      mkdirSync(join(host, 'node_modules', '@oclif'), { recursive: true })
      symlinkSync(ROOT, join(host, 'node_modules', 'git-vlt'))
      symlinkSync(join(ROOT, 'node_modules', '@oclif', 'core'), join(host, 'node_modules', '@oclif', 'core'))
      writeFileSync(
        join(host, 'package.json'),
        JSON.stringify({ name: 'host-cli', version: '1.0.0', type: 'module', dependencies: { 'git-vlt': '*', '@oclif/core': '*' }, oclif: { bin: 'host', topicSeparator: ' ', plugins: ['git-vlt'] } }),
      )
      writeFileSync(join(host, 'run.js'), "import { execute } from '@oclif/core'\nawait execute({ dir: import.meta.url })\n")
      const run = spawnSync(process.execPath, [join(host, 'run.js'), 'coderag', 'status', '--help'], { cwd: host, encoding: 'utf8', env: cliEnv() })
      assert.equal(run.status, 0, run.stderr)
      assert.match(run.stdout, /host coderag status/)
      assert.match(run.stdout, /EXAMPLES/)
    } finally {
      rmSync(host, { recursive: true, force: true })
    }
  })

  it('runs as a git subcommand once git-vlt is on PATH', () => {
    const bin = mkdtempSync(join(tmpdir(), 'vlt-path-'))
    const outside = mkdtempSync(join(tmpdir(), 'vlt-nogit-'))
    try {
      symlinkSync(join(ROOT, 'bin', 'run.js'), join(bin, 'git-vlt'))
      const env = cliEnv({ PATH: `${bin}:${process.env.PATH}`, GIT_CEILING_DIRECTORIES: tmpdir() })
      const help = spawnSync('git', ['vlt', 'coderag', 'init', '--help'], { cwd: ROOT, encoding: 'utf8', env })
      assert.equal(help.status, 0, help.stderr)
      assert.match(help.stdout, /\$ git vlt coderag init/)
      const run = spawnSync('git', ['vlt', 'coderag', 'status'], { cwd: outside, encoding: 'utf8', env })
      assert.equal(run.status, 2)
      assert.match(run.stderr, /^git vlt: not a git repository/)
    } finally {
      rmSync(bin, { recursive: true, force: true })
      rmSync(outside, { recursive: true, force: true })
    }
  })

  it('ships a manifest listing every command, with the git-vlt executable', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    assert.deepEqual(pkg.bin, { 'git-vlt': './bin/run.js' })
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
    for (const id of ['coderag:init', 'coderag:sync', 'coderag:status']) {
      assert.ok(manifest.commands[id], `${id} in oclif.manifest.json`)
      assert.ok(manifest.commands[id].examples.length > 0, `${id} has examples`)
    }
  })
})
