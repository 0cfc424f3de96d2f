import { VltCommand } from '../../core/cli/vlt-command.js'
import { daemonReport, resolveTarget, type DaemonReport } from '../../core/daemon/client.js'

export default class DaemonStatusCommand extends VltCommand {
  static override summary = "Show whether this repository's query daemon is running and what it has served."
  static override description =
    'The daemon keeps the index loaded so that coderag search, def, refs and map answer without decoding it each time. ' +
    'The first query starts it; it follows commits and edits like the command itself, and exits after 10 idle minutes, on `git vlt daemon stop`, when .vlt/ is removed, ' +
    'or when it is the least recently used idle one and a new daemon would make more than GIT_VLT_DAEMON_MAX (default 4) for this user.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Running or not, since when, queries served.' },
    {
      command: '<%= config.bin %> <%= command.id %> --json',
      description: 'Print {enabled, socket, log, daemon: {pid, current, startedAt, build, socket, served, active, idleTimeoutMs, lastRequestAt} | null}.',
    },
  ]

  async run(): Promise<DaemonReport> {
    const { flags } = await this.parse(DaemonStatusCommand)
    const report = await daemonReport(await resolveTarget(this.workDir(flags)))
    const daemon = report.daemon
    if (daemon === null) {
      this.log(report.enabled ? 'No daemon is running; the next query starts one.' : 'No daemon is running; it is disabled (GIT_VLT_DAEMON=0 or [query] daemon = false in vlt.toml).')
    } else {
      const idle = `${Math.round(daemon.idleTimeoutMs / 1000)} s`
      this.log(`Daemon running: pid ${daemon.pid} since ${daemon.startedAt}, ${daemon.served} quer${daemon.served === 1 ? 'y' : 'ies'} served, exits after ${idle} idle.`)
      if (!daemon.current) this.log('It was started by another build of git-vlt or another environment: the next query replaces it.')
      if (!report.enabled) this.log('The daemon is disabled here (GIT_VLT_DAEMON=0 or [query] daemon = false): queries run in process.')
    }
    this.log(`socket: ${report.socket}\nlog:    ${report.log}`)
    return report
  }
}
