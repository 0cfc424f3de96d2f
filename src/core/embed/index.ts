/** Embeddings: the OpenAI-compatible and local (transformers.js) providers, the per-provider vector cache and the per-tree ANN index. */
export { createEmbeddingProvider, type EmbeddingProvider, type EmbeddingUsage, type EmbeddingConfig, type ProviderOptions } from './provider.js'
export { inspectModelDir, LocalEmbeddingProvider, type LocalModel } from './local-provider.js'
export { EmbeddingUnavailableError, type EmbeddingFailureKind } from './errors.js'
export { embeddingText, chunkHash, MAX_EMBEDDING_CHARS } from './text.js'
export { VectorCache, vectorCacheDir, providerKey } from './vector-cache.js'
export { embedAll, type EmbedItem, type EmbedAllOptions } from './embed-all.js'
export { VectorIndex, vectorIndexPath, type VectorIndexEntry, type VectorHit, type VectorSpace, type Quantization } from './vector-index.js'
export { unitVector } from './unit.js'
