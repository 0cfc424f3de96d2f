/**
 * A language server over stdio: JSON-RPC messages framed by `Content-Length` headers (the LSP base
 * protocol). Only what enrichment needs — requests, notifications both ways, answering the few
 * requests servers send (configuration, capability registration) with null — and a kill that
 * never waits on the server.
 */
import { spawn, type ChildProcess } from 'node:child_process'

type Handler = (params: unknown) => void

/** A server too slow to answer, dead, or answering with an error: the caller answers without it. */
export class LspError extends Error {}

export class LspConnection {
  private readonly child: ChildProcess
  private buffer = Buffer.alloc(0)
  private nextId = 1
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>()
  private readonly handlers = new Map<string, Handler>()
  private exited: string | undefined
  /** When the server last sent anything (Date.now()): a kept server silent long past a deadline is hung. */
  lastHeardAt = Date.now()

  constructor(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] })
    this.child.stdout!.on('data', (chunk: Buffer) => this.receive(chunk))
    // A write to a server that died is reported by the exit below, not as an unhandled error.
    this.child.stdin!.on('error', () => {})
    this.child.on('error', (error) => this.fail(`could not be started: ${error.message}`))
    this.child.on('exit', (code, signal) => this.fail(`exited (${signal ?? `code ${code}`})`))
  }

  /** Why the server is gone (exited, stopped, could not start), or undefined while it runs. */
  get gone(): string | undefined {
    return this.exited
  }

  get pid(): number | undefined {
    return this.child.pid
  }

  request<T>(method: string, params: unknown): Promise<T> {
    if (this.exited) return Promise.reject(new LspError(this.exited))
    const id = this.nextId++
    this.send({ jsonrpc: '2.0', id, method, params })
    return new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject }))
  }

  notify(method: string, params: unknown): void {
    if (!this.exited) this.send({ jsonrpc: '2.0', method, params })
  }

  on(method: string, handler: Handler): void {
    this.handlers.set(method, handler)
  }

  /** Kills the server without waiting for a polite shutdown (it may be the one that hangs). */
  kill(): void {
    this.fail('was stopped')
    this.child.kill('SIGKILL')
  }

  private send(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8')
    this.child.stdin!.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]))
  }

  private receive(chunk: Buffer): void {
    this.lastHeardAt = Date.now()
    this.buffer = Buffer.concat([this.buffer, chunk])
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n')
      if (headerEnd < 0) return
      const length = /content-length:\s*(\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString('ascii'))
      if (!length) {
        this.fail('sent a message without Content-Length')
        return
      }
      const start = headerEnd + 4
      const end = start + Number(length[1])
      if (this.buffer.length < end) return
      const body = this.buffer.subarray(start, end).toString('utf8')
      this.buffer = this.buffer.subarray(end)
      try {
        this.dispatch(JSON.parse(body) as Message)
      } catch {
        // Not JSON: a server writing logs to stdout. Ignored, as clients do.
      }
    }
  }

  private dispatch(message: Message): void {
    if (message.method !== undefined) {
      // A request from the server (workspace/configuration, client/registerCapability…): null satisfies them.
      if (message.id !== undefined) this.send({ jsonrpc: '2.0', id: message.id, result: message.method === 'workspace/configuration' ? [] : null })
      else this.handlers.get(message.method)?.(message.params)
      return
    }
    const waiting = typeof message.id === 'number' ? this.pending.get(message.id) : undefined
    if (!waiting) return
    this.pending.delete(message.id as number)
    if (message.error) waiting.reject(new LspError(message.error.message ?? 'error'))
    else waiting.resolve(message.result)
  }

  private fail(why: string): void {
    this.exited ??= why
    for (const { reject } of this.pending.values()) reject(new LspError(why))
    this.pending.clear()
  }
}

interface Message {
  id?: number | string
  method?: string
  params?: unknown
  result?: unknown
  error?: { message?: string }
}
