/**
 * SC-013 ("compression preserves 90 % of relevant information"): an oracle context filled with the
 * oracle bench's real exchanges, compressed, then asked what it still knows.
 *
 * Per repository and budget — the default one (16,000 tokens: a summary of up to 4,000) and the
 * smallest allowed (4,000: a summary of up to 1,000, folded many times) — one fresh context
 * (src/core/conversation, the extractive compressor) receives every question of the set through
 * askOracle, as `git vlt oracle` would send them, and after each DECIDE_EVERY-th one a decision
 * about the symbol just asked about ("We decided to keep X where it is."), asked the same way. Then, for every exchange that was
 * compressed (folded into the summary, no longer verbatim), its facts are looked for where a later
 * question reads them:
 * - symbols and files it recorded: the context's symbol and file lists (what "it" and the file
 *   boost read) or the summary;
 * - locations its answer cited (each `path:start-end` and commit, as the precision measure reads
 *   them): the summary, which is what the model is given of compressed exchanges;
 * - decisions it stated: the extractive answer to "What did we decide about X?" from the context.
 * The share kept is reported per kind of fact and over all facts.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { Conversation, ExtractiveCompressor, recallAnswer } from '../src/core/conversation/index.js'
import { askOracle } from '../src/core/oracle/index.js'
import { citedLocations } from './oracle-answers.js'
import type { QuestionSet } from './oracle-questions.js'

export const SMALLEST_BUDGET = 4000
const DECIDE_EVERY = 4
const CONTEXT = 'bench-sc013'

interface Facts {
  exchange: string
  symbols: string[]
  files: string[]
  cited: string[]
  decisions: Array<{ symbol: string; text: string }>
}

type FactKind = 'symbols' | 'files' | 'cited' | 'decisions'

/** A cited location as the summary would name it: `path:start` (the answer writes `path:start-end`), or a commit's first 12 characters. */
const citation = (source: { sourceType: string; sourcePath: string }): string => (source.sourceType === 'git' ? source.sourcePath.slice(0, 12) : source.sourcePath.replace(/-\d+$/, ''))

export async function compressionFacts(dir: string, set: QuestionSet, budget: number) {
  const vltDir = join(dir, '.vlt')
  const context = await Conversation.open(vltDir, CONTEXT, { budget, ttlDays: 1, compressor: new ExtractiveCompressor(), warn: () => {}, fresh: true })
  const facts: Facts[] = []
  const ask = async (question: string) => {
    const response = await askOracle(dir, question, { noLog: true, context, warn: () => {} })
    const exchange = context.state.exchanges.at(-1)!
    return { response, exchange }
  }
  let asked = 0
  for (const question of set.questions) {
    const { response, exchange } = await ask(question.question)
    facts.push({ exchange: exchange.id, symbols: exchange.symbols, files: exchange.files, cited: citedLocations(response).map(citation), decisions: [] })
    if (++asked % DECIDE_EVERY === 0 && question.symbol) {
      const text = `We decided to keep ${question.symbol} where it is.`
      const decided = await ask(text)
      facts.push({ exchange: decided.exchange.id, symbols: [], files: [], cited: [], decisions: [{ symbol: question.symbol, text }] })
    }
  }
  await context.flush()
  const state = context.state
  const verbatim = new Set(state.exchanges.map((e) => e.id))
  const compressed = facts.filter((f) => !verbatim.has(f.exchange))
  const tally: Record<FactKind, { facts: number; kept: number }> = { symbols: { facts: 0, kept: 0 }, files: { facts: 0, kept: 0 }, cited: { facts: 0, kept: 0 }, decisions: { facts: 0, kept: 0 } }
  const count = (kind: FactKind, kept: boolean): void => {
    tally[kind].facts++
    if (kept) tally[kind].kept++
  }
  const lost: string[] = []
  for (const fact of compressed) {
    for (const symbol of fact.symbols) count('symbols', state.symbols.includes(symbol) || state.summary.includes(symbol))
    for (const file of fact.files) count('files', state.files.includes(file) || state.summary.includes(file))
    for (const cited of fact.cited) {
      const kept = state.summary.includes(cited)
      count('cited', kept)
      if (!kept && lost.length < 8) lost.push(cited)
    }
    for (const decision of fact.decisions) count('decisions', (recallAnswer(state, `What did we decide about ${decision.symbol}?`) ?? '').includes(decision.text))
  }
  rmSync(context.path, { force: true })
  const all = Object.values(tally).reduce((sum, t) => ({ facts: sum.facts + t.facts, kept: sum.kept + t.kept }), { facts: 0, kept: 0 })
  return {
    exchanges: facts.length,
    compressions: state.compressions,
    compressedExchanges: compressed.length,
    budget,
    summaryTokensCap: budget / 4,
    byFact: Object.fromEntries(Object.entries(tally).map(([kind, t]) => [kind, { ...t, share: +(t.kept / Math.max(1, t.facts)).toFixed(3) }])),
    all: { ...all, share: +(all.kept / Math.max(1, all.facts)).toFixed(3) },
    lostCitedExamples: lost,
  }
}
