import { Args, Flags } from '@oclif/core'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { fileHistory, type FileHistoryResult } from '../../core/history/index.js'

export default class HistoryFile extends VltCommand {
  static override summary = 'Which agent sessions touched or discussed a file (or anything under a folder), newest first.'
  static override description = '"Touched": a tool edited, read or searched it. "Discussed": it was only named in a command or in the conversation. New transcript lines are ingested first.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> src/core/store/lock.ts', description: 'Sessions with the exchanges that involved the file.' },
    {
      command: '<%= config.bin %> <%= command.id %> src/core --after 30d --json',
      description: 'Print {path, sessions: [{sessionId, title, branch, timestamp, relation, exchanges: [{exchangeId, agentId, isSidechain, timestamp, relation, tools, prompt, reply}]}]}.',
    },
  ]

  static override args = {
    path: Args.string({ description: 'File or folder, relative to the current directory or the repository root.', required: true }),
  }

  static override flags = {
    after: Flags.string({ description: 'Only exchanges at or after this date, time or age (2025-03-01, 7d).' }),
    before: Flags.string({ description: 'Only exchanges before this date, time or age.' }),
    branch: Flags.string({ char: 'b', description: 'Only exchanges on this git branch.' }),
    limit: Flags.integer({ char: 'n', description: 'Maximum number of sessions.', default: 20, min: 1 }),
    ingest: Flags.boolean({ description: 'Ingest new transcript lines first.', default: true, allowNo: true }),
  }

  async run(): Promise<FileHistoryResult> {
    const { args, flags } = await this.parse(HistoryFile)
    const result = await fileHistory(this.workDir(flags), args.path, {
      after: flags.after,
      before: flags.before,
      branch: flags.branch,
      limit: flags.limit,
      refresh: flags.ingest,
      warn: (message) => this.note(message),
    })
    if (result.sessions.length === 0) this.log(`No session touched or discussed ${result.path}.`)
    for (const session of result.sessions) {
      this.log(`${session.timestamp}  ${session.relation.padEnd(9)}  ${session.title}${session.branch ? `  (${session.branch})` : ''}  ${session.sessionId}`)
      // The newest exchange that involved the file the way the session did (an edit outranks a mention).
      const latest = session.exchanges.find((exchange) => exchange.relation === session.relation)!
      this.log(`    > ${latest.prompt}`)
      if (latest.reply) this.log(`    ${latest.reply}`)
      if (session.exchanges.length > 1) this.log(`    (+${session.exchanges.length - 1} more exchange(s))`)
    }
    return result
  }
}
