import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * A "language server" named `name` in `bin` that reads its requests and never answers; returns the
 * file it writes its pid to once started.
 */
export function hangingServer(bin: string, name: string): string {
  const pidFile = join(bin, `${name}.pid`)
  writeFileSync(join(bin, name), `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid))\nprocess.stdin.on('data', () => {})\nsetInterval(() => {}, 1000)\n`)
  chmodSync(join(bin, name), 0o755)
  return pidFile
}

/**
 * A "language server" named `name` in `bin` that runs `before` (script text) on each start, then
 * `real` in its place (stdio passed through, a SIGTERM passed on).
 */
function wrappingServer(bin: string, name: string, real: string, before: string): void {
  writeFileSync(
    join(bin, name),
    `#!${process.execPath}\n${before}\n` +
      `const child = require('child_process').spawn(${JSON.stringify(real)}, process.argv.slice(2), { stdio: 'inherit' })\n` +
      `child.on('exit', (code) => process.exit(code ?? 1))\nprocess.on('SIGTERM', () => child.kill())\n`,
  )
  chmodSync(join(bin, name), 0o755)
}

/** A server wrapping `real` (see wrappingServer) that appends a line to the returned file each time it starts. */
export function countingServer(bin: string, name: string, real: string): string {
  const log = join(bin, `${name}.starts`)
  writeFileSync(log, '')
  wrappingServer(bin, name, real, `require('fs').appendFileSync(${JSON.stringify(log)}, 'started\\n')`)
  return log
}

/**
 * A server wrapping `real` (see wrappingServer) that writes the values of `variables` in its
 * environment (as JSON, unset ones null) to the returned file.
 */
export function environmentServer(bin: string, name: string, real: string, variables: readonly string[]): string {
  const out = join(bin, `${name}.env.json`)
  wrappingServer(
    bin,
    name,
    real,
    `require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.fromEntries(${JSON.stringify(variables)}.map((v) => [v, process.env[v] ?? null]))))`,
  )
  return out
}
