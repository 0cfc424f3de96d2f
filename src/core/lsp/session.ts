/**
 * Language servers for one query (or one oracle answer): each started on first need, all bounded
 * by one deadline. A server that does not answer in time, or dies, is killed and reported in one
 * warning; the answer is then given without what it would have added.
 */
import { promises as fs } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { findInstalled } from '../executables/index.js'
import type { LanguageId } from '../parse/types.js'
import { LspConnection, LspError } from './connection.js'
import { LSP_LANGUAGE, serverFor, type ServerSpec } from './servers.js'

export interface LspOptions {
  /** The repository's working tree. */
  root: string
  /** How long all the servers of this session get, start-up included. */
  timeoutMs: number
  warn(message: string): void
}

export interface Diagnostic {
  path: string
  /** 1-based. */
  line: number
  /** 0-based. */
  column: number
  severity: 'error' | 'warning' | 'information' | 'hint'
  message: string
  /** The tool that reported it (`typescript`, `Pyright`), when it says. */
  source?: string
}

interface Server {
  connection: LspConnection
  opened: Set<string>
  /** Diagnostics by document URI, as last published. */
  published: Map<string, unknown[]>
  waiters: Map<string, () => void>
}

const MAX_HOVER = 1_000
/** No new diagnostics for a file this long after the last: the server has said all it will. */
const QUIET_MS = 1_000
const SEVERITIES = ['error', 'error', 'warning', 'information', 'hint'] as const

export class LspSession {
  private readonly servers = new Map<ServerSpec, Promise<Server | null>>()
  private readonly deadline: number
  private readonly failed = new Set<ServerSpec>()

  constructor(private readonly options: LspOptions) {
    this.deadline = Date.now() + options.timeoutMs
  }

  /** The hover text (a type, a signature) at a position, or undefined. */
  async hover(path: string, language: LanguageId, line: number, column: number): Promise<string | undefined> {
    const opened = await this.open(path, language)
    if (!opened) return undefined
    const result = await this.bounded(opened.spec, opened.server.connection.request<Hover | null>('textDocument/hover', { textDocument: { uri: this.uri(path) }, position: { line: line - 1, character: column } }))
    return result ? hoverText(result) : undefined
  }

  /** The diagnostics the servers publish for these files (waits for each file's first publication, within the deadline). */
  async diagnostics(files: Array<{ path: string; language: LanguageId }>): Promise<Diagnostic[]> {
    const found: Diagnostic[] = []
    for (const { path, language } of files) {
      const opened = await this.open(path, language)
      if (!opened) continue
      const { server, spec } = opened
      const uri = this.uri(path)
      const next = (): Promise<true> => new Promise<true>((resolve) => server.waiters.set(uri, () => resolve(true)))
      if (!server.published.has(uri) && !(await this.bounded(spec, next()))) continue
      // Servers publish in steps (tsserver: syntax, then semantics): the list is the one left after a quiet spell.
      while (Date.now() < this.deadline && (await settled(next(), Math.min(QUIET_MS, this.deadline - Date.now()))) === 'published');
      for (const raw of (server.published.get(uri) ?? []) as RawDiagnostic[]) {
        found.push({
          path,
          line: raw.range.start.line + 1,
          column: raw.range.start.character,
          severity: SEVERITIES[raw.severity ?? 1] ?? 'error',
          message: raw.message,
          ...(raw.source ? { source: raw.source } : {}),
        })
      }
    }
    return found
  }

  /** Kills every server: a polite shutdown could hang on the one that already did. */
  async close(): Promise<void> {
    for (const pending of this.servers.values()) (await pending)?.connection.kill()
  }

  private async open(path: string, language: LanguageId): Promise<{ server: Server; spec: ServerSpec } | undefined> {
    const spec = serverFor(language)
    if (!spec || this.failed.has(spec)) return undefined
    let pending = this.servers.get(spec)
    if (!pending) this.servers.set(spec, (pending = this.start(spec)))
    const server = await pending
    if (!server) return undefined
    const uri = this.uri(path)
    if (!server.opened.has(uri)) {
      server.opened.add(uri)
      const text = await fs.readFile(join(this.options.root, path), 'utf8').catch(() => null)
      if (text === null) return undefined
      server.connection.notify('textDocument/didOpen', { textDocument: { uri, languageId: LSP_LANGUAGE[language] ?? language, version: 1, text } })
    }
    return this.failed.has(spec) ? undefined : { server, spec }
  }

