import { EndpointStatusError } from './http.js'

export interface RetryPolicy {
  /** Total attempts per request, the first included. */
  attempts: number
  /** First backoff; doubles per attempt, with jitter. */
  baseDelayMs: number
  /** Longest single wait; a Retry-After beyond it ends the retries. */
  maxDelayMs: number
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 20_000 }

/** Exponential backoff with ±25 % jitter, so that clients rate-limited together do not return together. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const base = policy.baseDelayMs * 2 ** (attempt - 1)
  return Math.min(policy.maxDelayMs, base * (0.75 + Math.random() * 0.5))
}

/** Retry-After in milliseconds (`retry-after-ms`, or `retry-after` as seconds or an HTTP date), when the server sent one. */
export function retryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof EndpointStatusError)) return undefined
  const ms = Number(error.headers.get('retry-after-ms') ?? NaN)
  if (Number.isFinite(ms) && ms >= 0) return ms
  const value = error.headers.get('retry-after')
  if (value === null || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}
