/**
 * The optional second rerank: a language model reads the offline top candidates (location, name
 * and a short snippet of each indexed chunk, as data blocks) and orders them by relevance. Whatever
 * goes wrong — no answer, a timeout, a reply without a usable order — the offline order stays and
 * the caller gets one warning: a search never fails because of it.
 */
import { displayPath, userConfigPath } from '../../config/user.js'
import type { VltConfig } from '../../config/types.js'
import { UsageError, VltError } from '../../errors.js'
import { createLlmClient, DATA_BLOCK_RULE, dataBlock, LlmUnavailableError, type LlmClient } from '../../llm/index.js'
import type { SearchOptions, SearchResponse, SearchResult } from './types.js'

/** Per candidate: enough to judge relevance, little enough that 20 of them stay a small prompt. */
const SNIPPET_CHARS = 400
/** A JSON list of ids; room for a model that adds a sentence despite being told not to. */
const ANSWER_TOKENS = 400

const SYSTEM_PROMPT = `You rank code search results for a developer. Given a search query and candidate code chunks, order the candidates from most to least relevant to the query.
${DATA_BLOCK_RULE}
Reply with JSON only, no prose: {"order": ["c3", "c1", ...]} listing every candidate id exactly once, most relevant first.`

/** An LLM rerank to run: the model (null when it could not be set up, see `warning`) and how many results it reorders. */
export interface LlmRerankPlan {
  client: LlmClient | null
  candidates: number
  warning?: string
}

/**
 * What `options.rerank` (else `[search] rerank`) asks for: null for the offline order. Asking for
 * 'llm' without [llm] is a usage error; a model that cannot be set up (no API key) only a warning.
 */
export function planLlmRerank(config: VltConfig, options: Pick<SearchOptions, 'rerank' | 'llm'>): LlmRerankPlan | null {
  if ((options.rerank ?? config.search.rerank) !== 'llm') return null
  const candidates = config.search.llmCandidates
  if (options.llm !== undefined) {
    if (options.llm === null) throw needsLlm()
    return { client: options.llm, candidates }
  }
  if (config.llm.provider === 'none') throw needsLlm()
  try {
    return { client: createLlmClient(config.llm, { role: 'rerank' }), candidates }
  } catch (error) {
    if (!(error instanceof VltError)) throw error
    return { client: null, candidates, warning: fallback(error.message) }
  }
}

/**
 * Reorders `response.results` (the offline top `plan.candidates` or more) with the model, cuts them
 * to `limit`, and records what ordered them in `response.rerank` and any fallback in `warnings`.
 */
export async function applyLlmRerank(plan: LlmRerankPlan, response: SearchResponse, limit: number): Promise<void> {
  const outcome = plan.client
    ? await llmRerank(plan.client, response.query, response.results, plan.candidates)
    : { results: response.results, warning: plan.warning }
  response.results = outcome.results.slice(0, limit)
  response.rerank = outcome.warning === undefined ? 'llm' : 'offline'
  if (outcome.warning !== undefined) response.warnings.push(outcome.warning)
}

function needsLlm(): UsageError {
  return new UsageError(`rerank "llm" needs a language model: configure [llm] in your own config, ${displayPath(userConfigPath())} (llm.provider, llm.base_url, llm.model)`)
}

export interface LlmRerankOutcome {
  results: SearchResult[]
  /** Set when the offline order was kept because the model gave no usable order. */
  warning?: string
}

/**
 * `results` with its first `candidates` entries in the model's order; entries the model left out
 * follow in their offline order, and the rest of the list is untouched.
 */
export async function llmRerank(client: LlmClient, query: string, results: readonly SearchResult[], candidates: number): Promise<LlmRerankOutcome> {
  const head = results.slice(0, candidates)
  const tail = results.slice(candidates)
  if (head.length < 2) return { results: [...results] }
  let text: string
  try {
    const answer = await client.complete({ messages: buildMessages(query, head), maxTokens: ANSWER_TOKENS, temperature: 0 })
    text = answer.text
  } catch (error) {
    if (!(error instanceof LlmUnavailableError)) throw error
    return { results: [...results], warning: fallback(error.message) }
  }
  const order = parseOrder(text, head.length)
  if (order.length === 0) return { results: [...results], warning: fallback(`the reply had no usable order (${describeReply(text)})`) }
  const chosen = new Set(order)
  const reordered = [...order.map((i) => head[i]!), ...head.filter((_, i) => !chosen.has(i)), ...tail]
  return { results: reordered }
}

export function buildMessages(query: string, head: readonly SearchResult[]): Array<{ role: 'system' | 'user'; content: string }> {
  const blocks = head.map((result, i) =>
    dataBlock('candidate', { id: candidateId(i), cite: `${result.path}:${result.startLine}-${result.endLine}`, name: result.qualifiedName || result.kind }, truncate(result.snippet)),
  )
  const user = `Query: ${query}\n\nCandidates:\n\n${blocks.join('\n\n')}\n\nOrder the ${head.length} candidate ids by relevance to the query, as JSON.`
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: user },
  ]
}

/**
 * Candidate indexes in the reply's order. Accepts `{"order": [...]}` or a bare array, inside code
 * fences or surrounded by prose; ids as "c3", "3" or 3. Unknown and repeated ids are dropped.
 */
export function parseOrder(reply: string, count: number): number[] {
  const list = findIdList(reply)
  if (!list) return []
  const order: number[] = []
  for (const id of list) {
    const index = indexOfId(id)
    if (index !== undefined && index < count && !order.includes(index)) order.push(index)
  }
  return order
}

function candidateId(index: number): string {
  return `c${index + 1}`
}

function indexOfId(id: unknown): number | undefined {
  const match = typeof id === 'number' ? String(id) : typeof id === 'string' ? /^\s*c?(\d+)\s*$/i.exec(id)?.[1] : undefined
  if (match === undefined) return undefined
  const n = Number(match)
  return Number.isSafeInteger(n) && n >= 1 ? n - 1 : undefined
}

/** The first JSON value in the reply that is, or holds under `order`, a list. */
function findIdList(reply: string): unknown[] | undefined {
  const text = reply.replace(/```[a-z]*\n?/gi, '')
  for (let start = 0; start < text.length; start++) {
    const open = text[start]
    if (open !== '{' && open !== '[') continue
    const close = open === '{' ? '}' : ']'
    // Longest first: the whole object rather than an inner list of it.
    for (let end = text.lastIndexOf(close); end > start; end = text.lastIndexOf(close, end - 1)) {
      const value = tryParse(text.slice(start, end + 1))
      if (Array.isArray(value)) return value
      if (value && typeof value === 'object') {
        const fields = value as Record<string, unknown>
        const list = Array.isArray(fields.order) ? fields.order : Object.values(fields).find(Array.isArray)
        if (list) return list
      }
    }
  }
  return undefined
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function truncate(snippet: string): string {
  return snippet.length <= SNIPPET_CHARS ? snippet : `${snippet.slice(0, SNIPPET_CHARS)}…`
}

function describeReply(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  if (flat === '') return 'empty'
  return JSON.stringify(flat.length > 60 ? `${flat.slice(0, 57)}...` : flat)
}

function fallback(reason: string): string {
  return `LLM rerank unavailable: ${reason}; results keep the offline order`
}
