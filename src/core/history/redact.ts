/**
 * Agent transcripts are private text that the assistant saw: pasted keys, `.env` files it read,
 * tokens in commands. Everything ingest keeps of them (prompts, replies, tool inputs and results,
 * session titles) is redacted before it is stored, so neither the history index nor what search,
 * the oracle or MCP return from it can hold a secret.
 */
import { redactSecrets } from '../files/index.js'
import type { Exchange, SessionMeta } from './types.js'

export function redactExchange(exchange: Exchange): void {
  exchange.prompt = redact(exchange.prompt)
  exchange.reply = redact(exchange.reply)
  for (const call of exchange.toolCalls) {
    call.input = redactValue(call.input)
    call.result = redact(call.result)
  }
}

export function redactMeta(meta: SessionMeta): void {
  meta.title = redact(meta.title)
  meta.customTitle = redact(meta.customTitle)
  meta.aiTitle = redact(meta.aiTitle)
  meta.summary = redact(meta.summary)
}

function redact(text: string): string {
  return text === '' ? text : redactSecrets(text).text
}

/** A tool's JSON input with every string in it redacted. */
function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redact(value)
  if (Array.isArray(value)) return value.map(redactValue)
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, redactValue(inner)]))
  return value
}
