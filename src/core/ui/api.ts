/**
 * The app's read API: small JSON answers built from the same cores the commands and the MCP server
 * use (definitions, references, file-level search, the repo map, notes, threads, agent history,
 * index status and sync). Text that came from the repository goes out as data, never as markup:
 * the page renders it escaped (markdown through a renderer that escapes raw HTML).
 */
import { loadConfig, type VltConfig } from '../config/index.js'
import { currentContextName, exchangeCitation, openContext, type Conversation } from '../conversation/index.js'
import { redactSecrets, resolveInRepo } from '../files/index.js'
import { UsageError } from '../errors.js'
import { openRepo, type Repo } from '../git/index.js'
import { fileHistory } from '../history/index.js'
import { LspServers } from '../lsp/index.js'
import { answerRebuildingDamage, indexStatus, syncIndex } from '../index/index.js'
import { createLlmClient } from '../llm/index.js'
import { readNote } from '../notes/index.js'
import { openQueryContext, type QueryContext } from '../query/context.js'
import { findDefinitions } from '../query/def.js'
import { findReferences } from '../query/refs.js'
import { searchFiles, SEARCH_LANGUAGES } from '../query/search/index.js'
import { buildRepoMap } from '../repomap/index.js'
import { ORACLE_SOURCES, sessionThreadName } from '../oracle/index.js'
import { listThreads, readerSummary, readThread, validateThreadName } from '../threads/index.js'
import { UiRefusal } from './errors.js'
import { blameLines, readCommit, readRepoFile } from './repo-view.js'

/** A query context is re-opened (which syncs the index with HEAD and the working tree) when older than this. */
const CONTEXT_TTL_MS = 3000
const MAX_SEARCH_RESULTS = 50
const MAP_TOKENS = 4000

export type ApiHandler = (params: URLSearchParams) => Promise<unknown>

/** The repository the app serves, its config, and the query context and conversation its requests share. */
export class RepoSession {
  private context: { opened: number; qctx: Promise<QueryContext> } | undefined
  private talk: { name: string; opened: Promise<Conversation> } | undefined
  /** The language servers the oracle's answers ask for diagnostics (`[lsp] enabled`): started once, not per question. */
  readonly lsp: LspServers

  private constructor(
    readonly repo: Repo,
    readonly config: VltConfig,
    private readonly warn: (message: string) => void,
  ) {
    this.lsp = new LspServers(this.root)
  }

  static async open(cwd: string, warn: (message: string) => void): Promise<RepoSession> {
    const repo = await openRepo(cwd)
    if (repo.root === null) throw new UsageError('git vlt ui shows a working tree, and a bare repository has none: run it in a clone or worktree')
    return new RepoSession(repo, await loadConfig(repo.root), warn)
  }

  get root(): string {
    return this.repo.root!
  }

  /** The index as queries see it, re-opened once it is a few seconds old (cheap when nothing changed). */
  async queryContext(): Promise<QueryContext> {
    const now = Date.now()
    if (!this.context || now - this.context.opened > CONTEXT_TTL_MS) {
      const qctx = openQueryContext(this.root, { warn: this.warn })
      this.context = { opened: now, qctx }
      qctx.catch(() => (this.context = undefined))
    }
    return this.context.qctx
  }

  forgetContext(): void {
    this.context = undefined
  }

  /**
   * The oracle context the CLI continues (its current one, followed when `--new` or `--context`
   * moves it): a question saying "it" stands for the symbols talked about last, here or on the CLI.
   */
  async conversation(): Promise<Conversation> {
    const name = await currentContextName(this.repo.vltDir)
    if (this.talk?.name !== name) {
      const opened = openContext(this.repo.vltDir, this.root, { name, warn: this.warn })
      this.talk = { name, opened }
      opened.catch(() => (this.talk = undefined))
    }
    return this.talk.opened
  }
}

export interface ApiRoute {
  method: 'GET' | 'POST'
  handle: ApiHandler
}

