import type { Entry, EntryType } from './format.js'
import { dataBlock, DATA_BLOCK_RULE, type LlmClient } from '../llm/index.js'

/**
 * Writes a thread's summary incrementally: `previous` is the summary of the entries before
 * `newEntries` (null the first time), so a read after a few pushes costs only those pushes.
 */
export interface Summarizer {
  /** Recorded in the cache; a summary is only ever extended by the kind that wrote it. */
  readonly kind: 'llm' | 'extractive'
  summarize(previous: string | null, newEntries: Entry[]): Promise<string>
}

/** Section order of extractive summaries: what was decided matters most to a reader catching up. */
const SECTIONS: ReadonlyArray<{ type: EntryType; title: string; maxItems: number }> = [
  { type: 'decision', title: 'Decisions', maxItems: 12 },
  { type: 'insight', title: 'Insights', maxItems: 8 },
  { type: 'research', title: 'Research', maxItems: 6 },
  { type: 'thought', title: 'Thoughts', maxItems: 6 },
]

const MAX_ITEM_CHARS = 160
export const MAX_SUMMARY_CHARS = 2400

/**
 * Offline summary: one line per entry (its first line of prose), grouped by type in SECTIONS
 * order, newest first, capped per section and in total. The previous summary is parsed back
 * (it is this class's own format) and the new entries' lines are added on top of it.
 */
export class ExtractiveSummarizer implements Summarizer {
  readonly kind = 'extractive' as const

  async summarize(previous: string | null, newEntries: Entry[]): Promise<string> {
    const items = previous === null ? new Map<EntryType, string[]>() : parseSections(previous)
    for (const entry of newEntries) {
      const list = items.get(entry.type) ?? []
      list.unshift(`${entry.timestamp.slice(0, 10)} ${entry.author}: ${headline(entry.text)}`)
      items.set(entry.type, list)
    }
    return render(items)
  }
}

function parseSections(summary: string): Map<EntryType, string[]> {
  const items = new Map<EntryType, string[]>()
  let current: EntryType | undefined
  for (const line of summary.split('\n')) {
    const section = SECTIONS.find(({ title }) => line === `${title}:`)
    if (section) current = section.type
    else if (current && line.startsWith('- ')) items.set(current, [...(items.get(current) ?? []), line.slice(2)])
  }
  return items
}

function render(items: Map<EntryType, string[]>): string {
  const kept = SECTIONS.map((section) => ({ ...section, lines: (items.get(section.type) ?? []).slice(0, section.maxItems) }))
  const text = () =>
    kept
      .filter(({ lines }) => lines.length > 0)
      .map(({ title, lines }) => `${title}:\n${lines.map((line) => `- ${line}`).join('\n')}`)
      .join('\n\n')
  // Over budget: drop the oldest line of the least important non-empty section until it fits.
  let result = text()
  while (result.length > MAX_SUMMARY_CHARS) {
    const section = [...kept].reverse().find(({ lines }) => lines.length > 0)!
    section.lines.pop()
    result = text()
  }
  return result
}

/** The entry's first line of prose, without markdown decoration, cut at a word boundary. */
function headline(text: string): string {
  const line =
    text
      .split('\n')
      .map((l) => l.replace(/^\s*(?:#+\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/, '').trim())
      .find((l) => l !== '' && !l.startsWith('```')) ?? text.trim()
  if (line.length <= MAX_ITEM_CHARS) return line
  const cut = line.slice(0, MAX_ITEM_CHARS - 1)
  const space = cut.lastIndexOf(' ')
  return `${space > MAX_ITEM_CHARS / 2 ? cut.slice(0, space) : cut}…`
}

const LLM_SYSTEM = [
  'You maintain the running summary of a development thread: decisions, insights, research and thoughts recorded by people and agents working on a code repository.',
  'Write concise markdown: decisions first (what was decided and why), then open questions and insights. Keep names of files, symbols and people exact. At most 300 words.',
  DATA_BLOCK_RULE,
].join(' ')

/**
 * Summary written by the configured LLM, extended incrementally: the model sees the previous
 * summary and only the entries added since, as delimited data (entries may quote anything).
 */
export class LlmSummarizer implements Summarizer {
  readonly kind = 'llm' as const

  constructor(private readonly client: LlmClient) {}

  async summarize(previous: string | null, newEntries: Entry[]): Promise<string> {
    const entries = newEntries
      .map((entry) => dataBlock('entry', { id: entry.id, type: entry.type, author: entry.author, time: entry.timestamp }, entry.text))
      .join('\n')
    const request = previous === null
      ? `Summarise this thread from its entries:\n${entries}`
      : `Here is the current summary:\n${dataBlock('summary', {}, previous)}\nUpdate it with these new entries, keeping what still holds:\n${entries}`
    const result = await this.client.complete({ messages: [{ role: 'system', content: LLM_SYSTEM }, { role: 'user', content: request }], maxTokens: 700, temperature: 0.2 })
    return result.text.trim()
  }
}

/** The LLM summariser when the user's config has an LLM, else the offline one. */
export function chooseSummarizer(llm: LlmClient | null): Summarizer {
  return llm ? new LlmSummarizer(llm) : new ExtractiveSummarizer()
}
