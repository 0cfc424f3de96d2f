import { displayPath, userConfigPath } from '../config/user.js'
import type { LlmRole, VltConfig } from '../config/types.js'
import { isLocalHost, type RetryPolicy } from '../endpoint/index.js'
import { VltError } from '../errors.js'
import { OpenAILlmClient } from './openai-client.js'
import type { LlmClient } from './types.js'

export { DATA_BLOCK_RULE, dataBlock } from './data-block.js'
export { LlmUnavailableError, type LlmFailureKind } from './errors.js'
export type { RetryPolicy } from '../endpoint/index.js'
export type { LlmClient, LlmFinishReason, LlmMessage, LlmRequest, LlmResult, LlmTool, LlmToolCall, LlmUsage } from './types.js'

export interface LlmClientOverrides {
  /** Replaces the role's model (a `--model` flag). */
  model?: string
  /** What the model is for: its model is `[llm.models]`'s for the role, else llm.model. */
  role?: LlmRole
  /** Where the API key is looked up (default process.env). */
  env?: NodeJS.ProcessEnv
  /** Overrides the retry schedule (tests shorten it). */
  retry?: Partial<RetryPolicy>
}

/**
 * The configured language model, or null when none is configured. Throws VltError when a remote
 * endpoint has no API key; local servers (Ollama, LM Studio, vLLM) need none.
 */
export function createLlmClient(config: VltConfig['llm'], overrides: LlmClientOverrides = {}): LlmClient | null {
  if (config.provider === 'none') return null
  let url: URL
  try {
    url = new URL(config.baseUrl)
  } catch {
    throw new VltError(`llm.base_url is not a URL: ${JSON.stringify(config.baseUrl)}`)
  }
  const key = (overrides.env ?? process.env)[config.apiKeyEnv]
  if (!key && !isLocalHost(url.hostname)) {
    throw new VltError(`LLM provider ${url.host} needs an API key: set the environment variable ${config.apiKeyEnv} (llm.api_key_env in ${displayPath(userConfigPath())})`)
  }
  return new OpenAILlmClient(config, overrides.model ?? roleModel(config, overrides.role), key || undefined, overrides.retry)
}

/** The model a role uses: its own when `[llm.models]` sets one, else llm.model. */
export function roleModel(config: VltConfig['llm'], role: LlmRole | undefined): string {
  return (role && config.models[role]) || config.model
}
