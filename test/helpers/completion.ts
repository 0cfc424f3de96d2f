import { strict as assert } from 'node:assert'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Where Debian's git package puts its bash completion (the one that calls _git_vlt). */
export const GIT_BASH_COMPLETION = '/usr/share/bash-completion/completions/git'

/**
 * What bash completes for `line` (ending in the word being completed) through git's own completion
 * with `script` loaded, as a user's TAB would: git's completion dispatches to _git_vlt.
 */
export function bashCompletes(script: string, line: string): string[] {
  const words = line.split(' ')
  const program = [
    `source ${GIT_BASH_COMPLETION}`,
    'source "$SCRIPT"',
    `COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    `COMP_LINE='${line}'`,
    'COMP_POINT=${#COMP_LINE}',
    words[0] === 'git' ? '__git_wrap__git_main' : '_git_vlt',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n')
  const dir = mkdtempSync(join(tmpdir(), 'vlt-completion-'))
  try {
    writeFileSync(join(dir, 'script'), script)
    const run = spawnSync('bash', ['-c', program], { encoding: 'utf8', env: { PATH: process.env.PATH, SCRIPT: join(dir, 'script') } })
    assert.equal(run.status, 0, run.stderr)
    return run.stdout.split('\n').filter(Boolean).sort()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
