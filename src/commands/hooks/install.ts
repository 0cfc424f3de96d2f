import { VltCommand } from '../../core/cli/vlt-command.js'
import { installHooks, type HookChange, type HooksReport } from '../../core/hooks/index.js'

export default class HooksInstall extends VltCommand {
  static override summary = 'Install the git hooks that queue index updates after commits, merges, checkouts and rewrites.'
  static override description =
    'Writes post-commit, post-merge, post-checkout and post-rewrite into the hooks directory git uses (core.hooksPath when set). ' +
    'A hook already there keeps running: a shell hook gets a marked block, anything else is moved to <hook>.vlt-chained and called. Running it again only refreshes the block.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Install (or refresh) the hooks.' },
    { command: '<%= config.bin %> <%= command.id %> --json', description: 'Print {dir, hooksPath, hooks: [{hook, path, action, chainedTo}]}.' },
  ]

  async run(): Promise<HooksReport<HookChange>> {
    const { flags } = await this.parse(HooksInstall)
    const report = await installHooks(this.workDir(flags))
    this.log(`hooks in ${report.dir}${report.hooksPath === null ? '' : `  (core.hooksPath = ${report.hooksPath})`}`)
    for (const change of report.hooks) {
      this.log(`  ${change.hook.padEnd(14)} ${change.action}${change.chainedTo && change.chainedTo !== change.path ? `  (calls ${change.chainedTo})` : ''}`)
    }
    return report
  }
}
