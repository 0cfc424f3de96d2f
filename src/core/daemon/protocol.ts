/**
 * The daemon's wire format: one JSON object per line each way, over a unix socket (a named pipe on
 * Windows). A client sends one request per connection; the daemon answers `accepted` at once, then
 * one final reply. Every request carries the client's build and environment fingerprint: a daemon
 * started by another installation of git-vlt (an upgrade, a rebuild) or with another environment
 * (an API key set since) answers `mismatch` and exits, and the client runs the query itself.
 */
import type { QueryName } from '../cli/queries.js'

export const PROTOCOL_VERSION = 1

export interface RequestBase {
  protocol: number
  build: string
  env: string
  /** The `.vlt` directory the client resolved; a daemon of another repository refuses. */
  vltDir: string
}

export type DaemonRequest =
  | (RequestBase & { type: 'query'; command: QueryName; params: unknown })
  | (RequestBase & { type: 'status' })
  /** `reason` goes into the daemon's log (e.g. the per-user cap, see registry.ts). */
  | (RequestBase & { type: 'stop'; reason?: string })

export interface DaemonStatus {
  pid: number
  /** Whether this daemon answers the asking client: same build of git-vlt and same environment. */
  current: boolean
  startedAt: string
  build: string
  socket: string
  /** Query requests answered since start. */
  served: number
  /** Requests being answered right now. */
  active: number
  idleTimeoutMs: number
  lastRequestAt: string | null
}

export type DaemonReply =
  | { type: 'accepted' }
  /** `notes` are the lines the command prints on stderr in text mode (warnings), in order. */
  | { type: 'result'; result: unknown; notes: string[] }
  /** A VltError: the client prints it exactly as the in-process command would. */
  | { type: 'error'; message: string; exitCode: 1 | 2; notes: string[] }
  /** Anything else went wrong in the daemon: the client runs the query itself. */
  | { type: 'failed'; message: string }
  | { type: 'mismatch'; reason: string }
  | { type: 'status'; status: DaemonStatus }
  | { type: 'stopping'; pid: number }

/**
 * Splits a byte stream into lines and hands each parsed JSON object on; a line that is not JSON
 * ends the exchange. Lines are decoded whole, so a character split across chunks stays intact.
 */
export function lineReader(onMessage: (message: unknown) => void, onGarbage: () => void): (chunk: Buffer) => void {
  let parts: Buffer[] = []
  return (chunk) => {
    let start = 0
    let end: number
    while ((end = chunk.indexOf(0x0a, start)) >= 0) {
      parts.push(chunk.subarray(start, end))
      const line = Buffer.concat(parts).toString('utf8')
      parts = []
      start = end + 1
      let message: unknown
      try {
        message = JSON.parse(line)
      } catch {
        onGarbage()
        return
      }
      onMessage(message)
    }
    if (start < chunk.length) parts.push(chunk.subarray(start))
  }
}

export function encodeLine(message: DaemonRequest | DaemonReply): string {
  return `${JSON.stringify(message)}\n`
}
