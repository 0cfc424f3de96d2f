/**
 * Where a repository's query daemon lives: `.vlt/run/` holds its socket and log. A unix socket
 * path must fit sun_path (104 bytes on macOS, 108 on Linux), so a deep repository gets its socket
 * in the temporary directory instead, named by a hash of its `.vlt` path (and the user, since
 * that directory is shared).
 */
import { createHash } from 'node:crypto'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'

/** The daemon holds `.vlt/locks/daemon.lock` while it runs (see src/core/store/lock.ts). */
export const DAEMON_LOCK = 'daemon'

/** Room left under the smallest sun_path for the terminating NUL and a margin. */
const MAX_SOCKET_PATH_BYTES = 100

export interface DaemonPaths {
  runDir: string
  socket: string
  log: string
}

export function daemonPaths(vltDir: string, platform: NodeJS.Platform = process.platform): DaemonPaths {
  const runDir = join(vltDir, 'run')
  return { runDir, socket: socketPath(vltDir, runDir, platform), log: join(runDir, 'daemon.log') }
}

function socketPath(vltDir: string, runDir: string, platform: NodeJS.Platform): string {
  const hash = createHash('sha256').update(vltDir).digest('hex').slice(0, 16)
  if (platform === 'win32') return `\\\\.\\pipe\\git-vlt-${hash}`
  const local = join(runDir, 'daemon.sock')
  if (Buffer.byteLength(local) <= MAX_SOCKET_PATH_BYTES) return local
  return join(tmpdir(), `git-vlt-${userInfo().uid}-${hash}.sock`)
}
