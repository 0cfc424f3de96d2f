/**
 * A minimal Language Server Protocol client for `pyright-langserver --stdio` (the npm package's
 * server; works offline): open a workspace, ask textDocument/references at a position. Only what
 * the Python references benchmark needs.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createRequire } from 'node:module'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL, fileURLToPath } from 'node:url'

const SYSTEM_PYTHON = '/usr/bin/python3'

export interface Location {
  /** Absolute path. */
  path: string
  /** 0-based. */
  line: number
  character: number
}

export class PyrightClient {
  private readonly child: ChildProcessWithoutNullStreams
  private buffer = Buffer.alloc(0)
  private nextId = 1
  private ready!: () => void
  /** Settled once the server has listed the workspace's files: answers before that are empty. */
  private readonly listed = new Promise<void>((resolve) => (this.ready = resolve))
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()

  private constructor(private readonly root: string) {
    const server = join(dirname(createRequire(import.meta.url).resolve('pyright/package.json')), 'langserver.index.js')
    this.child = spawn(process.execPath, [server, '--stdio'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] })
    this.child.stdout.on('data', (chunk: Buffer) => this.receive(chunk))
    this.child.stderr.resume()
    if (process.env.PYRIGHT_DEBUG) this.child.stderr.pipe(process.stderr)
  }

  /** Starts the server on `root` (pyright reads the root's pyproject.toml and finds a `src/` layout itself). */
  static async start(root: string): Promise<PyrightClient> {
    const client = new PyrightClient(root)
    const uri = pathToFileURL(root).href
    await client.request('initialize', {
      processId: process.pid,
      rootUri: uri,
      workspaceFolders: [{ uri, name: 'corpus' }],
      capabilities: { workspace: { configuration: true, workspaceFolders: true }, textDocument: { references: {} } },
    })
    client.notify('initialized', {})
    client.notify('workspace/didChangeConfiguration', { settings: { python: client.settings('python') } })
    await client.listed
    return client
  }

  /** Every reference of the symbol at `path:line:character` (0-based), its declaration left out. */
  async references(path: string, line: number, character: number): Promise<Location[]> {
    const result = (await this.request('textDocument/references', {
      textDocument: { uri: pathToFileURL(path).href },
      position: { line, character },
      context: { includeDeclaration: false },
    })) as Array<{ uri: string; range: { start: { line: number; character: number } } }> | null
    return (result ?? []).map((r) => ({ path: fileURLToPath(r.uri), line: r.range.start.line, character: r.range.start.character }))
  }

  async stop(): Promise<void> {
    await this.request('shutdown', null).catch(() => undefined)
    this.notify('exit', null)
    this.child.kill()
  }

  /**
   * The settings pyright asks for, by section. The interpreter is the system's, whose
   * site-packages hold none of the corpora: an installed copy of a package (pyenv's click, say)
   * would otherwise shadow the corpus's own `src/` and its uses would go to the installed one.
   */
  private settings(section: string | undefined): unknown {
    const analysis = { diagnosticMode: 'openFilesOnly', autoSearchPaths: true, extraPaths: existsSync(join(this.root, 'src')) ? [join(this.root, 'src')] : [] }
    if (section === 'python') return { pythonPath: SYSTEM_PYTHON, analysis }
    if (section === 'python.analysis') return analysis
    return {}
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++
    this.send({ jsonrpc: '2.0', id, method, params })
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }))
  }

  private notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params })
  }

  private send(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8')
    this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`)
    this.child.stdin.write(body)
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk])
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n')
      if (end < 0) return
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, end).toString('ascii'))?.[1])
      if (this.buffer.length < end + 4 + length) return
      const message = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString('utf8')) as {
        id?: number
        method?: string
        params?: unknown
        result?: unknown
        error?: { message: string }
      }
      this.buffer = this.buffer.subarray(end + 4 + length)
      this.dispatch(message)
    }
  }

  private dispatch(message: { id?: number; method?: string; params?: unknown; result?: unknown; error?: { message: string } }): void {
    if (message.method !== undefined && message.id !== undefined) {
      // A request from the server (workspace/configuration, capability registration): answer it plainly.
      const items = (message.params as { items?: Array<{ section?: string }> } | undefined)?.items ?? []
      const result = message.method === 'workspace/configuration' ? items.map((item) => this.settings(item.section)) : null
      this.send({ jsonrpc: '2.0', id: message.id, result })
      return
    }
    if (message.id === undefined) {
      if (message.method !== 'window/logMessage') return
      const text = (message.params as { message: string }).message
      if (process.env.PYRIGHT_DEBUG) process.stderr.write(`pyright: ${text}\n`)
      if (/^Found \d+ source files?/.test(text)) this.ready()
      return
    }
    const waiting = this.pending.get(message.id)
    if (!waiting) return
    this.pending.delete(message.id)
    if (message.error) waiting.reject(new Error(message.error.message))
    else waiting.resolve(message.result)
  }
}
