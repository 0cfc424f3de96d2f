import { VltCommand } from '../../core/cli/vlt-command.js'
import { ingestHistory, type IngestResult } from '../../core/history/index.js'

export default class HistoryIngest extends VltCommand {
  static override summary = "Read this repository's Claude Code transcripts (all worktrees, subagents included) into .vlt/history/."
  static override description =
    'Incremental: only lines added since the last ingest are read, the last exchange of each transcript is provisional and rebuilt next time, and a deleted transcript takes its exchanges with it. Transcripts come from $CLAUDE_CONFIG_DIR (default ~/.claude)/projects/. The history stays private: .vlt/history/ is never committed.'

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Ingest new transcript lines and print a summary.' },
    {
      command: '<%= config.bin %> <%= command.id %> --json',
      description: 'Print {sessions, transcripts, exchanges, newExchanges, updatedSessions, removedSessions, rewrittenTranscripts, lines, ignoredLines, unknownLines, malformedLines, truncatedLines, durationMs}.',
    },
  ]

  async run(): Promise<IngestResult> {
    const { flags } = await this.parse(HistoryIngest)
    const result = await ingestHistory(this.workDir(flags), { warn: (message) => this.note(message) })
    const unknown = Object.entries(result.unknownLines).map(([type, n]) => `${type} ${n}`).join(', ')
    this.log(
      [
        `sessions    ${result.sessions} (${result.transcripts} transcript(s), ${result.exchanges} exchange(s))`,
        `this run    ${result.newExchanges} new exchange(s), ${result.updatedSessions} session(s) updated, ${result.removedSessions} removed, ${result.lines} line(s) read in ${result.durationMs} ms`,
        ...(unknown ? [`skipped     unknown line types: ${unknown}`] : []),
        ...(result.malformedLines ? [`skipped     ${result.malformedLines} malformed line(s)`] : []),
      ].join('\n'),
    )
    return result
  }
}
