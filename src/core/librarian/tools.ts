/**
 * The Librarian's tools: reading notes and threads, and the few writes it may make (a note, a
 * move, an index note, a thread entry), all through the Desk. They are its own — the oracle and
 * the MCP server never get them — and are written as vlt tool specs so that the agent loop checks
 * their arguments and caps their results like any other tool's.
 */
import { z } from 'zod'
import { quotedName } from '../display/index.js'
import { findNotes } from '../notes/index.js'
import { displayEntry, ENTRY_TYPES, listThreads, readerSummary, readThread, searchThreads } from '../threads/index.js'
import { APPENDS, defineTool, fitItems, READ_ONLY, type AnyToolSpec, type Remembered } from '../tools/index.js'
import type { Desk } from './desk.js'

const NOTHING: Remembered = { summary: '', insights: [], symbols: [], files: [] }
const threadName = z.string().min(1).max(64).describe('Thread name: lowercase letters, digits, dashes.')
const notePath = z.string().min(1).max(500).describe('Repo-relative path of a markdown note.')
/** Text answers only: the structured side is for MCP clients, which never see these tools. */
const TEXT_ONLY = {}
/** The part of a tool result left to entries once the heading is written. */
const FRAME_TOKENS = 200

export interface LibrarianToolEnv {
  desk: Desk
  /** Cap of one result, in tokens: entries beyond it are paged. */
  maxTokens: number
  warn(message: string): void
}