  private async start(spec: ServerSpec): Promise<Server | null> {
    const command = await findInstalled(spec.command, this.options.root)
    if (!command) return null
    const connection = new LspConnection(command, spec.args, this.options.root)
    const server: Server = { connection, opened: new Set(), published: new Map(), waiters: new Map() }
    connection.on('textDocument/publishDiagnostics', (params) => {
      const { uri, diagnostics } = params as { uri: string; diagnostics: unknown[] }
      server.published.set(uri, diagnostics)
      server.waiters.get(uri)?.()
    })
    const rootUri = pathToFileURL(this.options.root).href
    const initialized = await this.bounded(
      spec,
      connection.request('initialize', {
        processId: process.pid,
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: 'repository' }],
        capabilities: { textDocument: { hover: { contentFormat: ['markdown', 'plaintext'] }, publishDiagnostics: {} }, workspace: { configuration: true } },
        initializationOptions: spec.initializationOptions?.() ?? {},
      }),
    )
    if (initialized === undefined) {
      connection.kill()
      return null
    }
    connection.notify('initialized', {})
    return server
  }

  /** `work`, unless the deadline comes first or the server fails: then one warning, the server killed, undefined. */
  private async bounded<T>(spec: ServerSpec, work: Promise<T>): Promise<T | undefined> {
    if (this.failed.has(spec)) return undefined
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(0, this.deadline - Date.now()))))
    try {
      const outcome = await Promise.race([work, timeout])
      if (outcome !== 'timeout') return outcome as T
      this.giveUp(spec, `did not answer within ${this.options.timeoutMs} ms`)
    } catch (error) {
      if (!(error instanceof LspError)) throw error
      this.giveUp(spec, error.message)
    } finally {
      clearTimeout(timer)
    }
    return undefined
  }

  private giveUp(spec: ServerSpec, why: string): void {
    if (this.failed.has(spec)) return
    this.failed.add(spec)
    this.options.warn(`warning: ${spec.command} ${why}; answering without it`)
    // One still starting is killed by start() itself, when its initialize request gives up.
    void this.servers.get(spec)?.then((server) => server?.connection.kill())
  }

  private uri(path: string): string {
    return pathToFileURL(join(this.options.root, path)).href
  }
}

/** 'published' when `publication` comes within `ms`, else 'quiet'. */
async function settled(publication: Promise<true>, ms: number): Promise<'published' | 'quiet'> {
  let timer: NodeJS.Timeout | undefined
  const quiet = new Promise<'quiet'>((resolve) => (timer = setTimeout(() => resolve('quiet'), Math.max(0, ms))))
  try {
    return await Promise.race([publication.then(() => 'published' as const), quiet])
  } finally {
    clearTimeout(timer)
  }
}

interface Hover {
  contents: string | { kind?: string; language?: string; value: string } | Array<string | { language: string; value: string }>
}

interface RawDiagnostic {
  range: { start: { line: number; character: number } }
  severity?: number
  message: string
  source?: string
}

/** The type in a hover: its first code block (servers put the signature there), else its text. */
function hoverText(hover: Hover): string | undefined {
  const parts = Array.isArray(hover.contents) ? hover.contents : [hover.contents]
  for (const part of parts) {
    if (typeof part !== 'string' && 'language' in part && part.language) return clip(part.value)
    const text = typeof part === 'string' ? part : part.value
    const fenced = /```[\w-]*\n([\s\S]*?)\n```/.exec(text)
    if (fenced) return clip(fenced[1]!)
  }
  const first = parts[0]
  const text = first === undefined ? '' : typeof first === 'string' ? first : first.value
  return text.trim() === '' ? undefined : clip(text)
}

function clip(text: string): string {
  return text.trim().slice(0, MAX_HOVER)
}
