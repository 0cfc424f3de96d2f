import { Args, Flags } from '@oclif/core'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { openRepo } from '../../core/git/index.js'
import { displayEntry, isOracleSessionThread, readThread, readerSummary, type Entry, type ThreadSummary } from '../../core/threads/index.js'

export interface ThreadReadResult {
  name: string
  title: string
  created: string
  description: string
  entries: Entry[]
  summary?: ThreadSummary
  /** Damaged entries or stray text found in the file. */
  warnings?: string[]
}

export default class ThreadRead extends VltCommand {
  static override summary = 'Print a thread, oldest entry first; --summary adds a summary generated on demand and cached (always, for oracle-session threads).'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> auth-redesign', description: 'The whole thread.' },
    { command: '<%= config.bin %> <%= command.id %> auth-redesign --summary', description: 'Summary first (the [llm] of your own config when there is one, else extractive: decisions first), then the entries.' },
    { command: '<%= config.bin %> <%= command.id %> oracle-session-2026-11-20', description: "An oracle session thread: its summary comes first without asking (--no-summary leaves it out)." },
    {
      command: '<%= config.bin %> <%= command.id %> auth-redesign --summary --json',
      description: 'Print {name, title, created, description, entries: [{id, timestamp, author, type, text}], summary?: {text, upToEntry, stale, generatedBy}}.',
    },
  ]

  static override args = {
    name: Args.string({ description: 'Thread name.', required: true }),
  }

  static override flags = {
    summary: Flags.boolean({
      char: 's',
      allowNo: true,
      description: 'Include a summary (only entries added since the cached one are summarised). Default: on for oracle-session threads, off for the others.',
    }),
  }

  async run(): Promise<ThreadReadResult> {
    const { args, flags } = await this.parse(ThreadRead)
    const repo = await openRepo(this.workDir(flags))
    const thread = await readThread(repo.vltDir, args.name)
    for (const problem of thread.problems) this.note(`warning: ${problem}`)
    const warnings = [...thread.problems]
    // An oracle session thread is a day of questions and answers: its summary is what a reader wants first.
    const summary = (flags.summary ?? isOracleSessionThread(thread.name))
      ? await readerSummary(repo.root ?? repo.gitDir, repo.vltDir, thread, (warning) => {
          warnings.push(warning)
          this.note(`warning: ${warning}`)
        })
      : undefined
    const out: string[] = [`# ${thread.title}  (${thread.name}, created ${thread.created})`]
    if (thread.description) out.push('', thread.description)
    if (summary) out.push('', `## Summary (${summary.generatedBy})`, '', summary.text || '(no entries yet)')
    for (const entry of thread.entries) out.push('', displayEntry(entry))
    if (thread.entries.length === 0) out.push('', `(no entries yet — add one with \`git vlt thread push ${thread.name} "..."\`)`)
    this.log(out.join('\n'))
    return {
      name: thread.name,
      title: thread.title,
      created: thread.created,
      description: thread.description,
      entries: thread.entries,
      ...(summary ? { summary } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    }
  }
}
