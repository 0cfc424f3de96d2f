/**
 * How every command reports, shared by the oclif commands (VltCommand) and bin/run.js's fast
 * paths, which print without oclif and must print exactly the same. Everything printed passes
 * through src/core/display: text from the repository never reaches the terminal as raw controls.
 */
import { terminalSafeJson, visibleLine, visibleText } from '../display/index.js'
import { VltError } from '../errors.js'
import { environmentFault, takeFaultNotice } from '../store/fault.js'

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

/** oclif's own switch for stack traces (it reads `<BIN>_DEBUG`); the fast paths honour it too. */
export const DEBUG_ENV = 'GIT_VLT_DEBUG'

/**
 * The one line for an error no code of ours expected: what failed, and how to see the stack trace,
 * which only the debug switch prints. A system call's failure (a full disk, a permission) says what
 * the system said; anything else is a broken invariant — a bug — and says how to get going again.
 */
export function internalErrorMessage(command: string, error: unknown, rebuildsIndex: boolean): string {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]
  if (error instanceof Error && 'syscall' in error) return `${command} failed: ${message} (${DEBUG_ENV}=1 prints its stack trace)`
  const rebuild = rebuildsIndex ? '; `git vlt coderag init --force` rebuilds the index' : ''
  return `${command} failed: ${message} (an internal error${rebuild}; ${DEBUG_ENV}=1 prints its stack trace)`
}

/** An unexpected error's stack trace on stderr, under the debug switch only. */
export function writeStackWhenDebugging(error: unknown): void {
  const debug = process.env[DEBUG_ENV]
  if ((debug === '1' || debug === 'true') && error instanceof Error) process.stderr.write(`${visibleText(error.stack ?? error.message)}\n`)
}

/**
 * What a command prints for an error escaping it: ours (a VltError, an environment fault) in their
 * own words and exit code, anything else as internalErrorMessage() words it, exit code 1 (its stack
 * under the debug switch only). A fault noted on the way is not told again: this line says it all.
 */
export function commandFailure(command: string, error: unknown, rebuildsIndex: boolean): { message: string; exitCode: 1 | 2 } {
  const expected = error instanceof VltError ? error : environmentFault(error)
  takeFaultNotice()
  if (expected) return { message: expected.message, exitCode: expected.exitCode }
  writeStackWhenDebugging(error)
  return { message: internalErrorMessage(command, error, rebuildsIndex), exitCode: 1 }
}

/** Reports an error escaping a command as commandFailure() says (for the fast paths; VltCommand prints the same). */
export function reportCommandError(command: string, error: unknown, rebuildsIndex: boolean, json: boolean): void {
  const { message, exitCode } = commandFailure(command, error, rebuildsIndex)
  reportFailure(message, exitCode, json)
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
