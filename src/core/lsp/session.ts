/**
 * One query's (or one oracle answer's) use of the language servers (pool.ts): every request it makes,
 * start-up included, is bounded by one deadline. A server that misses it, or dies, is reported in
 * one warning and left out of the rest of the query; the answer is then given without what it
 * would have added.
 */
import type { LanguageId } from '../parse/types.js'
import { LspError } from './connection.js'
import { nextPublication, type LspServers, type RunningServer } from './pool.js'
import { serverFor, type ServerSpec } from './servers.js'

export interface LspOptions {
  /** How long all the servers of this session get, start-up included. */
  timeoutMs: number
  /** Stop the pool's servers after this long without a session (a kept pool); absent: never on its own. */
  idleMs?: number
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

const MAX_HOVER = 1_000
/** No new diagnostics for a file this long after the last: the server has said all it will. */
const QUIET_MS = 1_000
const SEVERITIES = ['error', 'error', 'warning', 'information', 'hint'] as const

export class LspSession {
  private readonly deadline: number
  private readonly failed = new Set<ServerSpec>()
  private ended = false

  constructor(
    private readonly servers: LspServers,
    private readonly options: LspOptions,
  ) {
    this.deadline = Date.now() + options.timeoutMs
    servers.enter()
  }

  /** The hover text (a type, a signature) at a position, or undefined. */
  async hover(path: string, language: LanguageId, line: number, column: number): Promise<string | undefined> {
    const server = await this.open(path, language)
    if (!server) return undefined
    const result = await this.bounded(server.spec, server, server.connection.request<Hover | null>('textDocument/hover', { textDocument: { uri: this.servers.uri(path) }, position: { line: line - 1, character: column } }))
    return result ? hoverText(result) : undefined
  }

  /** The diagnostics the servers publish for these files (waits for each file's first publication, within the deadline). */
  async diagnostics(files: Array<{ path: string; language: LanguageId }>): Promise<Diagnostic[]> {
    const found: Diagnostic[] = []
    for (const { path, language } of files) {
      const server = await this.open(path, language)
      if (!server) continue
      const uri = this.servers.uri(path)
      if (!server.published.has(uri) && !(await this.bounded(server.spec, server, nextPublication(server, uri)))) continue
      // Servers publish in steps (tsserver: syntax, then semantics): the list is the one left after a quiet spell.
      while (Date.now() < this.deadline && (await settled(nextPublication(server, uri), Math.min(QUIET_MS, this.deadline - Date.now()))) === 'published');
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

  /** The query is answered: a kept pool may now count its idle time. */
  end(): void {
    if (this.ended) return
    this.ended = true
    this.servers.leave(this.options.idleMs)
  }

  /** The server for the file's language, ready and showing the file's current text; undefined without one. */
  private async open(path: string, language: LanguageId): Promise<RunningServer | undefined> {
    const spec = serverFor(language)
    if (!spec || this.failed.has(spec)) return undefined
    const server = await this.bounded(spec, undefined, this.servers.acquire(spec, this.options.timeoutMs))
    if (!server || !(await this.bounded(spec, server, server.ready))) return undefined
    return (await this.servers.sync(server, path, language)) && !this.failed.has(spec) ? server : undefined
  }

  /** `work`, unless the deadline comes first or the server fails: then one warning and undefined. */
  private async bounded<T>(spec: ServerSpec, server: RunningServer | undefined, work: Promise<T>): Promise<T | undefined> {
    if (this.failed.has(spec)) return undefined
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(0, this.deadline - Date.now()))))
    try {
      const outcome = await Promise.race([work, timeout])
      if (outcome !== 'timeout') return outcome as T
      // A kept pool keeps it (it may be loading a large project) unless it stays silent: pool.ts.
      if (server) server.missedAt = Date.now()
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
