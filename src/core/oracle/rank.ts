/**
 * Fusion of every path's candidates: evidence below the relevance floor is dropped, the rest is
 * scored (exact-index hits above everything, then relevance and the path's own score, by source),
 * and duplicates are merged — overlapping line ranges of one file, the same commit or entry found
 * twice — into the best-ranked copy.
 */
import { isTestPath } from '../query/search/index.js'
import type { Candidate } from './candidate.js'
import { round } from './candidate.js'
import { isRelevant } from './relevance.js'
import type { OracleSourceName, OracleTraces, QueryType } from './types.js'

/** How much each source's evidence counts, all else equal: code answers code questions best. */
const SOURCE_WEIGHT: Record<OracleSourceName, number> = { code: 1, vault: 0.9, threads: 0.9, git: 0.85, history: 0.8 }
/** Tests are evidence of behaviour; elsewhere they repeat what the code says. */
const TEST_FACTOR = { behaviour: 1.1, other: 0.7 }
/** Prose the code index holds as text windows (READMEs, docs): the notes source reads it better. */
const TEXT_AS_CODE = 0.85
const EXACT_BONUS = 1
/** The index the question asks for (the definition for "where is X defined") outranks other exact hits. */
const ASKED_INDEX_BONUS = 0.5
const ASKED_INDEX: Partial<Record<QueryType, string>> = { definition: 'definition', references: 'reference' }

export interface Ranked {
  candidate: Candidate
  score: number
}

export function rankCandidates(
  candidates: readonly Candidate[],
  terms: readonly string[],
  behaviour: boolean,
  queryType: QueryType,
  decisions: OracleTraces['decisions'],
): Ranked[] {
  const scored: Ranked[] = []
  for (const candidate of candidates) {
    const { source } = candidate
    if (!candidate.exact && !isRelevant(terms, candidate.relevance)) {
      decisions.push({ sourcePath: source.sourcePath, score: source.score, decision: 'irrelevant' })
      continue
    }
    let score = (candidate.exact ? EXACT_BONUS + source.score * 0.5 : candidate.relevance * 0.5 + source.score * 0.5) * SOURCE_WEIGHT[source.sourceType as OracleSourceName]
    if (source.sourceType === 'code' && source.metadata.language === 'text') score *= TEXT_AS_CODE
    if (candidate.exact && source.metadata.role === ASKED_INDEX[queryType]) score += ASKED_INDEX_BONUS
    if (candidate.range && source.sourceType === 'code' && isTestPath(candidate.range.path)) score *= behaviour ? TEST_FACTOR.behaviour : TEST_FACTOR.other
    scored.push({ candidate, score })
  }
  scored.sort((a, b) => b.score - a.score || (a.candidate.source.sourcePath < b.candidate.source.sourcePath ? -1 : 1))
  const kept: Ranked[] = []
  for (const entry of scored) {
    const twin = kept.find((other) => duplicates(other.candidate, entry.candidate))
    if (twin) {
      const methods = (twin.candidate.source.metadata.alsoFoundBy ??= []) as string[]
      if (!methods.includes(entry.candidate.path) && entry.candidate.path !== twin.candidate.path) methods.push(entry.candidate.path)
      decisions.push({ sourcePath: entry.candidate.source.sourcePath, score: round(entry.score), decision: 'duplicate', by: twin.candidate.source.sourcePath })
      continue
    }
    kept.push(entry)
  }
  return kept
}

function duplicates(a: Candidate, b: Candidate): boolean {
  if (a.range && b.range) return a.range.path === b.range.path && a.range.start <= b.range.end && b.range.start <= a.range.end
  return a.source.sourceType === b.source.sourceType && a.source.sourcePath === b.source.sourcePath
}

/** Questions about what the code does, which tests answer as well as the code. */
export function isBehaviourQuestion(question: string): boolean {
  return /\b(?:how|what\s+happens|behaviou?r|should|handles?|test(?:s|ed)?|expected|when)\b/i.test(question)
}
