import { terminalProgress } from '../../core/cli/progress.js'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { syncIndex, type SyncResult } from '../../core/index/index.js'

export default class CoderagSync extends VltCommand {
  static override summary = 'Update the index with what changed since it was last built.'
  static override description = `Diffs the last indexed tree against HEAD's and re-processes only the blobs that
changed (a tree indexed before, e.g. after switching back to a branch, is reused as is), then
refreshes the overlay of uncommitted working-tree changes. Prints what it re-processed.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Catch up after commits, checkouts or edits.' },
    { command: '<%= config.bin %> <%= command.id %> --json', description: 'Print {treeHash, previousTreeHash, mode, changed, extracted, overlay, durationMs}.' },
  ]

  async run(): Promise<SyncResult> {
    const { flags } = await this.parse(CoderagSync)
    const result = await syncIndex(this.workDir(flags), {
      progress: this.jsonEnabled() ? undefined : terminalProgress(),
      warn: (message) => this.note(message),
    })
    const tree = result.treeHash.slice(0, 12)
    const what =
      result.mode === 'unchanged' ? `tree ${tree} already indexed`
      : result.mode === 'reused' ? `tree ${tree} was indexed before: reused`
      : `tree ${tree}: ${result.changed.length} changed path(s), ${result.mode}`
    this.log(`${what}; ${result.extracted.length} file(s) re-processed; ${result.overlay.files} uncommitted change(s) in the overlay (${result.durationMs} ms)`)
    for (const path of result.extracted) this.log(`  ${path}`)
    return result
  }
}
