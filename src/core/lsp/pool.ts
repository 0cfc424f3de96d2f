/**
 * The language servers of one repository, kept between queries by whoever lives long enough to
 * profit (the query daemon, the MCP server: tsserver's start is most of a `refs --lsp`), or for a
 * single query by the CLI. Each server is started on first need; the documents it was shown are
 * kept in step with the working tree by content hash (didOpen, didChange with the full text when
 * the content changed, didClose when the file is gone), so that a kept server never answers from
 * an old text. Sessions (session.ts) bound each query's use of them by its own deadline.
 *
 * A server that exited is started again once at its next need; after a second exit it is left out
 * for the pool's life (one warning per query that wanted it). One that missed a query's deadline is
 * kept, as it may just be loading a large project, until it stays silent for a whole further
 * `timeout_ms`: then it is hung, killed, and counts as an exit. Unused for the idle time its last
 * session named, all servers are stopped (the next need starts them again); close() kills them at once.
 */
import { createHash } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { findInstalled, trustedPath } from '../executables/index.js'
import type { LanguageId } from '../parse/types.js'
import { LspConnection, LspError } from './connection.js'
import { LSP_LANGUAGE, type ServerSpec } from './servers.js'

export interface RunningServer {
  spec: ServerSpec
  connection: LspConnection
  /** Settles once the server answered `initialize` (rejects with an LspError when it failed). */
  ready: Promise<true>
  /** Diagnostics by document URI, as last published for the document's current text. */
  published: Map<string, unknown[]>
  /** When a request to it last missed a query's deadline (anything it sent since tells it is alive). */
  missedAt?: number
  /** Calls waiting for the next publication, by document URI. */
  readonly publicationWaiters: Map<string, Array<() => void>>
  /** The text each open document was last synced with, by URI. */
  readonly documents: Map<string, { hash: string; version: number }>
  /** Document syncs run one after another: two interleaved reads could send an older text last. */
  syncing: Promise<unknown>
}

export class LspServers {
  private readonly running = new Map<ServerSpec, Promise<RunningServer | null>>()
  /** Every server spawned and not yet killed: killed synchronously by close(), before the process exits. */
  private readonly connections = new Set<LspConnection>()
  private readonly exits = new Map<ServerSpec, number>()
  private sessions = 0
  private idleTimer: NodeJS.Timeout | undefined

  constructor(readonly root: string) {}

  /** A session starts using the servers: no idle stop while any does. */
  enter(): void {
    this.sessions++
    clearTimeout(this.idleTimer)
  }

  /** A session is done; with none left, the servers stop after `idleMs` (never, without one). */
  leave(idleMs: number | undefined): void {
    this.sessions--
    clearTimeout(this.idleTimer)
    if (this.sessions > 0 || idleMs === undefined) return
    this.idleTimer = setTimeout(() => this.close(), idleMs)
    this.idleTimer.unref()
  }

  /**
   * The running server for `spec`, started (or started again after it exited, once) now; null when
   * it is not installed. Throws an LspError when it exited again and is left out.
   */
  async acquire(spec: ServerSpec, timeoutMs: number): Promise<RunningServer | null> {
    const pending = this.running.get(spec)
    if (pending) {
      const server = await pending
      if (server === null) return null
      const hung = server.missedAt !== undefined && server.connection.lastHeardAt < server.missedAt && Date.now() - server.missedAt >= timeoutMs
      const gone = server.connection.gone ?? (hung ? `stopped answering (silent for ${Date.now() - server.missedAt!} ms)` : undefined)
      if (gone === undefined) return server
      if (this.running.get(spec) === pending) {
        this.running.delete(spec)
        this.kill(server.connection)
        this.exits.set(spec, (this.exits.get(spec) ?? 0) + 1)
      }
      if ((this.exits.get(spec) ?? 0) > 1) throw new LspError(`${gone}, after being started again once`)
      return this.acquire(spec, timeoutMs)
    }
    if ((this.exits.get(spec) ?? 0) > 1) throw new LspError('exited twice; not started again')
    const starting = this.start(spec)
    this.running.set(spec, starting)
    return starting
  }

