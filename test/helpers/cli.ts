import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ISOLATED_CONFIG_ENV } from './user-config.js'

/**
 * The daemons a test starts register in this run's own runtime folder (src/core/daemon/registry.ts),
 * never the user's: their per-user cap must not stop a developer's daemons, nor another run's.
 */
export const RUNTIME_DIR = mkdtempSync(join(tmpdir(), 'vlt-runtime-'))
process.on('exit', () => rmSync(RUNTIME_DIR, { recursive: true, force: true }))

/** The built CLI, run exactly as a user's shell would (`npm test` builds first). */
export const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'run.js')

export interface CliRun {
  status: number | null
  stdout: string
  stderr: string
}

/**
 * Environment isolated from the user's git config, from the user's git-vlt config (see
 * user-config.ts; pass GIT_VLT_CONFIG in `extra` to give one), from the user's daemons (RUNTIME_DIR)
 * and from CI's TTY-less quirks. Query commands run in process (GIT_VLT_DAEMON=0) so that no test
 * leaves a daemon behind; daemon tests opt in.
 */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', NO_COLOR: '1', GIT_VLT_DAEMON: '0', XDG_RUNTIME_DIR: RUNTIME_DIR, ...ISOLATED_CONFIG_ENV, ...extra }
}

export function vlt(cwd: string, args: string[], env: Record<string, string> = {}): CliRun {
  const child = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: cliEnv(env), maxBuffer: 1 << 26 })
  return { status: child.status, stdout: child.stdout, stderr: child.stderr }
}

/** Runs with --json and parses stdout; fails loudly with stderr when the command did not succeed. */
export function vltJson<T = any>(cwd: string, args: string[], env: Record<string, string> = {}): T {
  const run = vlt(cwd, [...args, '--json'], env)
  if (run.status !== 0) throw new Error(`git vlt ${args.join(' ')} exited ${run.status}\n${run.stderr}\n${run.stdout}`)
  return JSON.parse(run.stdout) as T
}

/** Starts the CLI without waiting (for kill tests). */
export function vltSpawn(cwd: string, args: string[], env: Record<string, string> = {}) {
  return spawn(process.execPath, [CLI, ...args], { cwd, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
}

/** Like vlt(), without blocking this process's event loop (needed when the test serves HTTP the CLI calls). */
export function vltAsync(cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const child = vltSpawn(cwd, args, env)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => (stdout += chunk))
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })))
}

/** vltJson() without blocking the event loop. */
export async function vltJsonAsync<T = any>(cwd: string, args: string[], env: Record<string, string> = {}): Promise<T> {
  const run = await vltAsync(cwd, [...args, '--json'], env)
  if (run.status !== 0) throw new Error(`git vlt ${args.join(' ')} exited ${run.status}\n${run.stderr}\n${run.stdout}`)
  return JSON.parse(run.stdout) as T
}
