/**
 * The oracle context (seed 001 OracleContext): one per name and repository clone, persisted as a
 * checksummed record in `.vlt/contexts/`, shared by `git vlt oracle`, the MCP server and the web app,
 * so that it survives restarts and model changes. Every question and tool call appends an exchange
 * (a question's answer verbatim, secrets redacted); later calls read it back — a pronoun stands for
 * the symbol last talked about, search leans towards the files already in play, the model reads the
 * summary and the key decisions, and "what did we decide about X" is answered from them.
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
import { redactSecrets } from '../files/index.js'
import { ConfinementError, listDirConfined, readRecord, removeConfined, unlessUnwritable, withLock, writeRecord } from '../store/index.js'
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
const MAX_DECISIONS = 40
const MAX_ANSWER_CHARS = 6000
const VERSION = 2
const KIND = 'oracle-context'
/** The name `git vlt oracle`, the MCP server and the web app continue when none is given. */
export const DEFAULT_CONTEXT = 'default'

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
  /** Who asked: `cli` (git vlt oracle), `mcp` (an MCP client, by name), `ui` (the web app). */
  via?: string
  /** A question to the oracle, verbatim (secrets redacted). */
  question?: string
  /** Its answer, verbatim up to 6,000 characters (secrets redacted). */
  answer?: string
  /** The model that wrote the answer (`extractive` when none did). */
  model?: string
}

/** A decision stated in an exchange ("we decided to keep retries at 3"), cited by the exchange's id. */
export interface Decision {
  text: string
  exchange: string
  at: string
}

export interface ConversationState {
  version: number
  /** The context's name (`default` unless --context or a tool argument named another). */
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
  /** Oldest first; kept when their exchanges are folded into the summary. */
  decisions: Decision[]
  /** `active`, or `compressed` once older exchanges were folded into the summary. */
  status: 'active' | 'compressed'
  /** The model of the last answer, or null before any. */
  lastModel: string | null
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
  return join(vltDir, 'contexts')
}

export const CONTEXT_SUFFIX = '.context'

/** A readable, collision-free file name for any context name. */
export function contextFile(vltDir: string, name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-._]+|-+$/g, '').slice(0, 40) || 'context'
  return join(contextsDir(vltDir), `${slug}-${createHash('sha1').update(name).digest('hex').slice(0, 8)}${CONTEXT_SUFFIX}`)
}

