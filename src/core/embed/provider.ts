import { displayPath, userConfigPath } from '../config/user.js'
import type { VltConfig } from '../config/types.js'
import { VltError } from '../errors.js'
import { isLocalHost, type RetryPolicy } from '../endpoint/index.js'
import { inspectModelDir, LocalEmbeddingProvider } from './local-provider.js'
import { OpenAIEmbeddingProvider } from './openai-provider.js'

/** What has been spent on embeddings by one provider instance. */
export interface EmbeddingUsage {
  requests: number
  inputTokens: number
  /** In the server's currency (OpenRouter: USD); only present when the server reports cost. */
  cost?: number
}

export interface EmbeddingProvider {
  /**
   * Identifies the vector space: provider, endpoint host, model and requested dimensions. Part of
   * the cache key, so vectors from different models never mix.
   */
  readonly id: string
  readonly usage: EmbeddingUsage
  /**
   * One vector per text, in order. `onBatch` sees each batch as soon as it is embedded (`offset` =
   * index of its first text), so a caller can keep finished work when a later batch fails.
   * Rejects with EmbeddingUnavailableError.
   */
  embed(texts: string[], signal?: AbortSignal, onBatch?: (offset: number, vectors: Float32Array[]) => void): Promise<Float32Array[]>
}

export type EmbeddingConfig = VltConfig['embedding']

export interface ProviderOptions {
  /** Overrides the retry schedule (tests shorten it). */
  retry?: Partial<RetryPolicy>
}

/**
 * The configured provider, or null when embeddings are off. Throws VltError when the API key is
 * missing or the local model directory is incomplete.
 */
export function createEmbeddingProvider(
  config: EmbeddingConfig,
  env: NodeJS.ProcessEnv = process.env,
  opts: ProviderOptions = {},
): EmbeddingProvider | null {
  if (config.provider === 'none') return null
  if (config.provider === 'local') {
    if (config.modelDir === undefined) throw new VltError('embedding.model_dir is not set: a local provider needs a model directory')
    return new LocalEmbeddingProvider(inspectModelDir(config.modelDir), config.batchSize)
  }
  let url: URL
  try {
    url = new URL(config.baseUrl)
  } catch {
    throw new VltError(`embedding.baseUrl is not a URL: ${JSON.stringify(config.baseUrl)}`)
  }
  const key = env[config.apiKeyEnv]
  if (!key && !isLocalHost(url.hostname)) {
    throw new VltError(`embedding provider ${url.host} needs an API key: set the environment variable ${config.apiKeyEnv} (embedding.api_key_env in ${displayPath(userConfigPath())})`)
  }
  return new OpenAIEmbeddingProvider(config, key || undefined, opts.retry)
}

