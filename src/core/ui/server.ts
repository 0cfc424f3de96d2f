/**
 * The HTTP server of `git vlt ui`: node:http on 127.0.0.1 only, every request checked by guard.ts
 * (token, Host, Origin), the built web app from the package, the read API (api.ts) and the oracle's
 * answers as server-sent events (ask.ts). Responses forbid framing, sniffing, referrers (the URL
 * carries the token) and any script but the app's own (Content-Security-Policy), so that text from
 * the repository, were it ever rendered as HTML, could still not run.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { VltError } from '../errors.js'
import { apiRoutes, RepoSession } from './api.js'
import { parseAskRequest, streamAnswer, type AskOptions } from './ask.js'
import { loadAssets, type Asset } from './assets.js'
import { UiRefusal } from './errors.js'
import { allowedHosts, newToken, refusal, TOKEN_PARAM } from './guard.js'

export const UI_HOST = '127.0.0.1'
const MAX_BODY_BYTES = 64 * 1024

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
}

export interface UiServerOptions {
  /** Any directory of the repository to serve. */
  cwd: string
  /** 0 (default): any free port. */
  port?: number
  /** Index warnings met while serving. */
  warn?: (message: string) => void
  /** Where the LLM's API key is looked up (default process.env). */
  env?: NodeJS.ProcessEnv
  /** Told when an answer ends (tests watch a stopped run). */
  onAnswerEnd?: AskOptions['onEnd']
}

export interface UiServer {
  /** The URL to open, token included. */
  url: string
  port: number
  token: string
  root: string
  close(): Promise<void>
}

export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const warn = options.warn ?? (() => {})
  const session = await RepoSession.open(options.cwd, warn)
  const assets = await loadAssets()
  const routes = apiRoutes(session)
  const token = newToken()
  let hosts = new Set<string>()

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', `http://${UI_HOST}`)
    const refused = refusal(req, url, token, hosts)
    if (refused) return sendJson(res, refused.status, { error: refused.reason })
    if (url.pathname === '/' || url.pathname.startsWith('/assets/')) {
      const asset = assets.get(url.pathname === '/' ? 'index.html' : url.pathname.slice('/assets/'.length))
      if (!asset || (req.method !== 'GET' && req.method !== 'HEAD')) return sendJson(res, 404, { error: `no such page: ${url.pathname}` })
      return sendAsset(req, res, asset, token)
    }
    if (url.pathname === '/api/ask') {
      if (req.method !== 'POST') throw new UiRefusal(405, 'POST a question to /api/ask')
      const ask = parseAskRequest(await readJson(req))
      return streamAnswer(session.root, ask, res, { conversation: await session.conversation(), env: options.env, onEnd: options.onAnswerEnd, lsp: session.lsp })
    }
    const route = routes.get(url.pathname)
    if (!route) return sendJson(res, 404, { error: `no such endpoint: ${url.pathname}` })
    if (req.method !== route.method) throw new UiRefusal(405, `${url.pathname} takes ${route.method}`)
    sendJson(res, 200, await route.handle(url.searchParams))
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.end()
      sendJson(res, ...errorReply(error))
    })
  })
  const port = await listen(server, options.port ?? 0)
  hosts = allowedHosts(port)
  return {
    url: `http://${UI_HOST}:${port}/?${TOKEN_PARAM}=${token}`,
    port,
    token,
    root: session.root,
    close: () => {
      // Streams under way would keep close() waiting; ending them aborts their runs.
      server.closeAllConnections()
      session.lsp.close()
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
    },
  }
}

function listen(server: ReturnType<typeof createServer>, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') reject(new VltError(`port ${port} on ${UI_HOST} is in use: choose another with --port (0 for any free one)`))
      else if (error.code === 'EACCES') reject(new VltError(`port ${port} on ${UI_HOST} may not be used by this user: choose another with --port`))
      else reject(error)
    })
    server.listen(port, UI_HOST, () => resolve((server.address() as AddressInfo).port))
  })
}

/** A refusal, a user's mistake or a failure of the work as one line, with its status. */
function errorReply(error: unknown): [number, { error: string }] {
  if (error instanceof UiRefusal) return [error.status, { error: error.message }]
  if (error instanceof VltError) return [error.exitCode === 2 ? 400 : 500, { error: error.message.split('\n')[0]! }]
  return [500, { error: `internal error: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` }]
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

function sendAsset(req: IncomingMessage, res: ServerResponse, asset: Asset, token: string): void {
  // The page learns its token from a meta tag, filled in here, and sends it with every request.
  const page = asset.name === 'index.html'
  const gzip = !page && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))
  const body = page ? Buffer.from(asset.bytes.toString('utf8').replaceAll('%VLT_TOKEN%', token)) : gzip ? asset.gzipped : asset.bytes
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type, 'content-length': body.length, ...(gzip ? { 'content-encoding': 'gzip', vary: 'accept-encoding' } : {}) })
  res.end(req.method === 'HEAD' ? undefined : body)
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) throw new UiRefusal(413, 'request body too large')
    chunks.push(chunk as Buffer)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new UiRefusal(400, 'the request body is not JSON')
  }
}
