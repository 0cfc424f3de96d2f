import type { VltConfig } from '../config/index.js'
import { displayPath, userConfigPath } from '../config/index.js'
import { createEmbeddingProvider } from '../embed/index.js'
import { EndpointConnectionError, EndpointStatusError, EndpointTimeoutError, requestJson, statusFailure } from '../endpoint/index.js'
import { connectionCause } from '../endpoint/index.js'
import { createLlmClient } from '../llm/index.js'
import { failed, passed, type CheckName, type DoctorCheck } from './types.js'

/**
 * `[llm]` of your config, when set: the settings are complete (a key where one is needed) and the
 * endpoint answers one cheap request (its model list) with that key.
 */
export async function checkLlm(config: VltConfig['llm'], env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  try {
    createLlmClient(config, { env })
  } catch (error) {
    return failed('llm', (error as Error).message, `edit [llm] in ${displayPath(userConfigPath())}`)
  }
  return probe('llm', config.baseUrl, env[config.apiKeyEnv] || undefined, config.apiKeyEnv, config.timeoutMs, `model ${config.model}`)
}

/** `[embedding]` of your config, when set: a local model directory is complete, an endpoint answers. */
export async function checkEmbedding(config: VltConfig['embedding'], env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  try {
    createEmbeddingProvider(config, env)
  } catch (error) {
    return failed('embedding', (error as Error).message, `edit [embedding] in ${displayPath(userConfigPath())}`)
  }
  if (config.provider === 'local') return passed('embedding', `local model in ${config.modelDir}`)
  return probe('embedding', config.baseUrl, env[config.apiKeyEnv] || undefined, config.apiKeyEnv, config.timeoutMs, `model ${config.model}`)
}

async function probe(name: CheckName, baseUrl: string, apiKey: string | undefined, apiKeyEnv: string, timeoutMs: number, what: string): Promise<DoctorCheck> {
  const url = new URL(baseUrl)
  const endpoint = `${url.origin}${url.pathname.replace(/\/+$/, '')}`
  const settings = `${name}.base_url in ${displayPath(userConfigPath())}`
  try {
    await requestJson({ baseUrl, path: '/models', apiKey, timeoutMs })
    return passed(name, `${endpoint} answers (${what})`)
  } catch (error) {
    if (error instanceof EndpointTimeoutError) return failed(name, `${endpoint} did not answer within ${timeoutMs} ms`, `check that the server runs, and ${settings}`)
    if (error instanceof EndpointConnectionError) return failed(name, `${endpoint} is unreachable (${connectionCause(error)})`, `check that the server runs, and ${settings}`)
    if (error instanceof EndpointStatusError) {
      const failure = statusFailure(error.status, error, endpoint, '', apiKeyEnv, 'the model list')
      return failed(name, failure.message, failure.kind === 'auth' ? `set ${apiKeyEnv} to a valid key` : `check ${settings}`)
    }
    return failed(name, `${endpoint} sent an unreadable answer (${(error as Error).message})`, `check ${settings}`)
  }
}