/** Deletes contexts untouched for longer than the TTL; returns how many. */
export async function removeExpiredContexts(vltDir: string, ttlDays: number, now = Date.now(), keep?: string): Promise<number> {
  const dir = contextsDir(vltDir)
  const kept = keep === undefined ? undefined : contextFile(vltDir, keep)
  // A refused folder (a link) holds nothing of ours to expire; Conversation.open reports it.
  const names = await listDirConfined(dir).catch((error: unknown) => {
    if (error instanceof ConfinementError) return []
    throw error
  })
  let removed = 0
  for (const name of names.filter((n) => n.endsWith(CONTEXT_SUFFIX))) {
    const info = await lstat(join(dir, name)).catch(() => undefined)
    if (info && join(dir, name) !== kept && now - info.mtimeMs > ttlDays * 86_400_000) {
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

  /** The context `name`; `fresh` starts it anew (the old one is replaced at the first save). */
  static async open(vltDir: string, name: string, given: ConversationOptions & { fresh?: boolean }): Promise<Conversation> {
    const path = contextFile(vltDir, name)
    // Opening, re-reading and saving each read the file: a damaged one is said once, not three times.
    const said = new Set<string>()
    const options = { ...given, warn: (message: string) => void (said.has(message) || (said.add(message), given.warn(message))) }
    let refused: ConfinementError | undefined
    const stored = options.fresh
      ? undefined
      : await readState(path, options).catch((error: unknown) => {
          // The tools work without a stored context: answer them, keep it in memory, and say why once.
          if (!(error instanceof ConfinementError)) throw error
          refused = error
          return undefined
        })
    const state = stored ?? emptyState(name, options.budget)
    state.budget = options.budget
    const conversation = new Conversation(path, vltDir, state, options)
    conversation.fresh = options.fresh === true
    if (refused) conversation.refuse(refused)
    return conversation
  }

  /** Set by `--new`: the first save replaces what is on disk instead of merging with it. */
  private fresh = false

  get name(): string {
    return this.state.client
  }

  /**
   * Re-reads the context from disk, keeping the exchanges not saved yet: another process (the CLI,
   * another MCP server, the web app) may have added to it since this one opened it.
   */
  async refresh(): Promise<void> {
    if (this.refused || this.fresh) return
    await this.saving
    const disk = await readState(this.path, this.options).catch(() => undefined)
    if (!disk) return
    disk.budget = this.options.budget
    for (const exchange of this.pending) if (!disk.exchanges.some((e) => e.id === exchange.id)) {
      disk.exchanges.push(exchange)
      applyExchange(disk, exchange)
    }
    disk.used = usedTokens(disk)
    this.state = disk
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

  /** Appends an exchange now (later calls see it at once) and saves it in the background. Secrets are redacted before anything is kept. */
  record(entry: NewExchange): Exchange {
    const exchange: Exchange = redactExchange({ id: newExchangeId(), at: new Date().toISOString(), ...entry, input: trimInput(entry.input) })
    this.pending.push(exchange)
    applyExchange(this.state, exchange)
    this.state.used = usedTokens(this.state)
    if (this.refused) return exchange
    // A `.vlt/` that cannot be written is told once by the command (store/fault.ts), not per exchange.
    this.saving = this.saving.then(() => unlessUnwritable(() => this.save())).catch((error: unknown) => {
      if (error instanceof ConfinementError) this.refuse(error)
      else this.options.warn(`warning: could not save the oracle context ${this.path}: ${(error as Error).message}`)
    })
    return exchange
  }

  private refuse(error: ConfinementError): void {
    if (this.refused) return
    this.refused = true
    this.options.warn(`warning: the oracle context is kept in memory only: ${error.message}`)
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
        const stored = this.fresh ? undefined : await readState(this.path, this.options)
        this.fresh = false
        const disk = stored ?? emptyState(this.state.client, this.options.budget)
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
        await writeRecord(this.path, KIND, VERSION, disk, { durable: false })
        this.pending = this.pending.filter((e) => !mine.includes(e))
        // Exchanges recorded while saving are not on disk yet: keep them visible.
        for (const exchange of this.pending) {
          disk.exchanges.push(exchange)
          applyExchange(disk, exchange)
        }
        disk.used = usedTokens(disk)
        this.state = disk
      },
      { name: 'contexts', waitMs: 10_000 },
    )
  }

  private async compressIfNeeded(state: ConversationState): Promise<void> {
    if (usedTokens(state) < COMPRESS_AT * state.budget || state.exchanges.length <= KEEP_RECENT) return
    const older = state.exchanges.slice(0, -KEEP_RECENT)
    state.summary = await this.options.compressor.compress(state.summary, older, Math.floor(state.budget / 4))
    state.exchanges = state.exchanges.slice(-KEEP_RECENT)
    state.compressions++
    state.compressedExchanges += older.length
    state.status = 'compressed'
  }
}

function emptyState(client: string, budget: number): ConversationState {
  const now = new Date().toISOString()
  return {
    version: VERSION,
    client,
    created: now,
    updated: now,
    budget,
    used: 0,
    summary: '',
    compressions: 0,
    compressedExchanges: 0,
    exchanges: [],
    symbols: [],
    files: [],
    insights: [],
    decisions: [],
    status: 'active',
    lastModel: null,
  }
}

/** The stored context; undefined when absent, expired, or damaged (reported in one line, then replaced). */
async function readState(path: string, options: Pick<ConversationOptions, 'ttlDays' | 'warn'>): Promise<ConversationState | undefined> {
  try {
    const state = await readRecord<ConversationState>(path, KIND, VERSION)
    if (state === undefined) return undefined
    if (!Array.isArray(state.exchanges) || !Array.isArray(state.symbols) || !Array.isArray(state.decisions)) throw new Error('unknown format')
    if (Date.now() - Date.parse(state.updated) > options.ttlDays * 86_400_000) return undefined
    return state
  } catch (error) {
    if (error instanceof ConfinementError) throw error
    const reason = (error as Error).message.split('\n')[0]!.replace(`${path}: `, '')
    options.warn(`warning: the oracle context ${path} is damaged (${reason}); starting it afresh`)
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
  for (const text of decisionsIn(exchange)) {
    if (state.decisions.some((d) => d.text === text)) continue
    state.decisions.push({ text, exchange: exchange.id, at: exchange.at })
  }
  if (state.decisions.length > MAX_DECISIONS) state.decisions.splice(0, state.decisions.length - MAX_DECISIONS)
  if (exchange.model !== undefined) state.lastModel = exchange.model
}

/**
 * The decisions an exchange states: sentences of the question (the user speaking) or the answer
 * a model wrote that say something was decided, agreed or chosen ("we decided to keep retries at 3",
 * "Decision: drop the cache").
 */
const DECISION = /^(?:decision|decided|agreed)\s*:|\b(?:we|i|the team)\s+(?:have\s+|had\s+)?(?:decided|agreed|chose|settled on|will go with|are going with)\b|\blet'?s\s+(?:go with|use|keep|drop|switch)\b/i

export function decisionsIn(exchange: Pick<Exchange, 'question' | 'answer' | 'model'>): string[] {
  // An extractive answer is quoted evidence, and a recall repeats stored decisions: neither is said anew.
  const written = exchange.model !== undefined && exchange.model !== 'extractive' ? (exchange.answer ?? '') : ''
  const own = written.split('\n').filter((line) => !/^\s*(?:>|```|\[|[-*] \[)/.test(line) && !line.includes('[context ')).join('\n')
  const sentences = [exchange.question ?? '', own].flatMap((text) => text.split(/(?<=[.!?])\s+|\n+/))
  return [...new Set(sentences.map((s) => s.trim()).filter((s) => s.length > 8 && DECISION.test(s)).map((s) => (s.length > 240 ? `${s.slice(0, 240)}…` : s)))]
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

/** Nothing a secret filter catches is kept: the context is written to disk and read back to models. */
function redactExchange(exchange: Exchange): Exchange {
  const clean = (text: string): string => redactSecrets(text).text
  const input: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(exchange.input)) input[key] = typeof value === 'string' ? clean(value) : value
  const answer = exchange.answer === undefined ? undefined : clean(exchange.answer.length > MAX_ANSWER_CHARS ? `${exchange.answer.slice(0, MAX_ANSWER_CHARS)}…` : exchange.answer)
  return {
    ...exchange,
    input,
    summary: clean(exchange.summary),
    insights: exchange.insights.map(clean),
    ...(exchange.question === undefined ? {} : { question: clean(exchange.question) }),
    ...(answer === undefined ? {} : { answer }),
  }
}

/** The pointer to the context `git vlt oracle` continues: `.vlt/contexts/current`. */
function currentFile(vltDir: string): string {
  return join(contextsDir(vltDir), 'current')
}

/** The name of the current context (`default` when none was picked, or its pointer is damaged). */
export async function currentContextName(vltDir: string): Promise<string> {
  try {
    const pointer = await readRecord<{ name: string }>(currentFile(vltDir), 'oracle-context-current', 1)
    return typeof pointer?.name === 'string' && pointer.name !== '' ? pointer.name : DEFAULT_CONTEXT
  } catch {
    return DEFAULT_CONTEXT
  }
}

export async function setCurrentContext(vltDir: string, name: string): Promise<void> {
  await withLock(vltDir, () => writeRecord(currentFile(vltDir), 'oracle-context-current', 1, { name }, { durable: false }), { name: 'contexts', waitMs: 10_000 })
}

/**
 * Deletes the context `name`; false when there is none. Deleting the current one makes `default`
 * current again. A process that holds the context open (an MCP server, the web app) writes it back
 * with its next exchange: what it already knew is its own.
 */
export async function deleteContext(vltDir: string, name: string): Promise<boolean> {
  return withLock(vltDir, async () => {
    const file = contextFile(vltDir, name)
    if (!(await lstat(file).catch(() => undefined))?.isFile()) return false
    await removeConfined(file)
    if ((await currentContextName(vltDir)) === name) await removeConfined(currentFile(vltDir))
    return true
  }, { name: 'contexts', waitMs: 10_000 })
}

/** One line about a stored context, for `git vlt oracle --list`. */
export interface ContextListing {
  name: string
  current: boolean
  exchanges: number
  compressedExchanges: number
  decisions: number
  status: ConversationState['status']
  lastModel: string | null
  updated: string
}

/** The stored contexts, most recently updated first; a damaged one is reported and left out. */
export async function listContexts(vltDir: string, options: Pick<ConversationOptions, 'ttlDays' | 'warn'>): Promise<ContextListing[]> {
  const dir = contextsDir(vltDir)
  const names = await listDirConfined(dir)
  const current = await currentContextName(vltDir)
  const listed: ContextListing[] = []
  for (const file of names.filter((n) => n.endsWith(CONTEXT_SUFFIX))) {
    const state = await readState(join(dir, file), options)
    if (!state) continue
    listed.push({
      name: state.client,
      current: state.client === current,
      exchanges: state.exchanges.length,
      compressedExchanges: state.compressedExchanges,
      decisions: state.decisions.length,
      status: state.status,
      lastModel: state.lastModel,
      updated: state.updated,
    })
  }
  return listed.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0))
}
