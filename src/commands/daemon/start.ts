import { setTimeout as sleep } from 'node:timers/promises'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { daemonReport, launchDaemon, resolveTarget, stopDaemon, type DaemonReport } from '../../core/daemon/client.js'
import { daemonDisabledByEnv } from '../../core/daemon/env.js'
import { UsageError, VltError } from '../../core/errors.js'

/** Starting includes opening the repository and watching its files, not loading the index. */
const START_TIMEOUT_MS = 30_000

export default class DaemonStart extends VltCommand {
  static override summary = "Start this repository's query daemon now rather than on the first query."
  static override description =
    'Returns once the daemon answers; it loads the index in the background, and a query sent meanwhile waits for that load. ' +
    'A daemon started by another build of git-vlt or with another environment is replaced.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Start it (or find it running).' },
    { command: '<%= config.bin %> <%= command.id %> --json', description: 'Print {started, enabled, socket, log, daemon} (see `daemon status`).' },
  ]

  async run(): Promise<DaemonReport & { started: boolean }> {
    const { flags } = await this.parse(DaemonStart)
    const target = await resolveTarget(this.workDir(flags))
    if (!target.enabled || daemonDisabledByEnv()) throw new UsageError('the query daemon is disabled (GIT_VLT_DAEMON=0 or [query] daemon = false in vlt.toml)')
    let report = await daemonReport(target)
    if (report.daemon?.current) {
      this.log(`The daemon is already running (pid ${report.daemon.pid}).`)
      return { ...report, started: false }
    }
    if (report.daemon) await stopDaemon(target)
    let refused: string | undefined
    await launchDaemon(target, (message) => (refused = message))
    if (refused) throw new VltError(refused)
    const deadline = Date.now() + START_TIMEOUT_MS
    while (!report.daemon?.current) {
      if (Date.now() > deadline) throw new VltError(`the daemon did not start within ${START_TIMEOUT_MS / 1000} s; see ${target.log}`)
      await sleep(50)
      report = await daemonReport(target)
    }
    this.log(`Started the daemon (pid ${report.daemon.pid}).`)
    return { ...report, started: true }
  }
}
