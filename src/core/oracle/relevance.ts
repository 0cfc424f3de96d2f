/**
 * Whether a piece of evidence is about the question at all. Retrieval always returns its best
 * matches, relevant or not (a question about philosophy still finds chunks mentioning one of its words):
 * the oracle only cites evidence holding most of the question's words, so that a question the
 * repository cannot answer gets "nothing found" rather than a confident tour of unrelated code.
 *
 * Calibrated on Django and on this repository (bench/oracle-bench.ts): real questions' best
 * evidence covers all their words, or all but one of three or more; unanswerable questions'
 * best matches cover at most one of two.
 */
import { analyzeQuery } from '../search/index.js'

/** Share of the question's terms a piece of evidence must hold; with two terms or fewer, all. */
export const MIN_COVERAGE = 0.6

export function questionTerms(searchText: string): string[] {
  return analyzeQuery(searchText)
}

/** Share (0..1) of `terms` present in `text` after the index's analysis (identifiers split, stemmed). */
export function coverage(terms: readonly string[], text: string): number {
  if (terms.length === 0) return 0
  const present = new Set(analyzeQuery(text))
  let hits = 0
  for (const term of terms) if (present.has(term) || prefixMatch(present, term)) hits++
  return hits / terms.length
}

/** Enough of the question's words for the evidence to count. */
export function isRelevant(terms: readonly string[], share: number): boolean {
  if (terms.length === 0) return false
  return terms.length <= 2 ? share >= 1 : share >= MIN_COVERAGE
}

/**
 * Stemming leaves irregular forms apart (`written`/`write`, `acquired`/`acquire`): a word sharing
 * a prefix of at least four letters and 60% of the shorter word's length counts as the same word.
 */
function prefixMatch(present: ReadonlySet<string>, term: string): boolean {
  if (term.length < 5) return false
  for (const word of present) {
    if (word.length < 4 || word.charCodeAt(0) !== term.charCodeAt(0)) continue
    const needed = Math.max(4, Math.ceil(0.6 * Math.min(word.length, term.length)))
    if (word.length >= needed && word.slice(0, needed) === term.slice(0, needed)) return true
  }
  return false
}
