/**
 * What the OpenAI-compatible clients (chat in src/core/llm, embeddings in src/core/embed) share
 * about talking to an endpoint: retry policy and Retry-After, error descriptions, local hosts.
 */
import type { EndpointStatusError, EndpointStreamError } from './http.js'

export { backoffMs, DEFAULT_RETRY, retryAfterMs, type RetryPolicy } from './retry.js'
export { EndpointConnectionError, EndpointStatusError, EndpointStreamError, EndpointTimeoutError, postEvents, requestJson, type EndpointRequest } from './http.js'

/** Local servers (Ollama, LM Studio, vLLM on this machine) need no API key. */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '')
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || host === '0.0.0.0' || /^127\.\d+\.\d+\.\d+$/.test(host)
}

/** The server's own error message, on one line and bounded, for a user-facing error. */
export function serverMessage(error: EndpointStatusError | EndpointStreamError): string {
  const text = 'status' in error ? (error.serverMessage ?? '') : error.message
  const line = text.replace(/\s+/g, ' ').trim() || 'no message'
  return line.length > 200 ? `${line.slice(0, 199)}…` : line
}

/** How an HTTP error status is reported, and whether waiting may fix it. */
export interface StatusFailure {
  retryable: boolean
  kind: 'auth' | 'rate-limit' | 'server' | 'bad-response'
  message: string
}

/**
 * An HTTP error from the endpoint `where` (e.g. `LLM endpoint https://…`): 401/403 blame the key
 * in `apiKeyEnv`, 429 and 5xx/408 may pass, any other status is `refused` (what the server refused).
 */
export function statusFailure(status: number, error: EndpointStatusError, where: string, after: string, apiKeyEnv: string, refused: string): StatusFailure {
  const detail = `HTTP ${status}: ${serverMessage(error)}`
  if (status === 401 || status === 403) return { retryable: false, kind: 'auth', message: `${where} rejected the API key from ${apiKeyEnv} (${detail})` }
  if (status === 429) return { retryable: true, kind: 'rate-limit', message: `${where} is rate limiting${after} (${detail})` }
  if (status >= 500 || status === 408) return { retryable: true, kind: 'server', message: `${where} failed${after} (${detail})` }
  return { retryable: false, kind: 'bad-response', message: `${where} refused ${refused} (${detail})` }
}

/** The system error code (ECONNREFUSED, ENOTFOUND…) buried in fetch's error chain, if any. */
export function causeCode(error: unknown): string | undefined {
  for (let cause: unknown = error; cause; cause = (cause as { cause?: unknown }).cause) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === 'string') return code
  }
  return undefined
}

/** Why a connection failed, for a one-line message: the system error code, else the message. */
export function connectionCause(error: Error): string {
  return causeCode(error.cause) ?? error.message
}
