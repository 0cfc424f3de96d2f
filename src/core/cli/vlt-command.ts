import { Command, Flags } from '@oclif/core'
import { VltError } from '../errors.js'
import { errorLine, errorObject } from './plain-output.js'

/**
 * Base of every git-vlt command: `--json` support, and errors a user can act on printed as one
 * line (or a JSON error object) with exit code 2 for usage and 1 for failure — never a stack trace.
 */
export abstract class VltCommand extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    cwd: Flags.directory({
      description: 'Run as if git-vlt was started in this directory.',
      helpGroup: 'GLOBAL',
      exists: true,
    }),
  }

  /** Directory the command works in: --cwd when given, else the process's. */
  protected workDir(flags: { cwd?: string }): string {
    return flags.cwd ?? process.cwd()
  }

  /** Warnings go to stderr in text mode; in JSON mode they belong in the result's `warnings` field. */
  protected note(message: string): void {
    if (!this.jsonEnabled()) process.stderr.write(`${message}\n`)
  }

  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    if (!(err instanceof VltError)) return super.catch(err)
    process.exitCode = err.exitCode
    if (this.jsonEnabled()) this.logJson(errorObject(err.message, err.exitCode))
    else process.stderr.write(errorLine(err.message))
    return undefined
  }
}
