/**
 * Every question and answer goes to the day's thread, `oracle-session-YYYY-MM-DD`, as a research
 * entry: what was asked, by whom, and what was answered with which evidence. Citations are code
 * spans (src/core/display): a file name cannot end one and write into the log.
 */
import { codeSpan } from '../display/index.js'
import { UsageError } from '../errors.js'
import { appendEntry, createThread, threadNames } from '../threads/index.js'
import { citation } from './extractive.js'
import type { OracleResponse } from './types.js'

export function sessionThreadName(now: Date): string {
  return `oracle-session-${now.toISOString().slice(0, 10)}`
}

export async function logSession(vltDir: string, question: string, response: OracleResponse, author: string, now = new Date()): Promise<string> {
  const name = sessionThreadName(now)
  if (!(await threadNames(vltDir)).includes(name)) {
    try {
      await createThread(vltDir, { name, title: `Oracle session ${name.slice('oracle-session-'.length)}`, description: 'Questions asked with `git vlt oracle` and their answers.', now })
    } catch (error) {
      // Another oracle run created it first.
      if (!(error instanceof UsageError)) throw error
    }
  }
  const cited = response.sources.map((s) => codeSpan(citation(s))).join(', ')
  const text = `**Q:** ${question}\n\n${response.answer}\n\n_${response.queryType} question · ${response.model}${cited ? ` · cited: ${cited}` : ''}_`
  await appendEntry(vltDir, name, { text, type: 'research', author, now })
  return name
}
