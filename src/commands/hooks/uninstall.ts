import { VltCommand } from '../../core/cli/vlt-command.js'
import { uninstallHooks, type HookChange, type HooksReport } from '../../core/hooks/index.js'

export default class HooksUninstall extends VltCommand {
  static override summary = 'Remove the git-vlt hooks and restore the hooks that were there before, byte for byte.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Remove the hooks.' },
    { command: '<%= config.bin %> <%= command.id %> --json', description: 'Print {dir, hooksPath, hooks: [{hook, path, action, chainedTo}]}.' },
  ]

  async run(): Promise<HooksReport<HookChange>> {
    const { flags } = await this.parse(HooksUninstall)
    const report = await uninstallHooks(this.workDir(flags))
    this.log(`hooks in ${report.dir}`)
    for (const change of report.hooks) this.log(`  ${change.hook.padEnd(14)} ${change.action}`)
    return report
  }
}
