/** Embeddings: the OpenAI-compatible and local (transformers.js) providers and the per-provider vector cache (the search vector path scans a tree's vectors exactly; bench/vector-index.ts is the ANN index it was measured against). */
export { createEmbeddingProvider, type EmbeddingProvider, type EmbeddingUsage, type EmbeddingConfig, type ProviderOptions } from './provider.js'
export { inspectModelDir, LocalEmbeddingProvider, type LocalModel } from './local-provider.js'
export { EmbeddingUnavailableError, type EmbeddingFailureKind } from './errors.js'
export { embeddingText, chunkHash, MAX_EMBEDDING_CHARS } from './text.js'
export { VectorCache, vectorCacheDir, providerKey } from './vector-cache.js'
export { embedAll, type EmbedItem, type EmbedAllOptions } from './embed-all.js'
export { unitVector } from './unit.js'
