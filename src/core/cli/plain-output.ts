/**
 * How every command reports, shared by the oclif commands (VltCommand) and bin/run.js's fast
 * paths, which print without oclif and must print exactly the same.
 */

/** The JSON object a failed command prints with `--json`. */
export function errorObject(message: string, exitCode: 1 | 2): { error: { message: string; code: 'usage' | 'failure' } } {
  return { error: { message, code: exitCode === 2 ? 'usage' : 'failure' } }
}

/** The one line a failed command prints on stderr without `--json`. */
export function errorLine(message: string): string {
  return `git vlt: ${message}\n`
}

/** `--json` output as oclif prints it when no colour theme is set. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}

export function linesText(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('')
}

/** A failure the user can act on, reported as an oclif command would: exit code, then JSON or one line. */
export function reportFailure(message: string, exitCode: 1 | 2, json: boolean): void {
  process.exitCode = exitCode
  if (json) process.stdout.write(jsonText(errorObject(message, exitCode)))
  else process.stderr.write(errorLine(message))
}
