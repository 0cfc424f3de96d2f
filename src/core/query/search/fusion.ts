/**
 * Reciprocal rank fusion: each path contributes weight / (K + rank) for every candidate it
 * ranked, so paths with incomparable scores (BM25, cosine, reference counts) combine by rank
 * alone, and a candidate several paths agree on rises.
 */
import { chunkKeyString } from './chunks.js'
import type { ChunkKey, PathHit, RetrievalMethod } from './types.js'

/**
 * Lower than the usual 60: one path's rank 1 and rank 2 must stay far enough apart that the
 * rerank's small bonuses do not reorder them (Django docstring cases: recall@1 0.088 at 60, 0.092 at 20).
 */
export const RRF_K = 20

/** The graph only suggests neighbours; named identifiers get their precedence from the rerank. */
export const PATH_WEIGHTS: Record<RetrievalMethod, number> = { symbol: 1, bm25: 1, vector: 1, graph: 0.25 }

/** Fixed order of `methods` in results. */
export const METHOD_ORDER: readonly RetrievalMethod[] = ['symbol', 'bm25', 'vector', 'graph']

export interface FusedCandidate extends ChunkKey {
  score: number
  /** 1-based rank in each path that found the candidate. */
  ranks: Partial<Record<RetrievalMethod, number>>
}

export function fuse(paths: Record<RetrievalMethod, readonly PathHit[]>): FusedCandidate[] {
  const fused = new Map<string, FusedCandidate>()
  for (const method of METHOD_ORDER) {
    paths[method].forEach((hit, index) => {
      const id = chunkKeyString(hit)
      let candidate = fused.get(id)
      if (!candidate) {
        candidate = { path: hit.path, chunkIndex: hit.chunkIndex, score: 0, ranks: {} }
        fused.set(id, candidate)
      }
      if (candidate.ranks[method] !== undefined) return
      candidate.ranks[method] = index + 1
      candidate.score += PATH_WEIGHTS[method] / (RRF_K + index + 1)
    })
  }
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.chunkIndex - b.chunkIndex),
  )
}

/**
 * One keyword ranking from two views of the same candidates — the text as indexed (docstrings
 * included) and the code view (semantic/code-view-path.ts) — by reciprocal rank, so a chunk
 * both views rank well comes first and one that only its code describes still rises.
 */
export function fuseKeywordViews(text: readonly PathHit[], code: readonly PathHit[]): PathHit[] {
  if (code.length === 0) return text.slice()
  const fused = new Map<string, PathHit>()
  for (const view of [text, code]) {
    view.forEach((hit, index) => {
      const id = chunkKeyString(hit)
      const score = 1 / (RRF_K + index + 1)
      const found = fused.get(id)
      if (found) found.score += score
      else fused.set(id, { path: hit.path, chunkIndex: hit.chunkIndex, score })
    })
  }
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.chunkIndex - b.chunkIndex),
  )
}
