import { Args, Flags } from '@oclif/core'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { queryHistory, type HistorySearchResult } from '../../core/history/index.js'

export default class HistorySearch extends VltCommand {
  static override summary = 'Search past agent conversations about this repository (BM25 over prompts, replies and tool calls).'
  static override description = 'New transcript lines are ingested first. Subagent (sidechain) exchanges are left out unless --include-sidechains.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> "flaky lock test"', description: 'Best exchanges first, with prompt and reply excerpts.' },
    { command: '<%= config.bin %> <%= command.id %> migration --after 2025-03-01 --branch main', description: 'Only exchanges on main since March 1st.' },
    {
      command: '<%= config.bin %> <%= command.id %> bm25 --after 7d --include-sidechains --json',
      description: 'Print {query, results: [{sessionId, exchangeId, agentId, title, timestamp, branch, score, prompt, reply, files, isSidechain, kind}]}.',
    },
  ]

  static override args = {
    query: Args.string({ description: 'Words to look for.', required: true }),
  }

  static override flags = {
    after: Flags.string({ description: 'Only exchanges at or after this date, time or age (2025-03-01, 2025-03-01T12:00Z, 7d).' }),
    before: Flags.string({ description: 'Only exchanges before this date, time or age.' }),
    branch: Flags.string({ char: 'b', description: 'Only exchanges on this git branch.' }),
    'include-sidechains': Flags.boolean({ description: 'Include subagent exchanges.' }),
    limit: Flags.integer({ char: 'n', description: 'Maximum number of results.', default: 10, min: 1 }),
    ingest: Flags.boolean({ description: 'Ingest new transcript lines first.', default: true, allowNo: true }),
  }

  async run(): Promise<HistorySearchResult> {
    const { args, flags } = await this.parse(HistorySearch)
    const result = await queryHistory(this.workDir(flags), args.query, {
      after: flags.after,
      before: flags.before,
      branch: flags.branch,
      includeSidechains: flags['include-sidechains'],
      limit: flags.limit,
      refresh: flags.ingest,
      warn: (message) => this.note(message),
    })
    if (result.results.length === 0) this.log(`No exchanges match ${JSON.stringify(args.query)}.`)
    for (const hit of result.results) {
      const where = [hit.timestamp, hit.branch, hit.isSidechain ? `subagent ${hit.agentId}` : ''].filter(Boolean).join(' · ')
      this.log(`${hit.score.toFixed(2)}  ${hit.title}  (${where})  ${hit.exchangeId}`)
      this.log(`    > ${hit.prompt}`)
      if (hit.reply) this.log(`    ${hit.reply}`)
      if (hit.files.length) this.log(`    files: ${hit.files.join(', ')}`)
    }
    return result
  }
}
