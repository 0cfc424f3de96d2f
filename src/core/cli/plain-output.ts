/**
 * How every command reports, shared by the oclif commands (VltCommand) and bin/run.js's fast
 * paths, which print without oclif and must print exactly the same. Everything printed passes
 * through src/core/display: text from the repository never reaches the terminal as raw controls.
 */
import { terminalSafeJson, visibleLine, visibleText } from '../display/index.js'

/** The JSON object a failed command prints with `--json`. */
export function errorObject(message: string, exitCode: 1 | 2): { error: { message: string; code: 'usage' | 'failure' } } {
  return { error: { message, code: exitCode === 2 ? 'usage' : 'failure' } }
}

/** The one line a failed command prints on stderr without `--json`. */
export function errorLine(message: string): string {
  return `git vlt: ${visibleLine(message)}\n`
}

/** `--json` output as oclif prints it when no colour theme is set. */
export function jsonText(value: unknown): string {
  return `${terminalSafeJson(JSON.stringify(value, null, 2))}\n`
}

export function linesText(lines: readonly string[]): string {
  return lines.map((line) => `${visibleText(line)}\n`).join('')
}

/** A failure the user can act on, reported as an oclif command would: exit code, then JSON or one line. */
export function reportFailure(message: string, exitCode: 1 | 2, json: boolean): void {
  process.exitCode = exitCode
  if (json) process.stdout.write(jsonText(errorObject(message, exitCode)))
  else process.stderr.write(errorLine(message))
}

/**
 * Puts `warnings` (the config's) first in a JSON result's `warnings` list when it has one; returns
 * those it could not place, for stderr. Commands without such a list keep their shape.
 */
export function withWarnings(result: unknown, warnings: readonly string[]): readonly string[] {
  if (warnings.length === 0) return []
  const list = typeof result === 'object' && result !== null ? (result as { warnings?: unknown }).warnings : undefined
  if (!Array.isArray(list)) return warnings
  list.unshift(...warnings.filter((warning) => !list.includes(warning)))
  return []
}
