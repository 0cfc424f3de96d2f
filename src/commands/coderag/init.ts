import { Flags } from '@oclif/core'
import { terminalProgress } from '../../core/cli/progress.js'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { initIndex, type InitResult } from '../../core/index/index.js'
import { learnAfterAggregates } from '../../core/semantic/model-store.js'
import { extractShard, parseShard, type ShardResult } from '../../core/index/shard.js'
import { UsageError } from '../../core/errors.js'
import { formatSkipped } from '../../core/cli/format.js'

export default class CoderagInit extends VltCommand {
  static override summary = 'Index the repository: chunks, symbols, references, graph and BM25 under .vlt/.'
  static override description = `Indexes HEAD's tree (every blob once, keyed by its git hash) and the uncommitted
working-tree changes as an overlay, and HEAD's commit history (messages, changed files, the
functions their hunks touched) for search --files. Artifacts already in .vlt/ are reused, so running it again,
or after switching branches, is cheap. Progress is shown on a terminal; pipes and CI get only
the summary.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Index the repository you are in.' },
    { command: '<%= config.bin %> <%= command.id %> --force', description: 'Re-extract everything, ignoring cached artifacts.' },
    { command: '<%= config.bin %> <%= command.id %> --json', description: 'Print {treeHash, files, chunks, symbols, edges, skipped, extracted, commits: {indexed, added, dropped, mode, durationMs}, durationMs, warnings}; warnings: the lines printed on stderr without --json (repairs, the remote cache).' },
    { command: '<%= config.bin %> <%= command.id %> --ci', description: 'In a CI job that restores .vlt/ from a cache (see templates/ci/): only blobs changed since the cached tree are extracted.' },
    {
      command: '<%= config.bin %> <%= command.id %> --shard 2/4 --json',
      description:
        "One job of four in a CI matrix: extract only this shard's blobs (split by blob hash) into .vlt/objects/, build nothing else; then 'coderag merge' the four .vlt directories. Prints {treeHash, shard: {index, count}, files, extracted, vltDir, durationMs, warnings}.",
    },
  ]

  static override flags = {
    force: Flags.boolean({ description: 'Rebuild from scratch: re-extract every blob even when cached.' }),
    ci: Flags.boolean({ description: 'For CI jobs that cache .vlt/: no progress output, temp files of killed runs swept first, one summary line.' }),
    shard: Flags.string({ description: "K/N: extract only the K-th of N shares of HEAD's blobs (a CI matrix job); 'coderag merge' builds the index from all shards.", helpValue: 'K/N' }),
  }

  async run(): Promise<(InitResult | ShardResult) & { warnings: string[] }> {
    const { flags } = await this.parse(CoderagInit)
    const shard = flags.shard === undefined ? undefined : parseShard(flags.shard)
    if (flags.shard !== undefined && !shard) throw new UsageError(`--shard takes K/N with 1 ≤ K ≤ N (e.g. --shard 2/4), not ${JSON.stringify(flags.shard)}`)
    const warnings: string[] = []
    const opts = {
      force: flags.force,
      progress: this.jsonEnabled() || flags.ci ? undefined : terminalProgress(),
      sweep: flags.ci,
      warn: (message: string) => {
        warnings.push(message)
        this.note(message)
      },
    }
    if (shard) {
      const done = await extractShard(this.workDir(flags), shard, opts)
      this.log(
        `Shard ${shard.index}/${shard.count} of tree ${done.treeHash.slice(0, 12)}: ${done.files} files, ${done.extracted} extracted in ` +
          `${(done.durationMs / 1000).toFixed(1)}s; records in ${done.vltDir} (for 'coderag merge')`,
      )
      return { ...done, warnings }
    }
    // Learned while the aggregates are written: the first prose search finds the tree's term associations.
    const result = await initIndex(this.workDir(flags), { ...opts, afterAggregates: (tree) => learnAfterAggregates(tree, opts.warn) })
    this.log(
      `Indexed tree ${result.treeHash.slice(0, 12)}: ${result.files} files, ${result.chunks} chunks, ` +
        `${result.symbols} symbols, ${result.edges} edges, ${result.commits.indexed} commits in ${(result.durationMs / 1000).toFixed(1)}s` +
        formatSkipped(result.skipped),
    )
    return { ...result, warnings }
  }
}
