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
