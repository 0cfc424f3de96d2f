/**
 * Folding older exchanges of a conversation context into its summary. The symbols, files and key
 * insights of folded exchanges are kept apart in the context (see conversation.ts), so neither
 * compressor can lose the facts later calls rely on; the summary is for reading.
 */
import { DATA_BLOCK_RULE, dataBlock, LlmUnavailableError, type LlmClient } from '../llm/index.js'
import { countTokens } from '../repomap/index.js'
import type { Exchange } from './conversation.js'

export interface Compressor {
  readonly kind: 'extractive' | 'llm'
  /** The new summary: `previous` (may be '') extended with `older`, within `maxTokens`. */
  compress(previous: string, older: readonly Exchange[], maxTokens: number): Promise<string>
}

/** One line per exchange — what was asked, what was learnt and where the answer pointed — oldest lines dropped beyond the cap. */
export class ExtractiveCompressor implements Compressor {
  readonly kind = 'extractive' as const

  async compress(previous: string, older: readonly Exchange[], maxTokens: number): Promise<string> {
    const lines = previous === '' ? [] : previous.split('\n')
    for (const exchange of older) lines.push(exchangeLine(exchange))
    while (lines.length > 1 && countTokens(lines.join('\n')) > maxTokens) lines.shift()
    const text = lines.join('\n')
    return countTokens(text) > maxTokens ? text.slice(0, maxTokens * 4) : text
  }
}

export function exchangeLine(exchange: Exchange): string {
  if (exchange.question !== undefined) {
    const lead = firstSentence(firstLine(exchange.answer ?? exchange.summary))
    const cited = citationsIn(exchange.answer ?? '').filter((c) => !lead.includes(c))
    const more = cited.length > MAX_CITED ? `, … ${cited.length - MAX_CITED} more` : ''
    return `- [${exchange.id}] Q: ${exchange.question} → ${lead}${cited.length > 0 ? ` (cites ${cited.slice(0, MAX_CITED).join(', ')}${more})` : ''}`
  }
  const input = Object.entries(exchange.input).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(', ')
  const learnt = exchange.insights.length > 0 ? exchange.insights.join('; ') : exchange.summary
  return `- ${exchange.tool}(${input}) → ${learnt}`
}

/** Cited locations a folded answer's line keeps beyond its first line. */
const MAX_CITED = 16

/**
 * The locations an answer cites — `path:start-end` and commit hashes — outside the evidence it
 * quotes (fenced code, quoted messages): what a later question asks again ("where was that
 * defined?"), which its first line alone does not hold.
 */
function citationsIn(answer: string): string[] {
  const own = answer.replace(/^( *)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2 *$/gm, '').replace(/^ *>.*$/gm, '')
  return [...new Set([...own.matchAll(/[\w./-]+\.\w+:\d+(?:-\d+)?|\b[0-9a-f]{12,40}\b/g)].map((match) => match[0]))]
}

/** What the answer found, without what follows it on its first line (an extractive answer's note on how to read the evidence). */
function firstSentence(line: string): string {
  return line.split(/(?<=[.!?])\s+(?=[A-Z`])/)[0]!
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '')?.trim() ?? ''
  return line.length > 200 ? `${line.slice(0, 200)}…` : line
}

const SYSTEM = `You compress the log of an AI coding agent's tool calls on one repository into a short running summary it will read later.
Keep every symbol name, file path, decision and finding; drop repetition and raw listings. Plain text lines, no preamble. ${DATA_BLOCK_RULE}`

/** The configured LLM writes the summary; when it cannot be reached, the extractive one does. */
export class LlmCompressor implements Compressor {
  readonly kind = 'llm' as const
  private readonly fallback = new ExtractiveCompressor()

  constructor(
    private readonly client: LlmClient,
    private readonly warn: (message: string) => void,
  ) {}

  async compress(previous: string, older: readonly Exchange[], maxTokens: number): Promise<string> {
    const log = older.map(exchangeLine).join('\n')
    const request = `${previous === '' ? '' : `Current summary:\n${dataBlock('summary', {}, previous)}\n`}Fold these exchanges into it, in at most ${maxTokens * 3} words:\n${dataBlock('exchanges', {}, log)}`
    try {
      const result = await this.client.complete({ messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: request }], maxTokens, temperature: 0.2 })
      const text = result.text.trim()
      if (text !== '' && countTokens(text) <= maxTokens) return text
      this.warn('warning: the LLM summary of the oracle context was empty or over budget; using the extractive one')
    } catch (error) {
      if (!(error instanceof LlmUnavailableError)) throw error
      this.warn(`warning: ${error.message}; compressing the oracle context extractively`)
    }
    return this.fallback.compress(previous, older, maxTokens)
  }
}
