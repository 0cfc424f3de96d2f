/**
 * `git vlt coderag sync` without oclif. The git hooks and agents run it after every commit and
 * before queries; loading @oclif/core alone costs ~75 ms, more than the sync itself when nothing
 * changed. Only the plain forms are taken here (`--json`, `--force`); anything else — help,
 * `--cwd`, `--queued`, a typo — goes through oclif, which owns parsing and its error messages.
 */
import { visibleText } from '../display/index.js'
import { VltError } from '../errors.js'
import { syncIndex } from '../index/index.js'
import { jsonText, linesText, reportFailure } from './plain-output.js'
import { terminalProgress } from './progress.js'
import { syncReport } from './sync-report.js'

const FLAGS = new Set(['--json', '--force'])

/**
 * Runs the sync and returns true when `argv` (`coderag sync …`, as fast-path.ts dispatches it) is
 * a form this path serves; false leaves it to oclif.
 */
export async function tryFastSync(argv: readonly string[]): Promise<boolean> {
  const flags = argv.slice(2)
  if (!flags.every((flag) => FLAGS.has(flag)) || new Set(flags).size !== flags.length) return false
  const json = flags.includes('--json')
  const warn = (message: string): void => {
    if (!json) process.stderr.write(visibleText(`${message}\n`))
  }
  try {
    const result = await syncIndex(process.cwd(), { progress: json ? undefined : terminalProgress(), warn })
    process.stdout.write(json ? jsonText(result) : linesText(syncReport(result)))
  } catch (error) {
    if (!(error instanceof VltError)) throw error
    reportFailure(error.message, error.exitCode, json)
  }
  return true
}
