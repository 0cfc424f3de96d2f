/**
 * The code view of a prose query: the keyword path's candidates ranked again by how well their
 * code — name, signature and body, docstring left out — explains the query through the tree's
 * term associations. Keyword search sees docstrings; an undocumented function loses to every
 * documented neighbour whose comment repeats the query's words, even when its own name and body
 * say the same thing in code terms. Fused with the keyword ranking (see fusion.ts), both views count.
 */
import type { QueryContext } from '../query/context.js'
import type { ChunkSource } from '../query/search/chunks.js'
import type { ChunkKey, PathHit } from '../query/search/types.js'
import { treeAssociations } from './model-store.js'
import { codeView, prepareQuery, scoreCode, type DocumentedText, type TermAssociations } from './term-associations.js'

/** Prose has at least this many terms; a lone identifier is the symbol path's business. */
export const MIN_PROSE_TERMS = 2

/** The candidates in code-view order (empty for a query that is not prose); `warning` when the stored model was rebuilt. */
export async function codeViewPath(
  qctx: QueryContext,
  queryTerms: readonly string[],
  candidates: readonly PathHit[],
  chunks: ChunkSource,
): Promise<{ hits: PathHit[]; warning?: string }> {
  if (queryTerms.length < MIN_PROSE_TERMS || candidates.length === 0) return { hits: [] }
  const { model, warning } = await treeAssociations(qctx)
  // Every candidate's code is read: one git run for their files, not one each.
  if (model.pairs > 0) chunks.prefetchText(candidates.map((candidate) => candidate.path))
  const hits = rankByCode(model, queryTerms, candidates, (key) => chunks.chunk(key))
  return warning ? { hits, warning } : { hits }
}

export function rankByCode(
  model: TermAssociations,
  queryTerms: readonly string[],
  candidates: readonly ChunkKey[],
  chunkOf: (key: ChunkKey) => DocumentedText | undefined,
): PathHit[] {
  if (model.pairs === 0) return []
  const query = prepareQuery(model, queryTerms)
  const scored: PathHit[] = []
  for (const candidate of candidates) {
    const chunk = chunkOf(candidate)
    if (!chunk) continue
    scored.push({ path: candidate.path, chunkIndex: candidate.chunkIndex, score: scoreCode(query, codeView(chunk)) })
  }
  return scored.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.chunkIndex - b.chunkIndex))
}
