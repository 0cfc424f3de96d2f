/**
 * The answer written by a language model from the assembled context. Everything retrieved goes in
 * as data blocks (never instructions); the client redacts secrets before the request leaves.
 */
import { DATA_BLOCK_RULE, dataBlock, type LlmClient, type LlmResult } from '../llm/index.js'
import { citation } from './extractive.js'
import type { BlameLine } from './git-context.js'
import type { OracleSource, QueryType } from './types.js'

const SYSTEM_PROMPT = `You answer questions about a software repository for a developer, using only the evidence provided.
${DATA_BLOCK_RULE}
Rules:
- Answer in concise markdown. Cite every claim with the evidence's citation exactly as given in its cite attribute (e.g. \`src/app.ts:10-42\`, a note path, a thread id, a commit hash).
- If the evidence does not answer the question, say so plainly; never invent files, symbols, lines or commits.
- Prefer the definition and code over notes when they disagree, and say that they disagree.`

const ANSWER_TOKENS = 1500

export function buildMessages(question: string, queryType: QueryType, sources: readonly OracleSource[], repoMapSlice: string): Array<{ role: 'system' | 'user'; content: string }> {
  const blocks = sources.map((source) =>
    dataBlock('evidence', { cite: citation(source), source: source.sourceType, method: source.retrievalMethod, ...blameAttribute(source) }, source.content),
  )
  if (repoMapSlice) blocks.unshift(dataBlock('repo-map', { note: 'where the evidence sits in the repository' }, repoMapSlice))
  const user = `Question (${queryType}): ${question}\n\nEvidence:\n\n${blocks.join('\n\n')}\n\nAnswer the question from this evidence, citing it.`
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: user },
  ]
}

function blameAttribute(source: OracleSource): Record<string, string> {
  const blame = source.metadata.blame as BlameLine[] | undefined
  if (!blame || blame.length === 0) return {}
  const changed = (b: BlameLine): string => (b.boundary ? `at or before ${b.commit.slice(0, 12)} (shallow clone boundary, author unknown)` : `${b.commit.slice(0, 12)} ${b.author} ${b.date}`)
  return { last_changed: blame.slice(0, 3).map(changed).join('; ') }
}

export async function llmAnswer(
  client: LlmClient,
  question: string,
  queryType: QueryType,
  sources: readonly OracleSource[],
  repoMapSlice: string,
  onText?: (delta: string) => void,
  signal?: AbortSignal,
): Promise<LlmResult> {
  const request = { messages: buildMessages(question, queryType, sources, repoMapSlice), maxTokens: ANSWER_TOKENS, temperature: 0, signal }
  return client.stream(request, onText ?? (() => {}))
}
