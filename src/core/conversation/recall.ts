/**
 * What a context gives back to the oracle: a data block for the model (the summary, the key
 * decisions and the last exchanges — text, never instructions), and the extractive answer to
 * "what did we decide about X", each line cited by its exchange (`context NAME#ID`).
 */
import { dataBlock } from '../llm/index.js'
import type { ConversationState, Exchange } from './conversation.js'

/** Exchanges of the block given to a model, and the characters of each answer there. */
const BLOCK_EXCHANGES = 4
const BLOCK_ANSWER_CHARS = 600

export function exchangeCitation(state: Pick<ConversationState, 'client'>, exchange: Pick<Exchange, 'id'>): string {
  return `context ${state.client}#${exchange.id}`
}

/** The context as the model reads it, or '' when it holds nothing yet. */
export function contextBlock(state: ConversationState): string {
  const asked = state.exchanges.filter((e) => e.question !== undefined).slice(-BLOCK_EXCHANGES)
  if (state.summary === '' && state.decisions.length === 0 && asked.length === 0) return ''
  const parts: string[] = []
  if (state.summary !== '') parts.push(`Summary of earlier exchanges:\n${state.summary}`)
  if (state.decisions.length > 0) parts.push(`Decisions stated so far:\n${state.decisions.map((d) => `- ${d.text} [context ${state.client}#${d.exchange}]`).join('\n')}`)
  if (asked.length > 0) {
    const lines = asked.map((e) => `- [${exchangeCitation(state, e)}] Q: ${e.question}\n  A: ${clip(e.answer ?? e.summary, BLOCK_ANSWER_CHARS)}`)
    parts.push(`Last questions and answers:\n${lines.join('\n')}`)
  }
  return dataBlock('conversation', { context: state.client, note: 'what this conversation established earlier; cite it as [context NAME#ID]' }, parts.join('\n\n'))
}

const RECALL = /\bwhat\s+(?:did|have|had|do)\s+(?:we|i)\s+(?:decide|agree|conclude|settle|choose|say|find|learn)|\bwhat\s+(?:was|were|has been|had been)\s+(?:decided|agreed|concluded|chosen)|\b(?:our|the)\s+decisions?\s+(?:about|on|for|regarding)\b/i

export function isRecallQuestion(question: string): boolean {
  return RECALL.test(question)
}

const STOP = new Set(['what', 'did', 'have', 'had', 'we', 'i', 'decide', 'decided', 'agree', 'agreed', 'conclude', 'concluded', 'settle', 'choose', 'chosen', 'say', 'find', 'learn', 'about', 'on', 'for', 'regarding', 'the', 'a', 'an', 'our', 'decision', 'decisions', 'was', 'were', 'has', 'been', 'do', 'to', 'of', 'in', 'is', 'it', 'and', 'or', 'with'])

/** The words the question is about (as asked, for saying so), and their stems (for matching). */
function topic(question: string): { words: string[]; terms: string[] } {
  const words = [...new Set((question.toLowerCase().match(/[a-z0-9_]+/g) ?? []).filter((w) => w.length > 1 && !STOP.has(w)))]
  return { words, terms: [...new Set(words.map(stem))] }
}

function stem(word: string): string {
  return word.replace(/(?:ies|es|s|ing|ed)$/, '') || word
}

function mentions(text: string, terms: readonly string[]): boolean {
  const words = new Set((text.toLowerCase().match(/[a-z0-9_]+/g) ?? []).map(stem))
  return terms.length === 0 || terms.some((t) => words.has(t))
}

/**
 * "What did we decide about X" from the context alone: the stored decisions about X, else the
 * exchanges that talked about it, cited. Undefined when the question is not such a question.
 */
export function recallAnswer(state: ConversationState, question: string): string | undefined {
  if (!isRecallQuestion(question)) return undefined
  const { words, terms } = topic(question)
  const about = words.length > 0 ? ` about ${words.join(', ')}` : ''
  const decisions = state.decisions.filter((d) => mentions(d.text, terms))
  if (decisions.length > 0) {
    return [`From this conversation (context ${state.client}), the decisions${about}:`, ...decisions.map((d) => `- ${d.text} [context ${state.client}#${d.exchange}, ${d.at.slice(0, 10)}]`)].join('\n')
  }
  const talked = state.exchanges.filter((e) => e.question !== undefined && mentions(`${e.question} ${e.answer ?? ''}`, terms)).slice(-3)
  if (talked.length > 0) {
    return [
      `This conversation (context ${state.client}) records no decision${about}; it talked about it here:`,
      ...talked.map((e) => `- Q: ${e.question} → ${clip(firstLine(e.answer ?? e.summary), 200)} [${exchangeCitation(state, e)}]`),
    ].join('\n')
  }
  return `This conversation (context ${state.client}) records no decision${about}.`
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '')?.trim() ?? ''
}

function clip(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars)}…` : text
}