export function apiRoutes(session: RepoSession): Map<string, ApiRoute> {
  const { repo, config } = session
  // A query finding damage in what it reads after loading: answered again from a context opened afresh (index/damage.ts).
  const get = (handle: ApiHandler): ApiRoute => ({ method: 'GET', handle: (params) => answerRebuildingDamage(() => handle(params), () => session.forgetContext()) })
  return new Map<string, ApiRoute>([
    [
      '/api/info',
      get(async () => ({ root: session.root, head: repo.head, sources: ORACLE_SOURCES, languages: SEARCH_LANGUAGES, model: llmModel(config), editor: EDITOR_LINK, sessionThread: sessionThreadName(new Date()) })),
    ],
    ['/api/file', get(async (p) => readRepoFile(repo, config, required(p, 'path')))],
    ['/api/blame', get(async (p) => ({ blame: await blameLines(repo, config, required(p, 'path'), integer(p, 'start'), integer(p, 'end')) }))],
    ['/api/commit', get(async (p) => readCommit(repo, required(p, 'hash')))],
    ['/api/def', get(async (p) => findDefinitions(await session.queryContext(), required(p, 'symbol'), { limit: 50 }))],
    ['/api/refs', get(async (p) => findReferences(await session.queryContext(), required(p, 'symbol'), { limit: 200 }))],
    ['/api/search', get(async (p) => search(await session.queryContext(), p))],
    ['/api/map', get(async (p) => buildRepoMap(await session.queryContext(), { scope: p.get('scope') || undefined, tokens: MAP_TOKENS }))],
    ['/api/note', get(async (p) => note(session.root, required(p, 'path')))],
    ['/api/threads', get(async () => listThreads(repo.vltDir))],
    ['/api/thread', get(async (p) => thread(repo, required(p, 'name')))],
    ['/api/thread-summary', get(async (p) => threadSummary(repo, required(p, 'name')))],
    ['/api/history', get(async (p) => fileHistory(session.root, resolveInRepo(session.root, required(p, 'path')), { limit: 20 }))],
    ['/api/status', get(async () => indexStatus(session.root, () => {}))],
    ['/api/context', get(async () => contextView(await session.conversation()))],
    [
      '/api/sync',
      {
        method: 'POST',
        handle: async () => {
          const result = await syncIndex(session.root, { warn: () => {} })
          session.forgetContext()
          return result
        },
      },
    ],
  ])
}

/** The "open in editor" link of every view: `{path}` and `{line}` are filled in (absolute path). */
const EDITOR_LINK = process.env.GIT_VLT_EDITOR_URL || 'vscode://file/{path}:{line}'

function llmModel(config: VltConfig): string | null {
  try {
    return createLlmClient(config.llm)?.model ?? null
  } catch {
    return null
  }
}

async function search(qctx: QueryContext, p: URLSearchParams): Promise<unknown> {
  const language = p.get('language') || undefined
  if (language !== undefined && !(SEARCH_LANGUAGES as readonly string[]).includes(language)) throw new UiRefusal(400, `unknown language ${JSON.stringify(language)}`)
  const limit = Math.min(MAX_SEARCH_RESULTS, p.has('limit') ? integer(p, 'limit') : 20)
  return searchFiles(qctx, required(p, 'q'), { limit, language: language as (typeof SEARCH_LANGUAGES)[number] | undefined, path: p.get('path') || undefined })
}

async function note(root: string, path: string): Promise<unknown> {
  const view = await readNote(root, path)
  // A note is text a clone brought: credentials in it are not shown, as they are never indexed.
  return { ...view, content: redactSecrets(view.content).text }
}

/** readThread redacts the entries; the description is redacted when written, but a hand edit or a clone may have put anything there. */
async function thread(repo: Repo, name: string): Promise<unknown> {
  const read = await readThread(repo.vltDir, validateThreadName(name))
  return { ...read, description: redactSecrets(read.description).text }
}

/**
 * The summarise role's model writes it when one is configured (the config read now, as the CLI and
 * MCP read it); otherwise, or when it fails, the extractive summary, with the reason in `warnings`.
 */
async function threadSummary(repo: Repo, name: string): Promise<unknown> {
  const thread = await readThread(repo.vltDir, validateThreadName(name))
  const warnings: string[] = []
  const summary = await readerSummary(repo.root ?? repo.gitDir, repo.vltDir, thread, (warning) => warnings.push(warning))
  return { ...summary, warnings }
}

/** The questions and answers of the current context, oldest first, as the chat re-shows them after a reload. */
async function contextView(conversation: Conversation): Promise<unknown> {
  await conversation.refresh()
  const { state } = conversation
  return {
    name: state.client,
    summary: state.summary,
    compressedExchanges: state.compressedExchanges,
    decisions: state.decisions,
    exchanges: state.exchanges
      .filter((e) => e.question !== undefined)
      .map((e) => ({ id: e.id, at: e.at, via: e.via ?? null, question: e.question, answer: e.answer ?? e.summary, model: e.model ?? null, cite: exchangeCitation(state, e) })),
  }
}

function required(p: URLSearchParams, name: string): string {
  const value = p.get(name)
  if (value === null || value === '') throw new UiRefusal(400, `missing parameter ${name}`)
  return value
}

function integer(p: URLSearchParams, name: string): number {
  const value = Number(required(p, name))
  if (!Number.isInteger(value)) throw new UiRefusal(400, `parameter ${name} must be an integer`)
  return value
}
