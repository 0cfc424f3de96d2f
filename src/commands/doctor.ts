import { VltCommand } from '../core/cli/vlt-command.js'
import { runDoctor, type DoctorReport } from '../core/doctor/index.js'

export default class Doctor extends VltCommand {
  static override summary = 'Check what git-vlt needs, one line each, with the fix for what is wrong.'
  static override description = `Checks git and Node, the index of this repository (indexed, whole, up to date), the git hooks
(installed, and by this build), the query daemon, the [llm] and [embedding] endpoints of your
config when they are set (one request for their model list, with your key), whether .vlt/ is
writable, and its size on disk. Exits 0 when every check passes, 1 otherwise.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'One line per check: ✓ or ✗, what was found, and the fix.' },
    {
      command: '<%= config.bin %> <%= command.id %> --json',
      description:
        'Print {ok, checks: [{name, ok, detail, fix}]}; name is one of git, node, index, hooks, daemon, llm, embedding, writable, size (llm and embedding only when configured); fix is null when there is nothing to do.',
    },
  ]

  async run(): Promise<DoctorReport> {
    const { flags } = await this.parse(Doctor)
    const report = await runDoctor(this.workDir(flags))
    for (const check of report.checks) {
      this.log(`${check.ok ? '✓' : '✗'} ${check.name.padEnd(9)} ${check.detail}`)
      if (!check.ok) this.log(`  ${''.padEnd(9)} fix: ${check.fix}`)
    }
    if (!report.ok) process.exitCode = 1
    return report
  }
}
