/**
 * One piece of evidence from any knowledge source, as the oracle consumes it (seed 000,
 * RetrievalResult). Every source's retrieval function returns this shape so that the oracle can
 * rank, budget and cite results without knowing where they came from.
 */

export type SourceType = 'code' | 'vault' | 'threads' | 'history' | 'git'

/**
 * How a result was found. `hybrid`: by both words and meaning (fused); `graph`: through a link
 * to something the question is about, not through its own text.
 */
export type RetrievalMethod = 'vector' | 'bm25' | 'hybrid' | 'graph'

/**
 * Sources declare their metadata as type aliases, not interfaces, so that it stays assignable to
 * the default `Record<string, unknown>` for code that handles every source alike.
 */
export interface RetrievalResult<Metadata extends object = Record<string, unknown>> {
  sourceType: SourceType
  /** Where to find it again: `path:line` for files, `thread#entry` for thread entries, an id for the rest. */
  sourcePath: string
  retrievalMethod: RetrievalMethod
  /** 0..1, normalised within one source's answer to one query (its best result scores 1). */
  score: number
  content: string
  tokenCount: number
  metadata: Metadata
}

/** The repo map's estimate (about four characters per token for prose and code alike), so every budget counts alike. */
export { countTokens as estimateTokens } from '../repomap/tokens.js'
