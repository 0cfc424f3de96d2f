import { estimateTokens } from '../sources/retrieval.js'
import type { OracleRetrievalMethod, OracleSource, OracleSourceName } from './types.js'

/** A piece of evidence on its way to the answer: a source plus what ranking and merging need. */
export interface Candidate {
  source: OracleSource
  /** The retrieval path that found it (`code:search`, `vault`…), for traces. */
  path: string
  /** Share of the question's terms it holds (see relevance.ts); 1 for exact-index hits. */
  relevance: number
  /** Found by the definition or reference index for the symbol the question names. */
  exact: boolean
  /** The file lines it covers, for merging overlapping code. */
  range?: { path: string; start: number; end: number }
}

export function makeSource(
  sourceType: OracleSourceName,
  sourcePath: string,
  retrievalMethod: OracleRetrievalMethod,
  score: number,
  content: string,
  metadata: Record<string, unknown>,
): OracleSource {
  return { sourceType, sourcePath, retrievalMethod, score: round(score), content, tokenCount: estimateTokens(content), metadata }
}

export function round(value: number): number {
  return Math.round(value * 10_000) / 10_000
}
