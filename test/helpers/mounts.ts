/**
 * Real filesystem faults for the CLI, without root: each run happens in a private mount namespace
 * (`unshare --map-root-user --mount`, which Linux grants an unprivileged user where user namespaces
 * are enabled, and root anyway), where `.vlt` is a read-only bind mount or a small tmpfs. The kernel
 * itself answers EROFS or ENOSPC; nothing in git-vlt is told it is being tested. The mounts vanish
 * with the run, so the test sees the files as the run left them.
 */
import { spawn, spawnSync } from 'node:child_process'
import { CLI, cliEnv, type CliRun } from './cli.js'

let allowed: boolean | undefined

/** Whether this machine lets a test mount in a namespace of its own (else such tests are skipped, saying why). */
export function canMount(): boolean {
  allowed ??= spawnSync('unshare', ['--map-root-user', '--mount', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null || mount -t tmpfs -o size=64k tmpfs /tmp'], { stdio: 'ignore' }).status === 0
  return allowed
}

export const MOUNT_UNAVAILABLE = 'needs mount namespaces (unshare --map-root-user --mount): neither root nor unprivileged user namespaces here'

/** The CLI as `vlt()` runs it, with `vltDir` mounted read-only for this run only. */
export function vltReadOnly(cwd: string, vltDir: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return run(readOnlyCommand(vltDir, [process.execPath, CLI, ...args]), cwd, env)
}

/** The argv that runs `command` with `vltDir` read-only (for a long-lived process: the MCP server). */
export function readOnlyCommand(vltDir: string, command: string[]): string[] {
  const mount = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && exec "$@"'
  return ['unshare', '--map-root-user', '--mount', 'sh', '-c', mount, vltDir, ...command]
}

/**
 * Runs a bash script in a private mount namespace, in `cwd`, with `$VLT_CLI` set to the built CLI
 * (`node bin/run.js`) and the CLI's test environment: for scenarios on a small tmpfs, mounted and
 * resized by the script itself.
 */
export function inMountNamespace(cwd: string, script: string, env: Record<string, string> = {}): Promise<CliRun> {
  return run(['unshare', '--map-root-user', '--mount', 'bash', '-euc', script], cwd, { VLT_CLI: `${process.execPath} ${CLI}`, ...env })
}

function run([command, ...args]: string[], cwd: string, env: Record<string, string>): Promise<CliRun> {
  const child = spawn(command!, args, { cwd, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })))
}
