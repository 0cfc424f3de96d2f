/**
 * search_notes and search_history: the repository's markdown notes and past agent conversations
 * about it. Each call brings those (small) indexes up to date itself; freshness is the code
 * index's, like every other answer.
 */
import { z } from 'zod'
import { quotedName } from '../display/index.js'
import { queryHistory, type HistoryHit } from '../history/index.js'
import { findNotes, type NoteHit } from '../notes/index.js'
import { cutNote, encodeCursor, fitItems } from './output-budget.js'
import { currentFreshness, cursorInput, defineTool, freshnessSchema, pageFields, pageOf, pageOutput, READ_ONLY, topFiles, type AnyToolSpec, type ToolEnv } from './kit.js'

const FRAME_TOKENS = 200
const SNIPPET_CHARS = 600

const noteSchema = z.object({ path: z.string(), heading: z.string(), startLine: z.number(), endLine: z.number(), score: z.number(), methods: z.array(z.string()), snippet: z.string(), tags: z.array(z.string()), title: z.string() })
const historySchema = z.object({
  sessionId: z.string(),
  exchangeId: z.string(),
  title: z.string(),
  timestamp: z.string(),
  branch: z.string(),
  score: z.number(),
  prompt: z.string(),
  reply: z.string(),
  files: z.array(z.string()),
})

export function knowledgeTools(env: ToolEnv): AnyToolSpec[] {
  const searchNotesTool = defineTool({
    name: 'search_notes',
    title: 'Search notes',
    description: 'Search the markdown notes (README, docs/, ADRs, vault) by keywords.',
    input: {
      query: z.string().min(1).max(2000),
      limit: z.number().int().min(1).max(50).optional().describe('Per page (default 10).'),
      tag: z.string().max(100).optional(),
      cursor: cursorInput,
    },
    output: { query: z.string(), results: z.array(noteSchema), ...pageOutput, freshness: freshnessSchema },
    annotations: READ_ONLY,
    run: async (args) => {
      const { key, offset } = pageOf('search_notes', args)
      const limit = args.limit ?? 10
      const found = await findNotes(env.index.root, args.query, { limit: offset + limit + 1, tag: args.tag, warn: env.warn })
      const window: Array<Omit<NoteHit, 'content'>> = found.results.slice(offset, offset + limit).map(({ content: _content, ...hit }) => ({ ...hit, snippet: hit.snippet.slice(0, SNIPPET_CHARS) }))
      const freshness = await currentFreshness(env)
      const page = paged('search_notes', key, offset, window, found.results.length > offset + limit, renderNote, env, freshness.treeHash)
      return {
        structured: { query: args.query, results: page.items, ...page.extra, freshness },
        text: [`${page.items.length} note section(s) for ${JSON.stringify(args.query)}`, ...page.items.map(renderNote), page.footer].filter(Boolean).join('\n'),
        remember: {
          summary: `${page.items.length} note section(s)`,
          insights: page.items[0] ? [`notes on ${JSON.stringify(args.query)}: ${page.items[0].title} (${page.items[0].path})`] : [],
          symbols: [],
          files: topFiles(page.items),
        },
      }
    },
  })

  const searchHistoryTool = defineTool({
    name: 'search_history',
    title: 'Search history',
    description: "Search past agent conversations (Claude Code transcripts) about this repository.",
    input: {
      query: z.string().min(1).max(2000),
      limit: z.number().int().min(1).max(50).optional().describe('Per page (default 10).'),
      after: z.string().max(40).optional().describe('ISO date or age like 7d.'),
      cursor: cursorInput,
    },
    output: { query: z.string(), results: z.array(historySchema), ...pageOutput, freshness: freshnessSchema },
    annotations: READ_ONLY,
    run: async (args) => {
      const { key, offset } = pageOf('search_history', args)
      const limit = args.limit ?? 10
      const found = await queryHistory(env.index.root, args.query, { limit: offset + limit + 1, after: args.after, warn: env.warn })
      const window = found.results.slice(offset, offset + limit).map(trimHit)
      const freshness = await currentFreshness(env)
      const page = paged('search_history', key, offset, window, found.results.length > offset + limit, renderHistory, env, freshness.treeHash)
      return {
        structured: { query: args.query, results: page.items, ...page.extra, freshness },
        text: [`${page.items.length} past exchange(s) for ${JSON.stringify(args.query)}`, ...page.items.map(renderHistory), page.footer].filter(Boolean).join('\n'),
        remember: { summary: `${page.items.length} past exchange(s)`, insights: [], symbols: [], files: [...new Set(page.items.flatMap((h) => h.files).slice(0, 3))] },
      }
    },
  })
  return [searchNotesTool, searchHistoryTool]
}

type TrimmedHit = z.infer<typeof historySchema>

function trimHit(hit: HistoryHit): TrimmedHit {
  return {
    sessionId: hit.sessionId,
    exchangeId: hit.exchangeId,
    title: hit.title,
    timestamp: hit.timestamp,
    branch: hit.branch,
    score: hit.score,
    prompt: hit.prompt.slice(0, SNIPPET_CHARS),
    reply: hit.reply.slice(0, SNIPPET_CHARS),
    files: hit.files.slice(0, 10),
  }
}

function paged<T>(tool: string, key: string, offset: number, window: T[], moreAfter: boolean, render: (item: T) => string, env: ToolEnv, tree: string) {
  const fitted = window.length === 0 ? 0 : fitItems(window, render, FRAME_TOKENS, env.maxTokens)
  const cut = fitted < window.length
  const cursor = cut || moreAfter ? encodeCursor({ tool, offset: offset + fitted, tree, args: key }) : undefined
  const note = cut && cursor ? cutNote(fitted, `${window.length} on this page`, cursor) : undefined
  return {
    items: window.slice(0, fitted),
    extra: pageFields(cursor, note),
    footer: note ?? (cursor ? `More: cursor "${cursor}"` : ''),
  }
}

function renderNote(n: Omit<NoteHit, 'content'>): string {
  return `${quotedName(n.path)}:${n.startLine}-${n.endLine}  ${n.heading || n.title}\n${n.snippet.split('\n').map((l) => `    ${l}`).join('\n')}`
}

function renderHistory(h: TrimmedHit): string {
  return `${h.timestamp} ${h.branch} ${h.title}\n    Q: ${h.prompt.replace(/\s+/g, ' ').slice(0, 200)}\n    A: ${h.reply.replace(/\s+/g, ' ').slice(0, 300)}`
}
