import { VltCommand } from '../../core/cli/vlt-command.js'
import { openRepo } from '../../core/git/index.js'
import { listThreads, type ThreadListing } from '../../core/threads/index.js'

export interface ThreadListResult {
  threads: ThreadListing[]
  /** Thread files left out (not a thread, unreadable), one line each. */
  warnings?: string[]
}

export default class ThreadList extends VltCommand {
  static override summary = 'List threads, most recently active first.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'One line per thread.' },
    { command: '<%= config.bin %> <%= command.id %> --json', description: 'Print {threads: [{name, title, entries, lastActivity}], warnings?: [one line per thread file left out]}.' },
  ]

  async run(): Promise<ThreadListResult> {
    const { flags } = await this.parse(ThreadList)
    const repo = await openRepo(this.workDir(flags))
    const listed = await listThreads(repo.vltDir)
    for (const warning of listed.warnings) this.note(`warning: ${warning}`)
    const threads = listed.threads.sort((a, b) => (a.lastActivity > b.lastActivity ? -1 : a.lastActivity < b.lastActivity ? 1 : a.name < b.name ? -1 : 1))
    if (threads.length === 0) this.log('No threads yet: start one with `git vlt thread new NAME`.')
    else {
      const width = Math.max(...threads.map((thread) => thread.name.length))
      for (const thread of threads) {
        this.log(`${thread.name.padEnd(width)}  ${String(thread.entries).padStart(4)} entr${thread.entries === 1 ? 'y ' : 'ies'}  ${thread.lastActivity}  ${thread.title}`)
      }
    }
    return { threads, ...(listed.warnings.length > 0 ? { warnings: listed.warnings } : {}) }
  }
}
