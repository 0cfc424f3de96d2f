/**
 * The oracle's `history` source: exchanges as seed 000's RetrievalResult. A question's words find
 * exchanges through BM25; the files the oracle already linked to the question through the code
 * graph (a symbol's defining file, say) find the sessions that edited or read them.
 */
import { estimateTokens, type RetrievalResult } from '../sources/retrieval.js'
import { readTranscriptExchanges, type ExchangeEntry, type HistoryIndex } from './store.js'
import { openHistory, round, searchIndex, sessionsInvolving, type HistoryFilters, type ReadOptions } from './search.js'
import type { Exchange } from './types.js'

/** What the oracle learns about an exchange besides its text; sourcePath is the exchange id `<sessionId>:<agentId or main>:<line>`. */
export type HistoryMetadata = {
  sessionId: string
  exchangeId: string
  agentId: string | null
  isSidechain: boolean
  title: string
  timestamp: string
  branch: string
  files: string[]
}

export interface HistoryRetrievalOptions extends HistoryFilters, ReadOptions {
  limit?: number
  /** Repo-relative files linked to the question (e.g. by the code graph). */
  files?: string[]
}

/** Characters of an exchange given to the oracle; the rest of a long reply is rarely the answer. */
const CONTENT_CHARS = 4000
const TOUCHED_SCORE = 0.6
const DISCUSSED_SCORE = 0.3

/**
 * Exchanges for `query`, best first: `bm25` when the words matched (score: BM25 divided by the best
 * one), `graph` when reached through a linked file (score by how directly the exchange involved it).
 */
export async function searchHistory(repoCwd: string, query: string, options: HistoryRetrievalOptions = {}): Promise<Array<RetrievalResult<HistoryMetadata>>> {
  const { repo, index } = await openHistory(repoCwd, options)
  const limit = options.limit ?? 10
  const scored = new Map<string, { entry: ExchangeEntry; score: number; method: 'bm25' | 'graph' }>()
  const byId = new Map(index.exchanges.map((entry) => [entry.id, entry]))
  const hits = searchIndex(index, query, { ...options, limit })
  const best = hits[0]?.score ?? 1
  for (const hit of hits) scored.set(hit.exchangeId, { entry: byId.get(hit.exchangeId)!, score: hit.score / best, method: 'bm25' })
  for (const [id, score] of fileLinked(index, options)) {
    if ((scored.get(id)?.score ?? 0) < score) scored.set(id, { entry: byId.get(id)!, score, method: 'graph' })
  }
  const ranked = [...scored.values()].sort((a, b) => b.score - a.score || b.entry.time - a.entry.time).slice(0, limit)
  const records = new Map<string, Promise<Exchange[] | undefined>>()
  return Promise.all(ranked.map(async ({ entry, score, method }): Promise<RetrievalResult<HistoryMetadata>> => {
    let record = records.get(entry.transcript)
    if (!record) records.set(entry.transcript, (record = readTranscriptExchanges(repo.vltDir, entry.transcript)))
    const exchange = (await record)?.find((candidate) => candidate.id === entry.id)
    const content = exchangeText(entry, exchange)
    return {
      content,
      sourceType: 'history',
      sourcePath: entry.id,
      retrievalMethod: method,
      score: round(score),
      tokenCount: estimateTokens(content),
      metadata: {
        sessionId: entry.sessionId,
        exchangeId: entry.id,
        agentId: entry.agentId,
        isSidechain: entry.isSidechain,
        title: entry.title,
        timestamp: entry.timestamp,
        branch: entry.branch,
        files: [...entry.touched, ...entry.discussed],
      },
    }
  }))
}

/** Exchanges involving the linked files, with a score by how they involved them. */
function fileLinked(index: HistoryIndex, options: HistoryRetrievalOptions): Map<string, number> {
  const found = new Map<string, number>()
  for (const file of options.files ?? []) {
    const sessions = sessionsInvolving(index, file, { ...options, includeSidechains: options.includeSidechains ?? false, limit: Infinity })
    for (const session of sessions) {
      for (const exchange of session.exchanges) {
        const score = exchange.relation === 'touched' ? TOUCHED_SCORE : DISCUSSED_SCORE
        if ((found.get(exchange.exchangeId) ?? 0) < score) found.set(exchange.exchangeId, score)
      }
    }
  }
  return found
}

/** The exchange as the oracle reads it: where it happened, what was asked, what was answered and done. */
function exchangeText(entry: ExchangeEntry, exchange: Exchange | undefined): string {
  const header = `Session "${entry.title}"${entry.branch ? ` on ${entry.branch}` : ''}, ${entry.timestamp}${entry.isSidechain ? ` (subagent ${entry.agentId})` : ''}`
  const prompt = exchange?.prompt ?? entry.prompt
  const reply = exchange?.reply ?? entry.reply
  const tools = exchange
    ? exchange.toolCalls.map((call) => `${call.name}${toolTarget(call.input)}${call.isError ? ' (error)' : ''}`).join(', ')
    : entry.tools.join(', ')
  const parts = [header, `${entry.kind === 'compaction' ? 'Summary of earlier work' : 'User'}: ${prompt}`, `Assistant: ${reply}`]
  if (tools) parts.push(`Tools: ${tools}`)
  const text = parts.join('\n')
  return text.length > CONTENT_CHARS ? `${text.slice(0, CONTENT_CHARS - 1)}…` : text
}

function toolTarget(input: unknown): string {
  if (typeof input !== 'object' || input === null) return ''
  const fields = input as Record<string, unknown>
  const target = fields.file_path ?? fields.path ?? fields.notebook_path ?? fields.command ?? fields.pattern
  return typeof target === 'string' ? ` ${target.length > 80 ? `${target.slice(0, 79)}…` : target}` : ''
}
