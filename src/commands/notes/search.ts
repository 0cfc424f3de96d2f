import { Args, Flags } from '@oclif/core'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { quotedName } from '../../core/display/index.js'
import { findNotes, type NoteHit, type NotesFreshness } from '../../core/notes/index.js'

export interface NotesSearchOutput {
  query: string
  results: Array<Omit<NoteHit, 'content' | 'title'>>
  freshness: NotesFreshness
  /** Why a path could not run (e.g. embeddings unavailable: keyword search only); also printed on stderr in text mode. */
  warnings: string[]
}

export default class NotesSearch extends VltCommand {
  static override summary = 'Search the markdown notes (README, docs/, ADRs … and configured folders) by section.'
  static override description = 'Sections are ranked by BM25 with headings, titles, aliases and tags weighted above body text. The notes index is brought up to date first: only notes whose content changed are re-read.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> "release process"', description: 'Best sections first, with their heading path and matching lines.' },
    {
      command: '<%= config.bin %> <%= command.id %> deploy --tag ops --limit 5 --json',
      description: 'Print {query, results: [{path, heading, startLine, endLine, score, snippet, tags}], freshness: {treeHash, key, notes, dirty, parsed, reused, folders, builtAt}}.',
    },
  ]

  static override args = {
    query: Args.string({ description: 'Words to look for.', required: true }),
  }

  static override flags = {
    limit: Flags.integer({ char: 'n', description: 'Maximum number of results.', default: 10, min: 1 }),
    tag: Flags.string({ char: 't', description: 'Only notes with this tag (front matter or inline #tag; nested tags match their parent).' }),
  }

  async run(): Promise<NotesSearchOutput> {
    const { args, flags } = await this.parse(NotesSearch)
    const found = await findNotes(this.workDir(flags), args.query, { limit: flags.limit, tag: flags.tag, warn: (message) => this.note(`warning: ${message}`) })
    const results = found.results.map(({ content: _content, title: _title, ...hit }) => hit)
    if (results.length === 0) this.log(`No notes match ${JSON.stringify(args.query)}.`)
    for (const hit of results) {
      const tags = hit.tags.length > 0 ? `  #${hit.tags.join(' #')}` : ''
      this.log(`${quotedName(hit.path)}:${hit.startLine}-${hit.endLine}  ${hit.score.toFixed(2)}  ${hit.heading}${tags}\n${indent(hit.snippet)}`)
    }
    return { query: found.query, results, freshness: found.freshness, warnings: found.warnings }
  }
}

function indent(text: string): string {
  return text.split('\n').map((line) => `    ${line}`).join('\n')
}
