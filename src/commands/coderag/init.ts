import { Flags } from '@oclif/core'
import { terminalProgress } from '../../core/cli/progress.js'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { initIndex, type InitResult } from '../../core/index/index.js'
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
  ]

  static override flags = {
    force: Flags.boolean({ description: 'Rebuild from scratch: re-extract every blob even when cached.' }),
    ci: Flags.boolean({ description: 'For CI jobs that cache .vlt/: no progress output, temp files of killed runs swept first, one summary line.' }),
  }

  async run(): Promise<InitResult & { warnings: string[] }> {
    const { flags } = await this.parse(CoderagInit)
    const warnings: string[] = []
    const result = await initIndex(this.workDir(flags), {
      force: flags.force,
      progress: this.jsonEnabled() || flags.ci ? undefined : terminalProgress(),
      sweep: flags.ci,
      warn: (message) => {
        warnings.push(message)
        this.note(message)
      },
    })
    this.log(
      `Indexed tree ${result.treeHash.slice(0, 12)}: ${result.files} files, ${result.chunks} chunks, ` +
        `${result.symbols} symbols, ${result.edges} edges, ${result.commits.indexed} commits in ${(result.durationMs / 1000).toFixed(1)}s` +
        formatSkipped(result.skipped),
    )
    return { ...result, warnings }
  }
}
