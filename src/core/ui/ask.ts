/**
 * A question asked in the browser, answered as server-sent events while the oracle works: its
 * index progress and warnings, each tool the agent loop calls, each token of the model's answer as
 * it arrives, then the whole response (sources, blame, traces). The question continues the oracle
 * context the CLI continues, and joins it. A browser that goes away (closed tab, Stop, Esc) aborts
 * the run: the model request is cancelled and nothing is logged or kept for it.
 */
import type { ServerResponse } from 'node:http'
import type { Conversation } from '../conversation/index.js'
import { VltError } from '../errors.js'
import type { LspServers } from '../lsp/index.js'
import { askOracle, ORACLE_SOURCES, type OracleSourceName } from '../oracle/index.js'
import { UiRefusal } from './errors.js'

export const MAX_QUESTION_CHARS = 4000

export interface AskRequest {
  question: string
  sources: OracleSourceName[]
  explain: boolean
}

/** The JSON body of POST /api/ask, checked: it comes from a browser. */
export function parseAskRequest(body: unknown): AskRequest {
  const { question, sources, explain } = (body ?? {}) as Record<string, unknown>
  if (typeof question !== 'string' || question.trim() === '') throw new UiRefusal(400, 'the question is empty')
  if (question.length > MAX_QUESTION_CHARS) throw new UiRefusal(413, `the question is longer than ${MAX_QUESTION_CHARS} characters`)
  const names = sources === undefined ? [...ORACLE_SOURCES] : sources
  if (!Array.isArray(names) || names.length === 0 || !names.every((name) => (ORACLE_SOURCES as readonly unknown[]).includes(name))) {
    throw new UiRefusal(400, `sources must be some of ${ORACLE_SOURCES.join(', ')}`)
  }
  return { question, sources: names as OracleSourceName[], explain: explain === true }
}

export interface AskOptions {
  /** The conversation the question continues: it resolves "it" and remembers the answer. */
  conversation?: Conversation
  /** Where the LLM's API key is looked up (default process.env). */
  env?: NodeJS.ProcessEnv
  /** Told when a run ends: answered, failed, or stopped because its browser went away. */
  onEnd?: (outcome: 'answered' | 'failed' | 'stopped') => void
  /** The language servers the server keeps for the repository (the oracle's diagnostics). */
  lsp?: LspServers
}

export async function streamAnswer(root: string, ask: AskRequest, res: ServerResponse, options: AskOptions = {}): Promise<void> {
  const controller = new AbortController()
  res.on('close', () => {
    if (!res.writableEnded) controller.abort(new Error('the browser went away'))
  })
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' })
  const send = (event: string, data: unknown): void => {
    if (!res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  }
  const { conversation } = options
  await conversation?.refresh()
  // As the oracle will expand it, said first so the page can show what is asked.
  const expanded = conversation?.expandQuery(ask.question) ?? { query: ask.question }
  send('start', { sources: ask.sources, question: expanded.query, ...(expanded.resolved ? { resolved: expanded.resolved } : {}) })
  let outcome: 'answered' | 'failed' | 'stopped' = 'answered'
  try {
    const response = await askOracle(root, ask.question, {
      context: conversation,
      via: 'ui',
      onProgress: (line) => send('tool', { line }),
      sources: ask.sources,
      explain: ask.explain,
      signal: controller.signal,
      env: options.env,
      lsp: options.lsp,
      warn: (message) => send('warning', { message }),
      stage: (stage) => send('stage', { stage }),
      progress: {
        start: (total, label, unit = 'files') => send('progress', { label, unit, total, done: 0 }),
        tick: (done = 1) => send('tick', { done }),
        stop: () => send('progress-end', {}),
      },
      onText: (text) => send('token', { text }),
    })
    send('answer', response)
  } catch (error) {
    if (controller.signal.aborted) outcome = 'stopped'
    else {
      outcome = 'failed'
      // A fault the user can act on is its own line; anything else is a bug, said as one line too.
      const message = error instanceof VltError ? error.message : `internal error: ${(error as Error).message}`
      send('error', { message: message.split('\n')[0] })
    }
  } finally {
    res.end()
    options.onEnd?.(outcome)
  }
}
