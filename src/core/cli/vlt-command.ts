import { Command, Errors, Flags, ux, type Interfaces } from '@oclif/core'
import { onConfigWarning } from '../config/warnings.js'
import { terminalSafeJson, visibleLine, visibleText } from '../display/index.js'
import { UsageError } from '../errors.js'
import { takeFaultNotice, unwritableNotice } from '../store/fault.js'
import { commandFailure, errorLine, errorObject, withWarnings } from './plain-output.js'

/** oclif's FlagOutput and ArgOutput, which its public interfaces do not export. */
type ParsedValues = { [name: string]: any }

/**
 * Base of every git-vlt command: `--json` support, and errors printed as one line (or the JSON
 * error object) with exit code 2 for usage — ours and oclif's parser's alike — and 1 for failure,
 * never a stack trace: a bug is one line too, saying how to recover (see commandFailure).
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

  /**
   * Everything oclif's parser rejects (an unknown flag, `--limit -1`, a missing argument, a `--cwd`
   * that is no directory) is a usage error, reported like any other.
   */
  protected override async parse<F extends ParsedValues, B extends ParsedValues, A extends ParsedValues>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    try {
      return await super.parse(options, argv)
    } catch (error) {
      throw new UsageError(parserMessage(error))
    }
  }

  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    for (const warning of this.configWarnings) this.warnLine(`warning: ${warning}`)
    this.configWarnings = []
    // oclif's own exits (`this.exit()`) are its to finish.
    if (err instanceof Errors.CLIError) return super.catch(err)
    const { message, exitCode } = commandFailure((this.id ?? '').replaceAll(':', ' '), err, indexCommand(this.id))
    process.exitCode = exitCode
    if (this.jsonEnabled()) this.logJson(errorObject(message, exitCode))
    else process.stderr.write(errorLine(message))
    return undefined
  }

  private warnLine(line: string): void {
    process.stderr.write(`${visibleLine(line)}\n`)
  }
}

/** Commands that build or read the code index, whose failures a rebuild of it may cure. */
function indexCommand(id: string | undefined): boolean {
  return id !== undefined && (id.startsWith('coderag:') || id === 'oracle')
}

/**
 * oclif's parser message on one line: "Parsing --limit \n\tExpected an integer … -1\nSee more help
 * with --help" becomes "--limit: Expected an integer … -1 (see --help)".
 */
function parserMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const lines = message.replace(/^Parsing (--\S+)\s*\n\s*/, '$1: ').split('\n').filter((line) => line.trim() !== 'See more help with --help')
  return `${lines.map((line) => line.trim().replace(/\s+/g, ' ')).filter(Boolean).join(' ')} (see --help)`
}