export function librarianTools(env: LibrarianToolEnv): AnyToolSpec[] {
  const { desk } = env
  const answer = (text: string) => ({ structured: {}, text, remember: NOTHING })

  const listNotes = defineTool({
    name: 'list_notes',
    title: 'List notes',
    description: `The markdown notes in the folders you write to (${desk.shelves.map((s) => `${s}/`).join(', ')}). Other notes of the repository are found with search_notes.`,
    input: {},
    output: TEXT_ONLY,
    annotations: READ_ONLY,
    run: async () => {
      const notes = await desk.listNotes()
      return answer(notes.length === 0 ? 'No notes there yet.' : notes.map(quotedName).join('\n'))
    },
  })

  const readNote = defineTool({
    name: 'read_note',
    title: 'Read note',
    description: 'The text of a markdown note of the repository. Read a note before you overwrite it.',
    input: { path: notePath },
    output: TEXT_ONLY,
    annotations: READ_ONLY,
    run: async (args) => {
      const note = await desk.readNote(args.path)
      const hidden = note.redactions > 0 ? `\n(${note.redactions} secret-looking string(s) hidden; this note cannot be overwritten by you)` : ''
      return answer(`${quotedName(note.path)}${hidden}\n\n${note.text}`)
    },
  })

  const searchNotes = defineTool({
    name: 'search_notes',
    title: 'Search notes',
    description: 'Search every markdown note of the repository (README, docs/, ADRs, notes folders) by keywords.',
    input: { query: z.string().min(1).max(2000), limit: z.number().int().min(1).max(50).optional().describe('Default 10.') },
    output: TEXT_ONLY,
    annotations: READ_ONLY,
    run: async (args) => {
      const found = await findNotes(desk.root, args.query, { limit: args.limit ?? 10, warn: env.warn })
      const lines = found.results.map((hit) => `${quotedName(hit.path)}:${hit.startLine}  ${hit.heading || hit.title}\n    ${hit.snippet.replace(/\s+/g, ' ').slice(0, 300)}`)
      return answer([`${found.results.length} note section(s) for ${JSON.stringify(args.query)}`, ...lines].join('\n'))
    },
  })

  const listThreadsTool = defineTool({
    name: 'list_threads',
    title: 'List threads',
    description: 'The development threads, newest activity first: name, title, entries, last activity. Oracle sessions are oracle-session-YYYY-MM-DD.',
    input: {
      prefix: z.string().max(64).optional().describe('Only names starting with this, e.g. oracle-session-.'),
      since: z.string().max(40).optional().describe('Only threads active on or after this ISO date.'),
    },
    output: TEXT_ONLY,
    annotations: READ_ONLY,
    run: async (args) => {
      const { threads, warnings } = await listThreads(desk.vltDir)
      const chosen = threads
        .filter((t) => (args.prefix === undefined || t.name.startsWith(args.prefix)) && (args.since === undefined || t.lastActivity >= args.since))
        .sort((a, b) => b.lastActivity.localeCompare(a.lastActivity))
      const lines = chosen.map((t) => `${t.name}  ${t.entries} entries, last ${t.lastActivity}  ${t.title}`)
      return answer([`${chosen.length} thread(s)`, ...lines, ...warnings.map((w) => `warning: ${w}`)].join('\n'))
    },
  })

  const readThreadTool = defineTool({
    name: 'read_thread',
    title: 'Read thread',
    description: 'A thread: its summary, then its entries oldest first (with ids to cite). Long threads are paged: pass the offset the result gives.',
    input: { thread: threadName, offset: z.number().int().min(0).optional().describe('First entry to show (default 0).') },
    output: TEXT_ONLY,
    annotations: READ_ONLY,
    run: async (args) => {
      const thread = await readThread(desk.vltDir, args.thread)
      const offset = args.offset ?? 0
      const summary = offset === 0 && thread.entries.length > 0 ? await readerSummary(desk.root, desk.vltDir, thread, (w) => env.warn(`warning: ${w}`)) : undefined
      const rest = thread.entries.slice(offset)
      const shown = rest.length === 0 ? 0 : fitItems(rest, displayEntry, FRAME_TOKENS + (summary ? summary.text.length / 4 : 0), env.maxTokens)
      const next = offset + shown < thread.entries.length ? `\n\n(entries ${offset + 1}-${offset + shown} of ${thread.entries.length}; call again with offset ${offset + shown} for more)` : ''
      const parts = [
        `# ${thread.title} (${thread.name}, ${thread.entries.length} entries)`,
        ...(summary ? [`## Summary\n\n${summary.text}`] : []),
        ...rest.slice(0, shown).map(displayEntry),
        ...thread.problems.map((p) => `warning: ${p}`),
      ]
      return answer(parts.join('\n\n') + next)
    },
  })

  const searchThreadsTool = defineTool({
    name: 'search_threads',
    title: 'Search threads',
    description: 'Search the entries of every thread by keywords.',
    input: { query: z.string().min(1).max(2000), limit: z.number().int().min(1).max(50).optional().describe('Default 10.'), type: z.enum(ENTRY_TYPES).optional() },
    output: TEXT_ONLY,
    annotations: READ_ONLY,
    run: async (args) => {
      const { hits, warnings } = await searchThreads(desk.vltDir, args.query, { limit: args.limit ?? 10, type: args.type })
      const lines = hits.map((h) => `${h.thread} [${h.entryId}] ${h.type} · ${h.author} · ${h.timestamp}\n    ${h.snippet}`)
      return answer([`${hits.length} entr(ies) for ${JSON.stringify(args.query)}`, ...lines, ...warnings.map((w) => `warning: ${w}`)].join('\n'))
    },
  })

  const writeNote = defineTool({
    name: 'write_note',
    title: 'Write note',
    description: 'Create a markdown note, or replace one you read in this session. Only inside the notes folders; left uncommitted for the user to review.',
    input: { path: notePath, content: z.string().min(1).max(200_000).describe('The whole note, markdown.') },
    output: TEXT_ONLY,
    annotations: APPENDS,
    run: async (args) => {
      const write = await desk.writeNote(args.path, args.content)
      return answer(`${write.action === 'create' ? 'Created' : 'Updated'} ${write.path} (${write.bytes} bytes)${redactedNote(write.redacted)}.`)
    },
  })

  const moveNote = defineTool({
    name: 'move_note',
    title: 'Move note',
    description: 'Move or rename a note inside the notes folders; never replaces an existing note. Links to it from the notes in the folders, and its own relative links, are updated (read a note again before rewriting it).',
    input: { from: notePath, to: notePath },
    output: TEXT_ONLY,
    annotations: APPENDS,
    run: async (args) => {
      const { moved, relinked } = await desk.moveNote(args.from, args.to)
      return answer(`Moved ${moved.from} to ${moved.path}.${relinked.length > 0 ? ` Updated the links in ${relinked.join(', ')}.` : ''}`)
    },
  })

  const writeIndex = defineTool({
    name: 'write_index_note',
    title: 'Write index note',
    description: 'Create (or replace, once read) an index note: a title, an introduction, and a link with a one-line description per existing note.',
    input: {
      path: notePath,
      title: z.string().min(1).max(200),
      intro: z.string().max(4000).optional(),
      notes: z.array(z.object({ path: notePath, description: z.string().max(500) })).min(1).max(500),
    },
    output: TEXT_ONLY,
    annotations: APPENDS,
    run: async (args) => {
      const write = await desk.writeIndex(args.path, args.title, args.intro ?? '', args.notes)
      return answer(`${write.action === 'create' ? 'Created' : 'Updated'} index ${write.path} linking ${args.notes.length} note(s)${redactedNote(write.redacted)}.`)
    },
  })

  const appendThread = defineTool({
    name: 'append_thread',
    title: 'Append to thread',
    description: 'Add an entry to a thread (created when missing), signed librarian. Entries are never edited or removed.',
    input: {
      thread: threadName,
      text: z.string().min(1).max(20_000).describe('Markdown.'),
      type: z.enum(ENTRY_TYPES).optional().describe('Default thought.'),
      title: z.string().max(200).optional().describe('Title of a thread created by this call.'),
    },
    output: TEXT_ONLY,
    annotations: APPENDS,
    run: async (args) => {
      const { entry, created } = await desk.appendThread(args.thread, args.text, args.type ?? 'thought', args.title)
      return answer(`Added ${entry.type} ${entry.id} to ${args.thread}${created ? ' (new thread)' : ''}.`)
    },
  })

  return [listNotes, readNote, searchNotes, listThreadsTool, readThreadTool, searchThreadsTool, writeNote, moveNote, writeIndex, appendThread]
}

function redactedNote(count: number | undefined): string {
  return count ? `; ${count} secret-looking string(s) were replaced by [REDACTED:…] markers` : ''
}
