import { Args, Flags } from '@oclif/core'
import { terminalProgress } from '../../core/cli/progress.js'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { formatSkipped } from '../../core/cli/format.js'
import { mergeShards, type MergeResult } from '../../core/index/shard.js'
import { learnAfterAggregates } from '../../core/semantic/model-store.js'

export default class CoderagMerge extends VltCommand {
  static override summary = "Index the repository from the records of 'coderag init --shard' runs (a CI matrix)."
  static override description = `Takes the blob records of each shard's .vlt directory (the artifacts of the matrix jobs that ran
'coderag init --shard K/N') that this repository lacks — each checked before it is used — then
indexes HEAD as 'coderag init' does: the tree's aggregates are built here, and only blobs no shard
brought are extracted. A damaged record is extracted here instead, and reported.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> shard-1/.vlt shard-2/.vlt', description: 'Build the index from two shards downloaded as job artifacts.' },
    {
      command: '<%= config.bin %> <%= command.id %> shards/*/.vlt --json',
      description: "Print init's JSON {treeHash, files, chunks, symbols, edges, skipped, extracted, commits, durationMs, warnings} plus merged: {shards, records, rejected}.",
    },
  ]

  static override strict = false
  static override args = {
    shards: Args.string({ description: "The .vlt directories the shards wrote ('coderag init --shard K/N').", required: true }),
  }

  static override flags = {
    ci: Flags.boolean({ description: 'No progress output, temp files of killed runs swept first, one summary line.' }),
  }

  async run(): Promise<MergeResult & { warnings: string[] }> {
    const { argv, flags } = await this.parse(CoderagMerge)
    const warnings: string[] = []
    const warn = (message: string): void => {
      warnings.push(message)
      this.note(message)
    }
    const result = await mergeShards(this.workDir(flags), argv as string[], {
      progress: this.jsonEnabled() || flags.ci ? undefined : terminalProgress(),
      sweep: flags.ci,
      warn,
      // As init does: the first prose search finds the tree's term associations learned.
      afterAggregates: (tree) => learnAfterAggregates(tree, warn),
    })
    this.log(
      `Merged ${result.merged.records} records from ${result.merged.shards.length} shard(s); indexed tree ${result.treeHash.slice(0, 12)}: ` +
        `${result.files} files, ${result.chunks} chunks, ${result.symbols} symbols, ${result.edges} edges, ${result.extracted} extracted here in ` +
        `${(result.durationMs / 1000).toFixed(1)}s` +
        formatSkipped(result.skipped),
    )
    return { ...result, warnings }
  }
}
