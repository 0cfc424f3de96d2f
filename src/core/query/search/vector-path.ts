/**
 * The vector path: the query's embedding against every chunk's, by exact cosine similarity (a
 * flat scan costs ~20 ms at 200k vectors; building an HNSW graph per tree costs far more).
 *
 * A tree's chunk vectors are kept as one record beside its aggregates, built on first use from
 * the vector cache (so only chunks never embedded before cost an API call); uncommitted files are
 * embedded per query on top. Any EmbeddingUnavailableError ends the path with one warning.
 */
import { join } from 'node:path'
import { silentProgress, type Progress } from '../../cli/progress.js'
import { chunkHash, embedAll, embeddingText, EmbeddingUnavailableError, providerKey, unitVector, VectorCache, type EmbeddingProvider, type EmbedItem } from '../../embed/index.js'
import { CorruptFileError, VltError } from '../../errors.js'
import { readRecord, unlessUnwritable, writeRecord } from '../../store/index.js'
import type { QueryContext } from '../context.js'
import type { SearchFilters } from './filters.js'
import type { PathHit } from './types.js'

const RECORD_KIND = 'search-vectors'
const RECORD_VERSION = 1

/** Rows of unit vectors; row r is chunk `chunkIndexes[r]` of `paths[fileOfRow[r]]`. */
interface TreeVectors {
  providerId: string
  dimensions: number
  paths: string[]
  fileOfRow: Uint32Array
  chunkIndexes: Uint32Array
  vectors: Float32Array
}

export interface VectorPathResult {
  hits: PathHit[]
  /** Set when the path could not run, or its tree's record was damaged and rebuilt: one line for the user. */
  warning?: string
}

export async function vectorPath(
  qctx: QueryContext,
  provider: EmbeddingProvider,
  query: string,
  filters: SearchFilters,
  limit: number,
  progress: Progress = silentProgress,
): Promise<VectorPathResult> {
  try {
    const [[queryVector], { tree, damage }] = await Promise.all([provider.embed([query]), treeVectors(qctx, provider, progress)])
    const overlay = await overlayVectors(qctx, provider, tree.dimensions)
    const q = unitVector(queryVector!)
    if (q.length !== tree.dimensions && tree.fileOfRow.length > 0) {
      return { hits: [], warning: `embeddings unavailable: the query vector has ${q.length} dimensions, the chunk vectors ${tree.dimensions}; using keyword, symbol and graph search only` }
    }
    const replaced = (path: string): boolean => qctx.files.get(path)?.dirty !== false
    const hits = [...nearest(tree, q, filters, replaced, limit), ...nearest(overlay, q, filters, () => false, limit)]
    return { hits: hits.sort((a, b) => b.score - a.score).slice(0, limit), ...(damage ? { warning: `${damage.message}; rebuilt the search vectors from the vector cache` } : {}) }
  } catch (error) {
    if (error instanceof EmbeddingUnavailableError) return { hits: [], warning: `embeddings unavailable (${error.kind}): ${error.message}; using keyword, symbol and graph search only` }
    throw error
  }
}

/** The provider for the vector path, or a warning when embeddings are configured but cannot be used. */
export function configuredProvider(create: () => EmbeddingProvider | null): { provider: EmbeddingProvider | null; warning?: string } {
  try {
    return { provider: create() }
  } catch (error) {
    if (!(error instanceof VltError)) throw error
    return { provider: null, warning: `embeddings unavailable: ${error.message}; using keyword, symbol and graph search only` }
  }
}

/** The `limit` rows most similar to `query`, kept in a small sorted list (no object per row). */
function nearest(tree: TreeVectors, query: Float32Array, filters: SearchFilters, skip: (path: string) => boolean, limit: number): PathHit[] {
  const d = tree.dimensions
  const admitted = tree.paths.map((path) => !skip(path) && filters.file(path))
  const { vectors, fileOfRow, chunkIndexes } = tree
  const topRows: number[] = []
  const topScores: number[] = []
  for (let row = 0; row < fileOfRow.length; row++) {
    if (!admitted[fileOfRow[row]!]) continue
    let dot = 0
    for (let i = 0, at = row * d; i < d; i++, at++) dot += query[i]! * vectors[at]!
    if (topRows.length === limit && dot <= topScores[limit - 1]!) continue
    let at = topRows.length === limit ? limit - 1 : topRows.length
    while (at > 0 && topScores[at - 1]! < dot) {
      topScores[at] = topScores[at - 1]!
      topRows[at] = topRows[at - 1]!
      at--
    }
    topScores[at] = dot
    topRows[at] = row
  }
  return topRows.map((row, k) => ({ path: tree.paths[fileOfRow[row]!]!, chunkIndex: chunkIndexes[row]!, score: topScores[k]! }))
}

