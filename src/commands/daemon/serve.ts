import { VltCommand } from '../../core/cli/vlt-command.js'
import { serveDaemon } from '../../core/daemon/server.js'

export default class DaemonServe extends VltCommand {
  static override summary = 'Run the query daemon in the foreground (what the query commands start in the background).'
  static override hidden = true

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonServe)
    const log = (line: string): void => void process.stderr.write(`${new Date().toISOString()} [${process.pid}] ${line}\n`)
    await serveDaemon(this.workDir(flags), log)
    // Worker threads of a sync and the file watcher must not keep a stopped daemon alive.
    process.exit(0)
  }
}
