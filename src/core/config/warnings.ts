/**
 * Settings a repository's `vlt.toml` may not decide are ignored, not fatal, and the user is told
 * once per process, however many times the config is read. A command decides where the lines go
 * (stderr in text mode, its `--json` warnings); a process without one (the daemon, the MCP server,
 * the background indexer) writes them to stderr, i.e. its log.
 */
import { visibleLine } from '../display/index.js'

const reported = new Set<string>()
let listener: ((warning: string) => void) | undefined

export function reportConfigWarning(warning: string): void {
  if (reported.has(warning)) return
  reported.add(warning)
  if (listener) listener(warning)
  else process.stderr.write(`${visibleLine(`warning: ${warning}`)}\n`)
}

/** Sends later config warnings to `receive` (undefined: back to stderr). */
export function onConfigWarning(receive: ((warning: string) => void) | undefined): void {
  listener = receive
}