function recordPath(qctx: QueryContext, providerId: string): string {
  return join(qctx.index.paths.treeDir(qctx.freshness.treeHash), `search-vectors-${providerKey(providerId)}.mpk`)
}

/**
 * The committed tree's chunk vectors: from its record, else built (and saved) from the vector cache
 * and the provider; `damage` says why a record that was there could not be used.
 */
async function treeVectors(qctx: QueryContext, provider: EmbeddingProvider, progress: Progress): Promise<{ tree: TreeVectors; damage?: CorruptFileError }> {
  const path = recordPath(qctx, provider.id)
  let damage: CorruptFileError | undefined
  try {
    const stored = await readRecord<TreeVectors>(path, RECORD_KIND, RECORD_VERSION)
    if (stored && stored.providerId === provider.id) return { tree: stored }
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error
    damage = error
  }
  const committed = qctx.manifest.files.filter((file) => !file.skipped).map((file) => file.path)
  // A file changed or deleted in the working tree has no committed artifact here (the overlay
  // replaced it): such a build is used for this query but not saved as the tree's.
  const clean = committed.every((file) => qctx.files.get(file)?.dirty === false)
  const tree = await embedFiles(qctx, provider, committed.filter((file) => qctx.files.get(file)?.dirty === false), progress)
  // A cache: in a `.vlt/` that cannot be written, embedded again (from the vector cache) next time.
  if (clean) await unlessUnwritable(() => writeRecord(path, RECORD_KIND, RECORD_VERSION, tree))
  return damage ? { tree, damage } : { tree }
}

/** Vectors of the uncommitted files laid over the tree (never stored: they change with every edit). */
async function overlayVectors(qctx: QueryContext, provider: EmbeddingProvider, dimensions: number): Promise<TreeVectors> {
  const dirty = [...qctx.files.values()].filter((file) => file.dirty).map((file) => file.path)
  if (dirty.length === 0) return { providerId: provider.id, dimensions, paths: [], fileOfRow: new Uint32Array(0), chunkIndexes: new Uint32Array(0), vectors: new Float32Array(0) }
  return embedFiles(qctx, provider, dirty, silentProgress)
}

/** Files whose chunk text one git run reads (see QueryContext.prefetchText). */
const TEXT_BATCH = 256

async function embedFiles(qctx: QueryContext, provider: EmbeddingProvider, paths: string[], progress: Progress): Promise<TreeVectors> {
  const items: EmbedItem[] = []
  const rows: Array<{ file: number; chunk: number; hash: string }> = []
  const kept: string[] = []
  for (let start = 0; start < paths.length; start += TEXT_BATCH) {
    const batch = paths.slice(start, start + TEXT_BATCH)
    qctx.prefetchText(batch)
    for (const path of batch) {
      const artifact = qctx.artifact(path)
      if (!artifact) continue
      const file = kept.push(path) - 1
      artifact.chunks.forEach((chunk, chunkIndex) => {
        const text = embeddingText(chunk)
        if (text.trim() === '') return
        const hash = chunkHash(text)
        items.push({ hash, text })
        rows.push({ file, chunk: chunkIndex, hash })
      })
    }
  }
  const vectors = await embedAll(dedupe(items), provider, new VectorCache(qctx.index.paths, provider.id), progress)
  const dimensions = rows.length === 0 ? 0 : vectors.get(rows[0]!.hash)!.length
  const matrix = new Float32Array(rows.length * dimensions)
  rows.forEach((row, r) => matrix.set(unitVector(vectors.get(row.hash)!), r * dimensions))
  return {
    providerId: provider.id,
    dimensions,
    paths: kept,
    fileOfRow: Uint32Array.from(rows, (row) => row.file),
    chunkIndexes: Uint32Array.from(rows, (row) => row.chunk),
    vectors: matrix,
  }
}

function dedupe(items: EmbedItem[]): EmbedItem[] {
  const seen = new Set<string>()
  return items.filter((item) => !seen.has(item.hash) && seen.add(item.hash))
}

