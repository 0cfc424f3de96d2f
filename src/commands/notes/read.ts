import { Args } from '@oclif/core'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { quotedName } from '../../core/display/index.js'
import { readNote, type NoteView } from '../../core/notes/index.js'

export type NotesReadOutput = Omit<NoteView, 'freshness'>

export default class NotesRead extends VltCommand {
  static override summary = 'Print a note, with its tags, links and the notes linking to it.'
  static override description = 'PATH is a note path as search prints it, a repository-relative path, or an absolute path inside the repository or a notes folder (folders outside the repository come from your own config only). Paths with "..", paths elsewhere and symbolic links leading out are refused (exit 2).'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> docs/adr/0001-storage.md', description: 'The note\'s text, then its outgoing links and backlinks.' },
    {
      command: '<%= config.bin %> <%= command.id %> README.md --json',
      description: 'Print {path, title, tags, aliases, frontMatter, headings: [{level, text, line}], links: [{kind, target, anchor, text, line, resolved}], backlinks: [{path, line, anchor, text}], content}.',
    },
  ]

  static override args = {
    path: Args.string({ description: 'The note to read.', required: true }),
  }

  async run(): Promise<NotesReadOutput> {
    const { args, flags } = await this.parse(NotesRead)
    const { freshness: _freshness, ...note } = await readNote(this.workDir(flags), args.path, { warn: (message) => this.note(`warning: ${message}`) })
    const out = [note.content.trimEnd()]
    const links = note.links.filter((link) => link.resolved !== null)
    if (links.length > 0) out.push('', '--- links', ...links.map((link) => `${link.line}: ${quotedName(link.resolved!)}${link.anchor ? `#${link.anchor}` : ''}`))
    if (note.backlinks.length > 0) out.push('', '--- backlinks', ...note.backlinks.map((link) => `${quotedName(link.path)}:${link.line}${link.anchor ? `  (#${link.anchor})` : ''}`))
    if (note.tags.length > 0) out.push('', `--- tags  #${note.tags.join(' #')}`)
    this.log(out.join('\n'))
    return note
  }
}
