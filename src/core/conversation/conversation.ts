/**
 * The shared conversation context: one per (project, client: an MCP client, or the web app), persisted in
 * `.vlt/mcp/contexts/<client>.json`, so that it survives server restarts and model changes. Every
 * tool call appends an exchange; later calls read it back — a pronoun stands for the symbol last
 * talked about, and search leans towards the files already in play.
 *
 * Several servers may serve the same client at once (one per agent window): each save re-reads
 * the file under a lock and appends only its own new exchanges, so none is lost. When the
 * exchanges reach 80 % of the token budget, all but the last five are folded into the summary;
 * the symbols, files and insights they carried stay in their own lists.
 */
import { randomBytes, createHash } from 'node:crypto'
import { lstat } from 'node:fs/promises'
import { join } from 'node:path'
import { UsageError } from '../errors.js'
import { parseQuery } from '../query/search/index.js'
import { countTokens } from '../repomap/index.js'
import { ConfinementError, listDirConfined, readFileConfined, removeConfined, withLock, writeFileAtomic } from '../store/index.js'
import type { Compressor } from './compression.js'

export const DEFAULT_CONTEXT_BUDGET = 16_000
export const CONTEXT_BUDGET_ENV = 'VLT_MCP_CONTEXT_BUDGET'
export const CONTEXT_TTL_ENV = 'VLT_MCP_CONTEXT_TTL_DAYS'
export const DEFAULT_CONTEXT_TTL_DAYS = 7
/** Share of the budget at which older exchanges are compressed. */
export const COMPRESS_AT = 0.8
/** Exchanges always kept verbatim. */
export const KEEP_RECENT = 5
const MAX_SYMBOLS = 50
const MAX_FILES = 50
const MAX_INSIGHTS = 40
const MAX_INPUT_CHARS = 300
const VERSION = 1

export interface Exchange {
  /** Time-sortable and unique across servers. */
  id: string
  at: string
  tool: string
  input: Record<string, unknown>
  /** One line about the output. */
  summary: string
  /** Tokens of the output the tool returned. */
  tokens: number
  insights: string[]
  symbols: string[]
  files: string[]
  isError?: boolean
}

export interface ConversationState {
  version: number
  client: string
  created: string
  updated: string
  budget: number
  /** Summary tokens plus the tokens of the exchanges kept. */
  used: number
  summary: string
  compressions: number
  /** Exchanges folded into the summary so far. */
  compressedExchanges: number
  exchanges: Exchange[]
  /** Most recent first. */
  symbols: string[]
  /** Most recent first. */
  files: string[]
  /** Oldest first. */
  insights: string[]
}

export type NewExchange = Omit<Exchange, 'id' | 'at'>

export interface ConversationOptions {
  budget: number
  ttlDays: number
  compressor: Compressor
  warn: (message: string) => void
}

export function contextBudget(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[CONTEXT_BUDGET_ENV]
  if (raw === undefined || raw === '') return DEFAULT_CONTEXT_BUDGET
  const budget = Number(raw)
  if (!Number.isInteger(budget) || budget < 4000 || budget > 128_000) throw new UsageError(`${CONTEXT_BUDGET_ENV} must be an integer between 4000 and 128000, got ${JSON.stringify(raw)}`)
  return budget
}

export function contextTtlDays(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[CONTEXT_TTL_ENV]
  if (raw === undefined || raw === '') return DEFAULT_CONTEXT_TTL_DAYS
  const days = Number(raw)
  if (!Number.isFinite(days) || days <= 0) throw new UsageError(`${CONTEXT_TTL_ENV} must be a positive number of days, got ${JSON.stringify(raw)}`)
  return days
}

export function contextsDir(vltDir: string): string {
  return join(vltDir, 'mcp', 'contexts')
}

/** A readable, collision-free file name for any client id. */
export function contextFile(vltDir: string, client: string): string {
  const slug = client.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 40) || 'client'
  return join(contextsDir(vltDir), `${slug}-${createHash('sha1').update(client).digest('hex').slice(0, 8)}.json`)
}

