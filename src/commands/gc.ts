import { Flags } from '@oclif/core'
import { formatBytes } from '../core/cli/format.js'
import { VltCommand } from '../core/cli/vlt-command.js'
import { collectGarbage, type GcResult } from '../core/index/gc.js'

export default class Gc extends VltCommand {
  static override summary = 'Prune the index: keep the last N indexed trees and the artifacts they use.'
  static override description = `Removes the aggregates of trees indexed before the last N (and not needed as the anchor of
a kept tree), blob artifacts no kept tree or uncommitted file uses, and temp files left by killed
runs. The current tree is always kept, so it is safe to run while queries are running.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Keep the last 5 indexed trees.' },
    { command: '<%= config.bin %> <%= command.id %> --keep 1 --json', description: 'Keep only the current tree; print {keptTrees, removedTrees, removedBlobRecords, removedTempFiles, freedBytes, durationMs}.' },
  ]

  static override flags = {
    keep: Flags.integer({ description: 'How many of the most recently indexed trees to keep.', default: 5, min: 1 }),
  }

  async run(): Promise<GcResult> {
    const { flags } = await this.parse(Gc)
    const result = await collectGarbage(this.workDir(flags), flags.keep, (message) => this.note(message))
    this.log(
      `Kept ${result.keptTrees.length} tree(s); removed ${result.removedTrees} tree(s), ${result.removedBlobRecords} blob artifact(s) ` +
        `and ${result.removedTempFiles} temp file(s), freeing ${formatBytes(result.freedBytes)} (${result.durationMs} ms)`,
    )
    return result
  }
}
