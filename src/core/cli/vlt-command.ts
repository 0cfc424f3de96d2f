import { Command, Flags, ux } from '@oclif/core'
import { onConfigWarning } from '../config/warnings.js'
import { terminalSafeJson, visibleLine, visibleText } from '../display/index.js'
import { VltError } from '../errors.js'
import { errorLine, errorObject, withWarnings } from './plain-output.js'

/**
 * Base of every git-vlt command: `--json` support, and errors a user can act on printed as one
 * line (or a JSON error object) with exit code 2 for usage and 1 for failure — never a stack trace.
 * Whatever it prints passes through src/core/display, so text from the repository (file names,
 * snippets) never reaches the terminal as raw control characters.
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

  /** Settings of vlt.toml that were ignored, held for the JSON result's `warnings`. */
  private configWarnings: string[] = []

  override async init(): Promise<void> {
    await super.init()
    onConfigWarning((warning) => {
      if (this.jsonEnabled()) this.configWarnings.push(warning)
      else this.warnLine(`warning: ${warning}`)
    })
  }

  /** Directory the command works in: --cwd when given, else the process's. */
  protected workDir(flags: { cwd?: string }): string {
    return flags.cwd ?? process.cwd()
  }

  /** Warnings go to stderr in text mode; in JSON mode they belong in the result's `warnings` field. */
  protected note(message: string): void {
    if (!this.jsonEnabled()) process.stderr.write(`${visibleText(message)}\n`)
  }

  override log(message = '', ...args: unknown[]): void {
    super.log(visibleText(message), ...args)
  }

  override logJson(json: unknown): void {
    ux.stdout(terminalSafeJson(ux.colorizeJson(json, { pretty: true, theme: this.config.theme?.json })))
  }

  /** The config's warnings join the result's `warnings`; a result without that list leaves them to stderr. */
  protected override toSuccessJson(result: unknown): unknown {
    for (const warning of withWarnings(result, this.configWarnings)) this.warnLine(`warning: ${warning}`)
    this.configWarnings = []
    return result
  }

  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    for (const warning of this.configWarnings) this.warnLine(`warning: ${warning}`)
    this.configWarnings = []
    if (!(err instanceof VltError)) return super.catch(err)
    process.exitCode = err.exitCode
    if (this.jsonEnabled()) this.logJson(errorObject(err.message, err.exitCode))
    else process.stderr.write(errorLine(err.message))
    return undefined
  }

  private warnLine(line: string): void {
    process.stderr.write(`${visibleLine(line)}\n`)
  }
}
