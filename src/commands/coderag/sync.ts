import { Flags } from '@oclif/core'
import { terminalProgress } from '../../core/cli/progress.js'
import { syncReport } from '../../core/cli/sync-report.js'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { runQueuedSync, syncIndex, type QueuedSyncResult, type SyncResult } from '../../core/index/index.js'

export default class CoderagSync extends VltCommand {
  static override summary = 'Update the index with what changed since it was last built.'
  static override description = `Diffs the last indexed tree against HEAD's and re-processes only the blobs that
changed (a tree indexed before, e.g. after switching back to a branch, is reused as is), then
refreshes the overlay of uncommitted working-tree changes and the commit index of HEAD's history
(new commits appended; after a rebase or reset, commits no longer reachable dropped). Prints what
it re-processed.

Changes queued by the git hooks (\`git vlt hooks install\`) are covered and removed from the queue.
With --queued (what the hooks start in the background) it waits until the commit policy of
vlt.toml ([coderag.delta]) makes the queue due, syncs, and repeats until the queue is empty.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Catch up after commits, checkouts or edits.' },
    { command: '<%= config.bin %> <%= command.id %> --json', description: 'Print {treeHash, previousTreeHash, mode, changed, extracted, overlay, queueDrained, commits: {indexed, added, dropped, mode, durationMs}, durationMs}.' },
    { command: '<%= config.bin %> <%= command.id %> --force', description: 'Commit the queued changes to the index now, whatever the thresholds say.' },
  ]

  static override flags = {
    force: Flags.boolean({ description: 'Sync now, ignoring the queue thresholds (a plain sync does too; kept for scripts that say so).', exclusive: ['queued'] }),
    queued: Flags.boolean({ description: 'Background mode used by the git hooks: wait for the queue to be due by the vlt.toml policy, then sync.', exclusive: ['force'] }),
  }

  async run(): Promise<SyncResult | QueuedSyncResult> {
    const { flags } = await this.parse(CoderagSync)
    if (flags.queued) {
      const queued = await runQueuedSync(this.workDir(flags), { warn: (message) => this.note(message) })
      this.log(`${new Date().toISOString()} background sync: ${queued.syncs} update(s), ${queued.drained} queued batch(es) applied`)
      return queued
    }
    const result = await syncIndex(this.workDir(flags), {
      progress: this.jsonEnabled() ? undefined : terminalProgress(),
      warn: (message) => this.note(message),
    })
    for (const line of syncReport(result)) this.log(line)
    return result
  }
}
