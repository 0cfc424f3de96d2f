import { VltCommand } from '../../core/cli/vlt-command.js'
import { resolveTarget, stopDaemon } from '../../core/daemon/client.js'

export default class DaemonStop extends VltCommand {
  static override summary = "Stop this repository's query daemon (the next query starts a new one unless it is disabled)."
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Stop it and wait until it has exited.' },
    { command: '<%= config.bin %> <%= command.id %> --json', description: 'Print {stopped, pid}.' },
  ]

  async run(): Promise<{ stopped: boolean; pid: number | null }> {
    const { flags } = await this.parse(DaemonStop)
    const pid = await stopDaemon(await resolveTarget(this.workDir(flags)))
    this.log(pid === null ? 'No daemon is running.' : `Stopped the daemon (pid ${pid}).`)
    return { stopped: pid !== null, pid }
  }
}
