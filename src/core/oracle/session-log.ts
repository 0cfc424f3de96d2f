/**
 * Every question and answer goes to the day's thread, `oracle-session-YYYY-MM-DD`, as a research
 * entry: what was asked, by whom, and what was answered with which evidence. Citations are code
 * spans (src/core/display): a file name cannot end one and write into the log. The thread is a
 * committed file: the thread store redacts secrets from it, and excerpts of agent conversations
 * (private transcripts) stay out of it unless the user asks for them (`--log-history`).
 */
import { codeSpan } from '../display/index.js'
import { UsageError } from '../errors.js'
import { appendEntry, createThread, ORACLE_SESSION_PREFIX, threadNames } from '../threads/index.js'
import { citation, extractiveAnswer } from './extractive.js'
import type { OracleResponse } from './types.js'

export function sessionThreadName(now: Date): string {
  return `${ORACLE_SESSION_PREFIX}${now.toISOString().slice(0, 10)}`
}

export interface SessionLogOptions {
  author: string
  /** The symbol the question named, to render an extractive answer again without history. */
  symbol: string | null
  /** Log agent-conversation excerpts too. */
  logHistory?: boolean
  now?: Date
}

export async function logSession(vltDir: string, question: string, response: OracleResponse, options: SessionLogOptions): Promise<string> {
  const now = options.now ?? new Date()
  const name = sessionThreadName(now)
  if (!(await threadNames(vltDir)).includes(name)) {
    try {
      await createThread(vltDir, { name, title: `Oracle session ${name.slice(ORACLE_SESSION_PREFIX.length)}`, description: 'Questions asked with `git vlt oracle` and their answers.', now })
    } catch (error) {
      // Another oracle run created it first.
      if (!(error instanceof UsageError)) throw error
    }
  }
  const { answer, sources } = loggedAnswer(response, options)
  const cited = sources.map((s) => codeSpan(citation(s))).join(', ')
  const text = `**Q:** ${question}\n\n${answer}\n\n_${response.queryType} question · ${response.model}${cited ? ` · cited: ${cited}` : ''}_`
  await appendEntry(vltDir, name, { text, type: 'research', author: options.author, now })
  return name
}

/** The answer as logged: without agent-conversation evidence unless asked, saying what was left out. */
function loggedAnswer(response: OracleResponse, options: SessionLogOptions): { answer: string; sources: OracleResponse['sources'] } {
  const history = response.sources.filter((s) => s.sourceType === 'history').length
  if (history === 0 || options.logHistory) return { answer: response.answer, sources: response.sources }
  const sources = response.sources.filter((s) => s.sourceType !== 'history')
  const omitted = `_${history} agent conversation excerpt(s) not logged: transcripts are private (\`git vlt oracle --log-history\` logs them)._`
  // A model's answer may quote the conversations anywhere in it: only the extractive one can be cut.
  if (response.model !== 'extractive') return { answer: `_The answer drew on agent conversations and is not logged; \`git vlt oracle --log-history\` logs it._`, sources }
  if (sources.length === 0) return { answer: omitted, sources }
  return { answer: `${extractiveAnswer(response.queryType, options.symbol, sources)}\n\n${omitted}`, sources }
}