  /**
   * Shows the server the file's current text (opening it, or changing it when its content hash
   * moved, closing it when the file is gone). False when the file cannot be read.
   */
  sync(server: RunningServer, path: string, language: LanguageId): Promise<boolean> {
    const done = server.syncing.then(() => this.syncNow(server, path, language))
    server.syncing = done.catch(() => undefined)
    return done
  }

  uri(path: string): string {
    return pathToFileURL(join(this.root, path)).href
  }

  /** Kills every server now (the idle stop, the owner's exit); a later need starts them again. */
  close(): void {
    clearTimeout(this.idleTimer)
    this.running.clear()
    for (const connection of this.connections) this.kill(connection)
  }

  private kill(connection: LspConnection): void {
    connection.kill()
    this.connections.delete(connection)
  }

  private async syncNow(server: RunningServer, path: string, language: LanguageId): Promise<boolean> {
    const uri = this.uri(path)
    const text = await fs.readFile(join(this.root, path), 'utf8').catch(() => null)
    const document = server.documents.get(uri)
    if (text === null) {
      if (document) {
        server.connection.notify('textDocument/didClose', { textDocument: { uri } })
        server.documents.delete(uri)
        server.published.delete(uri)
      }
      return false
    }
    const hash = createHash('sha1').update(text).digest('hex')
    if (!document) {
      server.documents.set(uri, { hash, version: 1 })
      server.connection.notify('textDocument/didOpen', { textDocument: { uri, languageId: LSP_LANGUAGE[language] ?? language, version: 1, text } })
    } else if (document.hash !== hash) {
      const version = document.version + 1
      server.documents.set(uri, { hash, version })
      // What was published is about the old text: wait for the server's word on the new one.
      server.published.delete(uri)
      server.connection.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] })
    }
    return true
  }

  private async start(spec: ServerSpec): Promise<RunningServer | null> {
    const command = findInstalled(spec.command, this.root)
    if (!command) return null
    // The programs the server runs itself (pyright: `python3`) are looked up where its own was.
    const connection = new LspConnection(command, spec.args, this.root, { ...process.env, ...spec.env, PATH: trustedPath(this.root) })
    this.connections.add(connection)
    const server: RunningServer = { spec, connection, ready: Promise.resolve(true), published: new Map(), publicationWaiters: new Map(), documents: new Map(), syncing: Promise.resolve() }
    connection.on('textDocument/publishDiagnostics', (params) => {
      const { uri, diagnostics } = params as { uri: string; diagnostics: unknown[] }
      server.published.set(uri, diagnostics)
      const waiters = server.publicationWaiters.get(uri) ?? []
      server.publicationWaiters.delete(uri)
      for (const wake of waiters) wake()
    })
    const rootUri = pathToFileURL(this.root).href
    server.ready = connection
      .request('initialize', {
        processId: process.pid,
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: 'repository' }],
        capabilities: {
          textDocument: { synchronization: { didSave: false }, hover: { contentFormat: ['markdown', 'plaintext'] }, publishDiagnostics: {} },
          workspace: { configuration: true },
        },
        initializationOptions: spec.initializationOptions?.() ?? {},
      })
      .then(() => {
        connection.notify('initialized', {})
        return true as const
      })
    // Awaited by sessions, within their deadlines; a failure is theirs to report.
    server.ready.catch(() => undefined)
    return server
  }
}

/** Resolves at the server's next publication of diagnostics for `uri`. */
export function nextPublication(server: RunningServer, uri: string): Promise<true> {
  return new Promise<true>((resolve) => {
    const waiters = server.publicationWaiters.get(uri) ?? []
    waiters.push(() => resolve(true))
    server.publicationWaiters.set(uri, waiters)
  })
}
