/**
 * Who may talk to the local web app. It listens on 127.0.0.1 only, but every web page the user
 * opens can send requests there too: a request must carry this run's random token, its Host must
 * name the loopback address and port (a DNS-rebinding page sends its own host name), and a browser
 * request's Origin, when sent, must be the app's own (another site's form or fetch is refused).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** Header the app sends the token in; a cross-site page cannot set it without a CORS preflight, which is never allowed. */
export const TOKEN_HEADER = 'x-vlt-token'
/** Query parameter carrying the token in the URL the user opens. */
export const TOKEN_PARAM = 't'

export function newToken(): string {
  return randomBytes(24).toString('base64url')
}

export type Refusal = { status: 403 | 421 | 401; reason: string }

/** The hosts a request to the app may name: the loopback address and `localhost`, with the port. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`])
}

/** Why a request is refused, or null when it may be served. `url` is the request's parsed URL. */
export function refusal(req: IncomingMessage, url: URL, token: string, hosts: ReadonlySet<string>): Refusal | null {
  const host = req.headers.host ?? ''
  if (!hosts.has(host.toLowerCase())) return { status: 421, reason: `requests must name this server (Host ${JSON.stringify(host)} refused)` }
  const origin = req.headers.origin
  if (origin !== undefined && !hosts.has(originHost(origin))) return { status: 403, reason: `cross-origin request from ${JSON.stringify(origin)} refused` }
  // A browser says where a request comes from: a page of another site is refused even without an Origin.
  const site = req.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return { status: 403, reason: `${String(site)} request refused` }
  // Anything that changes state must come from the app itself, which always sends its Origin.
  if (req.method !== 'GET' && req.method !== 'HEAD' && origin === undefined) return { status: 403, reason: 'a request that is not a GET must carry its Origin' }
  const given = headerValue(req.headers[TOKEN_HEADER]) ?? url.searchParams.get(TOKEN_PARAM)
  if (given === null || !sameSecret(given, token)) return { status: 401, reason: 'missing or wrong token: open the URL git vlt ui printed' }
  return null
}

function originHost(origin: string): string {
  try {
    const url = new URL(origin)
    return url.protocol === 'http:' ? url.host.toLowerCase() : ''
  } catch {
    return ''
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : null
}

/** Compared in constant time, so that the token cannot be guessed a character at a time. */
function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}
