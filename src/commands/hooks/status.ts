import { VltCommand } from '../../core/cli/vlt-command.js'
import { hooksStatus, type HookStatus, type HooksReport } from '../../core/hooks/index.js'

export default class HooksStatus extends VltCommand {
  static override summary = 'Show, per hook, whether git-vlt is installed, chained with another hook, absent behind a foreign hook, or missing.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'One line per hook.' },
    { command: '<%= config.bin %> <%= command.id %> --json', description: 'Print {dir, hooksPath, hooks: [{hook, path, state, chainedTo, upToDate}]}.' },
  ]

  async run(): Promise<HooksReport<HookStatus>> {
    const { flags } = await this.parse(HooksStatus)
    const report = await hooksStatus(this.workDir(flags))
    this.log(`hooks in ${report.dir}${report.hooksPath === null ? '' : `  (core.hooksPath = ${report.hooksPath})`}`)
    for (const hook of report.hooks) {
      const stale = (hook.state === 'installed' || hook.state === 'chained') && !hook.upToDate ? '  (outdated: run `git vlt hooks install`)' : ''
      this.log(`  ${hook.hook.padEnd(14)} ${hook.state}${stale}`)
    }
    return report
  }
}