/** Deletes contexts untouched for longer than the TTL; returns how many. */
export async function removeExpiredContexts(vltDir: string, ttlDays: number, now = Date.now()): Promise<number> {
  const dir = contextsDir(vltDir)
  // A refused folder (a link) holds nothing of ours to expire; Conversation.open reports it.
  const names = await listDirConfined(dir).catch((error: unknown) => {
    if (error instanceof ConfinementError) return []
    throw error
  })
  let removed = 0
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const info = await lstat(join(dir, name)).catch(() => undefined)
    if (info && now - info.mtimeMs > ttlDays * 86_400_000) {
      await removeConfined(join(dir, name)).catch(() => {})
      removed++
    }
  }
  return removed
}

const PRONOUNS = new Set(['it', 'its', "it's", 'this', 'that', 'these', 'those', 'them', 'they', 'their', 'same'])

export class Conversation {
  private pending: Exchange[] = []
  private saving: Promise<void> = Promise.resolve()
  /** Set once the context folder was refused (a link inside .vlt/): the context then lives in memory only, reported once. */
  private refused = false

  private constructor(
    readonly path: string,
    private readonly vltDir: string,
    public state: ConversationState,
    private readonly options: ConversationOptions,
  ) {}

  static async open(vltDir: string, client: string, options: ConversationOptions): Promise<Conversation> {
    const path = contextFile(vltDir, client)
    let refused: ConfinementError | undefined
    const stored = await readState(path, options).catch((error: unknown) => {
      // The tools work without a stored context: answer them, keep it in memory, and say why once.
      if (!(error instanceof ConfinementError)) throw error
      refused = error
      return undefined
    })
    const state = stored ?? emptyState(client, options.budget)
    state.budget = options.budget
    const conversation = new Conversation(path, vltDir, state, options)
    if (refused) conversation.refuse(refused)
    return conversation
  }

  /** The symbol a pronoun-only argument (`it`, `this`) stands for; the argument otherwise. */
  resolveSymbol(symbol: string): { symbol: string; resolved?: string } {
    const word = symbol.trim().toLowerCase()
    const last = this.state.symbols[0]
    if (!PRONOUNS.has(word) || last === undefined) return { symbol }
    return { symbol: last, resolved: `${symbol.trim()} → ${last}` }
  }

