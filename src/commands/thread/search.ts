import { Args, Flags } from '@oclif/core'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { openRepo } from '../../core/git/index.js'
import { ENTRY_TYPES, searchThreads, type EntryType, type ThreadHit } from '../../core/threads/index.js'

export interface ThreadSearchResult {
  query: string
  hits: ThreadHit[]
  /** Thread files left out (not a thread, unreadable), one line each. */
  warnings?: string[]
}

export default class ThreadSearch extends VltCommand {
  static override summary = 'Search the entries of every thread (BM25, same analysis as the code index).'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> "refresh token"', description: 'Best entries first, with a matching line.' },
    { command: '<%= config.bin %> <%= command.id %> jwt --type decision --json', description: 'Print {query, hits: [{thread, entryId, score, timestamp, author, type, snippet}], warnings?: [one line per thread file left out]}.' },
  ]

  static override args = {
    query: Args.string({ description: 'Words to look for.', required: true }),
  }

  static override flags = {
    limit: Flags.integer({ char: 'n', description: 'Maximum number of hits.', default: 10, min: 1 }),
    type: Flags.string({ char: 't', description: 'Only entries of this kind.', options: [...ENTRY_TYPES] }),
  }

  async run(): Promise<ThreadSearchResult> {
    const { args, flags } = await this.parse(ThreadSearch)
    const repo = await openRepo(this.workDir(flags))
    const { hits, warnings } = await searchThreads(repo.vltDir, args.query, { limit: flags.limit, type: flags.type as EntryType | undefined })
    for (const warning of warnings) this.note(`warning: ${warning}`)
    if (hits.length === 0) this.log(`No entries match ${JSON.stringify(args.query)}.`)
    for (const hit of hits) this.log(`${hit.thread} ${hit.entryId}  ${hit.score.toFixed(2)}  ${hit.type} · ${hit.author} · ${hit.timestamp}\n    ${hit.snippet}`)
    return { query: args.query, hits, ...(warnings.length > 0 ? { warnings } : {}) }
  }
}
