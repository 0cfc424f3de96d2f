/**
 * thread_push and thread_read: the development threads under `.vlt/threads/`, shared with the
 * CLI. An agent pushing to a thread that does not exist yet creates it (asking it to call a
 * second tool first would only cost a round trip).
 */
import { z } from 'zod'
import { UsageError } from '../errors.js'
import { appendEntry, createThread, displayEntry, ENTRY_TYPES, KNOWN_AUTHORS, readerSummary, readThread, type Entry } from '../threads/index.js'
import { cutNote, encodeCursor, fitItems } from './output-budget.js'
import { APPENDS, currentFreshness, cursorInput, defineTool, freshnessSchema, pageFields, pageOf, pageOutput, READ_ONLY, type AnyToolSpec, type ToolEnv } from './kit.js'

const FRAME_TOKENS = 200
const threadInput = z.string().min(1).max(64).describe('Thread name: lowercase letters, digits, dashes.')
const entrySchema = z.object({ id: z.string(), timestamp: z.string(), author: z.string(), type: z.enum(ENTRY_TYPES), text: z.string() })

export function threadTools(env: ToolEnv): AnyToolSpec[] {
  const threadPushTool = defineTool({
    name: 'thread_push',
    title: 'Push to thread',
    description: 'Append a note to a development thread in .vlt/threads/ (created if missing).',
    input: {
      thread: threadInput,
      text: z.string().min(1).max(20_000).describe('Markdown.'),
      type: z.enum(ENTRY_TYPES).optional().describe('Default thought.'),
    },
    output: { thread: z.string(), created: z.boolean(), ...entrySchema.shape, freshness: freshnessSchema },
    annotations: APPENDS,
    run: async (args) => {
      const vltDir = env.index.repo.vltDir
      const author = authorFor(env.clientId())
      const entry = { text: args.text, type: args.type ?? 'thought', author }
      let created = false
      let added: Entry
      try {
        added = await appendEntry(vltDir, args.thread, entry)
      } catch (error) {
        if (!(error instanceof UsageError) || !error.message.startsWith(`no thread named ${args.thread}`)) throw error
        await createThread(vltDir, { name: args.thread }).catch((raced: unknown) => {
          // Another agent created it meanwhile: fine, append to theirs.
          if (!(raced instanceof UsageError) || !raced.message.includes('already exists')) throw raced
        })
        created = true
        added = await appendEntry(vltDir, args.thread, entry)
      }
      const freshness = await currentFreshness(env)
      const firstLine = added.text.split('\n', 1)[0]!.slice(0, 160)
      return {
        structured: { thread: args.thread, created, ...added, freshness },
        text: `Added ${added.type} ${added.id} to ${args.thread}${created ? ' (new thread)' : ''} as ${added.author}.`,
        remember: {
          summary: `pushed ${added.type} to ${args.thread}`,
          insights: added.type === 'thought' ? [] : [`${added.type} in ${args.thread}: ${firstLine}`],
          symbols: [],
          files: [],
        },
      }
    },
  })

  const threadReadTool = defineTool({
    name: 'thread_read',
    title: 'Read thread',
    description: 'A development thread: its summary (cached, updated on read), then its entries oldest first; paged.',
    input: {
      thread: threadInput,
      summary: z.boolean().optional().describe('Default true: the summary first, on the first page.'),
      cursor: cursorInput,
    },
    output: {
      name: z.string(),
      title: z.string(),
      created: z.string(),
      description: z.string(),
      summary: z
        .object({ text: z.string(), upToEntry: z.string().nullable(), stale: z.boolean(), generatedBy: z.enum(['llm', 'extractive']) })
        .optional()
        .describe('The whole thread in short: by the summarise model of the user config, else extractive (decisions first).'),
      entries: z.array(entrySchema),
      total: z.number(),
      warnings: z.array(z.string()).optional(),
      ...pageOutput,
      freshness: freshnessSchema,
    },
    annotations: READ_ONLY,
    run: async (args) => {
      const { key, offset } = pageOf('thread_read', args)
      const thread = await readThread(env.index.repo.vltDir, args.thread)
      const summary = offset === 0 && args.summary !== false && thread.entries.length > 0 ? await readerSummary(env.index.root, env.index.repo.vltDir, thread, (w) => env.warn(`warning: ${w}`)) : undefined
      const freshness = await currentFreshness(env)
      const rest = thread.entries.slice(offset)
      const fitted = rest.length === 0 ? 0 : fitItems(rest, displayEntry, FRAME_TOKENS, env.maxTokens)
      const entries = rest.slice(0, fitted)
      const shown = offset + fitted
      const cursor = shown < thread.entries.length ? encodeCursor({ tool: 'thread_read', offset: shown, tree: freshness.treeHash, args: key }) : undefined
      const note = cursor ? cutNote(entries.length, thread.entries.length - offset, cursor) : undefined
      const structured = {
        name: thread.name,
        title: thread.title,
        created: thread.created,
        description: thread.description,
        ...(summary ? { summary } : {}),
        entries,
        total: thread.entries.length,
        ...(thread.problems.length > 0 ? { warnings: thread.problems } : {}),
        ...pageFields(cursor, note),
        freshness,
      }
      const text = [
        `# ${thread.title} (${thread.name}, ${thread.entries.length} entries)`,
        ...(thread.description ? [thread.description] : []),
        ...(summary ? [`## Summary (${summary.generatedBy}, up to ${summary.upToEntry})\n\n${summary.text}`, '## Entries'] : []),
        ...entries.map(displayEntry),
        ...thread.problems.map((p) => `warning: ${p}`),
        ...(note ? [note] : []),
      ].join('\n\n')
      const decisions = entries.filter((e) => e.type === 'decision').map((e) => `decision in ${thread.name}: ${e.text.split('\n', 1)[0]!.slice(0, 160)}`)
      return { structured, text, remember: { summary: `read ${entries.length} of ${thread.entries.length} entries of ${thread.name}`, insights: decisions.slice(-3), symbols: [], files: [] } }
    },
  })
  return [threadPushTool, threadReadTool]
}

/** Entries are signed by the agent: `claude` for Claude clients, else the client id. */
function authorFor(client: string): string {
  if (/claude/i.test(client)) return 'claude'
  const known = (KNOWN_AUTHORS as readonly string[]).find((author) => author === client.toLowerCase())
  return known ?? (client.replace(/[\r\n·<>]/g, ' ').trim().slice(0, 100) || 'user')
}
