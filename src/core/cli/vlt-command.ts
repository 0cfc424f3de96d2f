import { Command, Flags, ux } from '@oclif/core'
import { onConfigWarning } from '../config/warnings.js'
import { terminalSafeJson, visibleLine, visibleText } from '../display/index.js'
import { VltError } from '../errors.js'
import { environmentFault, takeFaultNotice, unwritableNotice } from '../store/fault.js'
import { errorLine, errorObject, withWarnings } from './plain-output.js'

/**
 * Base of every git-vlt command: `--json` support, and errors a user can act on printed as one
 * line (or a JSON error object) with exit code 2 for usage and 1 for failure — never a stack trace.
 * An environment fault (a read-only or full `.vlt/`, store/fault.ts) is one of them, whichever
 * write met it; one that only skipped writes the command could do without is told in one warning.
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
    const skipped = takeFaultNotice()
    const warnings = skipped ? [...this.configWarnings, unwritableNotice(skipped)] : this.configWarnings
    for (const warning of withWarnings(result, warnings)) this.warnLine(`warning: ${warning}`)
    this.configWarnings = []
    return result
  }

  /** In text mode, writes skipped because `.vlt/` cannot be written are told last, once (JSON: in toSuccessJson). */
  protected override async finally(err: Error | undefined): Promise<unknown> {
    const skipped = err === undefined && !this.jsonEnabled() ? takeFaultNotice() : undefined
    if (skipped) this.warnLine(`warning: ${unwritableNotice(skipped)}`)
    return super.finally(err)
  }

  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    for (const warning of this.configWarnings) this.warnLine(`warning: ${warning}`)
    this.configWarnings = []
    const failure = err instanceof VltError ? err : environmentFault(err)
    if (!failure) return super.catch(err)
    // The failure's own line says it all.
    takeFaultNotice()
    process.exitCode = failure.exitCode
    if (this.jsonEnabled()) this.logJson(errorObject(failure.message, failure.exitCode))
    else process.stderr.write(errorLine(failure.message))
    return undefined
  }

  private warnLine(line: string): void {
    process.stderr.write(`${visibleLine(line)}\n`)
  }
}
