import { silentProgress, type Progress } from '../cli/progress.js'
import type { EmbeddingProvider } from './provider.js'
import type { VectorCache } from './vector-cache.js'

export interface EmbedItem {
  /** chunkHash(text). */
  hash: string
  text: string
}

export interface EmbedAllOptions {
  signal?: AbortSignal
  /** New vectors are written to the cache every this many (default 4096), so a failure keeps what was paid for. */
  flushEvery?: number
}

/**
 * Vectors for all items: cached ones from the cache, the rest from the provider. Each distinct
 * text is embedded at most once, ever, per provider. Rejects with the provider's
 * EmbeddingUnavailableError after saving the batches that did complete.
 */
export async function embedAll(
  items: readonly EmbedItem[],
  provider: EmbeddingProvider,
  cache: VectorCache,
  progress: Progress = silentProgress,
  opts: EmbedAllOptions = {},
): Promise<Map<string, Float32Array>> {
  const vectors = await cache.getMany(items.map((item) => item.hash))
  const misses = new Map<string, string>()
  for (const item of items) if (!vectors.has(item.hash)) misses.set(item.hash, item.text)
  if (misses.size === 0) return vectors

  const hashes = [...misses.keys()]
  const flushEvery = opts.flushEvery ?? 4096
  let pending: Array<[string, Float32Array]> = []
  let writing = Promise.resolve()
  let writeError: { error: unknown } | undefined
  const flush = (): void => {
    if (pending.length === 0) return
    const rows = pending
    pending = []
    // Chained so that writes stay ordered; caught so that a failed write never goes unhandled mid-run.
    writing = writing.then(() => cache.putMany(rows)).catch((error: unknown) => {
      writeError ??= { error }
    })
  }

  progress.start(hashes.length, 'Embedding', 'chunks')
  try {
    await provider.embed([...misses.values()], opts.signal, (offset, batch) => {
      batch.forEach((vector, i) => {
        const hash = hashes[offset + i]!
        vectors.set(hash, vector)
        pending.push([hash, vector])
      })
      progress.tick(batch.length)
      if (pending.length >= flushEvery) flush()
    })
  } finally {
    flush()
    await writing
    progress.stop()
  }
  if (writeError) throw writeError.error
  return vectors
}