  /** A follow-up query that names no identifier but says "it"/"this": the last symbols are appended. */
  expandQuery(query: string): { query: string; resolved?: string } {
    const words = query.toLowerCase().match(/[a-z']+/g) ?? []
    const last = this.state.symbols.slice(0, 2)
    if (last.length === 0 || !words.some((w) => PRONOUNS.has(w)) || parseQuery(query).identifiers.length > 0) return { query }
    return { query: `${query} ${last.join(' ')}`, resolved: `${words.find((w) => PRONOUNS.has(w))} → ${last.join(', ')}` }
  }

  /** Files in play, most recent first. */
  recentFiles(limit: number): string[] {
    return this.state.files.slice(0, limit)
  }

  /** Appends an exchange now (later calls see it at once) and saves it in the background. */
  record(entry: NewExchange): Exchange {
    const exchange: Exchange = { id: newExchangeId(), at: new Date().toISOString(), ...entry, input: trimInput(entry.input) }
    this.pending.push(exchange)
    applyExchange(this.state, exchange)
    this.state.used = usedTokens(this.state)
    if (this.refused) return exchange
    this.saving = this.saving.then(() => this.save()).catch((error: unknown) => {
      if (error instanceof ConfinementError) this.refuse(error)
      else this.options.warn(`warning: could not save the MCP conversation context ${this.path}: ${(error as Error).message}`)
    })
    return exchange
  }

  private refuse(error: ConfinementError): void {
    if (this.refused) return
    this.refused = true
    this.options.warn(`warning: the MCP conversation context is kept in memory only: ${error.message}`)
  }

  /** Resolves when every recorded exchange is on disk. */
  flush(): Promise<void> {
    return this.saving
  }

  private async save(): Promise<void> {
    if (this.pending.length === 0) return
    const mine = [...this.pending]
    await withLock(
      this.vltDir,
      async () => {
        const disk = (await readState(this.path, this.options)) ?? emptyState(this.state.client, this.options.budget)
        disk.budget = this.options.budget
        const known = new Set(disk.exchanges.map((e) => e.id))
        for (const exchange of mine) {
          if (known.has(exchange.id)) continue
          disk.exchanges.push(exchange)
          applyExchange(disk, exchange)
        }
        disk.exchanges.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        await this.compressIfNeeded(disk)
        disk.updated = new Date().toISOString()
        disk.used = usedTokens(disk)
        await writeFileAtomic(this.path, Buffer.from(JSON.stringify(disk, null, 1)), { durable: false })
        this.pending = this.pending.filter((e) => !mine.includes(e))
        // Exchanges recorded while saving are not on disk yet: keep them visible.
        for (const exchange of this.pending) {
          disk.exchanges.push(exchange)
          applyExchange(disk, exchange)
        }
        disk.used = usedTokens(disk)
        this.state = disk
      },
      { name: 'mcp-contexts', waitMs: 10_000 },
    )
  }

  private async compressIfNeeded(state: ConversationState): Promise<void> {
    if (usedTokens(state) < COMPRESS_AT * state.budget || state.exchanges.length <= KEEP_RECENT) return
    const older = state.exchanges.slice(0, -KEEP_RECENT)
    state.summary = await this.options.compressor.compress(state.summary, older, Math.floor(state.budget / 4))
    state.exchanges = state.exchanges.slice(-KEEP_RECENT)
    state.compressions++
    state.compressedExchanges += older.length
  }
}

function emptyState(client: string, budget: number): ConversationState {
  const now = new Date().toISOString()
  return { version: VERSION, client, created: now, updated: now, budget, used: 0, summary: '', compressions: 0, compressedExchanges: 0, exchanges: [], symbols: [], files: [], insights: [] }
}

/** The stored context; undefined when absent, expired, or unreadable (reported, then replaced). */
async function readState(path: string, options: ConversationOptions): Promise<ConversationState | undefined> {
  const text = (await readFileConfined(path))?.toString('utf8')
  if (text === undefined) return undefined
  try {
    const state = JSON.parse(text) as ConversationState
    if (state.version !== VERSION || !Array.isArray(state.exchanges) || !Array.isArray(state.symbols)) throw new Error(`unknown format`)
    if (Date.now() - Date.parse(state.updated) > options.ttlDays * 86_400_000) return undefined
    return state
  } catch (error) {
    options.warn(`warning: ${path} is unreadable (${(error as Error).message}); starting a new conversation context`)
    return undefined
  }
}

function applyExchange(state: ConversationState, exchange: Exchange): void {
  state.symbols = mostRecentFirst(state.symbols, exchange.symbols, MAX_SYMBOLS)
  state.files = mostRecentFirst(state.files, exchange.files, MAX_FILES)
  for (const insight of exchange.insights) {
    const at = state.insights.indexOf(insight)
    if (at >= 0) state.insights.splice(at, 1)
    state.insights.push(insight)
  }
  if (state.insights.length > MAX_INSIGHTS) state.insights.splice(0, state.insights.length - MAX_INSIGHTS)
}

function mostRecentFirst(list: string[], added: readonly string[], max: number): string[] {
  const fresh = [...new Set(added)]
  return [...fresh, ...list.filter((item) => !fresh.includes(item))].slice(0, max)
}

function usedTokens(state: ConversationState): number {
  return countTokens(state.summary) + state.exchanges.reduce((sum, e) => sum + e.tokens, 0)
}

function newExchangeId(): string {
  return `${Date.now().toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}`
}

function trimInput(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue
    out[key] = typeof value === 'string' && value.length > MAX_INPUT_CHARS ? `${value.slice(0, MAX_INPUT_CHARS)}…` : value
  }
  return out
}
