import { strict as assert } from 'node:assert'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { completionScript, type CompletableCommand } from '../../src/core/cli/completion.js'
import { bashCompletes, GIT_BASH_COMPLETION } from '../helpers/completion.js'

const COMMANDS: CompletableCommand[] = [
  { id: 'coderag:search', flags: { json: {}, limit: { char: 'n' }, lang: { options: ['python', 'go'] }, secret: { hidden: true } } },
  { id: 'coderag:status', flags: { json: {} } },
  { id: 'oracle', flags: { json: {} } },
  { id: 'daemon:serve', hidden: true, flags: {} },
  { id: 'daemon:start', flags: {} },
]

function hasShell(shell: string): boolean {
  return spawnSync(shell, ['-c', 'true']).status === 0
}

describe('shell completion', () => {
  it('bash, through git\'s completion: commands, subcommands, flags and flag values, past a flag\'s value', function () {
    if (!existsSync(GIT_BASH_COMPLETION)) this.skip()
    const script = completionScript('bash', COMMANDS, '1.0.0')
    assert.deepEqual(bashCompletes(script, 'git vlt cod'), ['coderag'])
    assert.deepEqual(bashCompletes(script, 'git vlt '), ['coderag', 'daemon', 'oracle'])
    assert.deepEqual(bashCompletes(script, 'git vlt daemon '), ['start'], 'hidden commands are left out')
    assert.deepEqual(bashCompletes(script, 'git vlt coderag s'), ['search', 'status'])
    assert.deepEqual(bashCompletes(script, 'git vlt coderag search --l'), ['--lang', '--limit'])
    assert.deepEqual(bashCompletes(script, 'git vlt coderag search --lang '), ['go', 'python'])
    assert.deepEqual(bashCompletes(script, 'git -C x vlt coderag search -n 5 --j'), ['--json'])
    assert.deepEqual(bashCompletes(script, 'git-vlt or'), ['oracle'])
  })

  it('zsh: the _git-vlt function zsh\'s git completion calls', function () {
    if (!hasShell('zsh')) this.skip()
    const script = completionScript('zsh', COMMANDS, '1.0.0')
    const dir = mkdtempSync(join(tmpdir(), 'vlt-completion-'))
    try {
      writeFileSync(join(dir, '_git-vlt'), script)
      // compadd filters by prefix itself: the stub shows what was offered.
      const program = `compdef() { :; }; source ${join(dir, '_git-vlt')}; compadd() { shift; print -r -- "$@"; }; _files() { print FILES; }
t() { words=("$@"); CURRENT=$#; _git-vlt; }
t vlt cod; t vlt coderag search --l; t vlt coderag search --lang p; t vlt oracle why`
      const run = spawnSync('zsh', ['-fc', program], { encoding: 'utf8' })
      assert.equal(run.status, 0, run.stderr)
      assert.deepEqual(run.stdout.trim().split('\n'), ['coderag daemon oracle', '--help --json --lang --limit -n', 'python go', 'FILES'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('fish: git vlt and git-vlt', function () {
    if (!hasShell('fish')) this.skip()
    const script = completionScript('fish', COMMANDS, '1.0.0')
    const dir = mkdtempSync(join(tmpdir(), 'vlt-completion-'))
    try {
      writeFileSync(join(dir, 'git-vlt.fish'), script)
      const program = `source ${join(dir, 'git-vlt.fish')}; complete -C 'git vlt cod'; complete -C 'git vlt coderag search --lang p'; complete -C 'git-vlt coderag st'`
      const run = spawnSync('fish', ['--no-config', '-c', program], { encoding: 'utf8' })
      assert.equal(run.status, 0, run.stderr)
      assert.deepEqual(run.stdout.trim().split('\n'), ['coderag', 'python', 'status'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
