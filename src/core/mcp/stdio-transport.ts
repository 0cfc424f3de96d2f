/**
 * MCP over stdio, one JSON-RPC message per line, answering the lines the SDK's StdioServerTransport
 * only reports to `onerror` (leaving the client waiting for a reply that never comes): JSON-RPC 2.0
 * requires a Parse error (-32700) for a line that is not JSON and an Invalid Request (-32600) for
 * JSON that is not a message. Either is answered and the next line served. Messages are read and
 * written exactly as the SDK's transport does (its schema, its serialiser, its 10 MB line cap).
 */
import { STDIO_DEFAULT_MAX_BUFFER_SIZE, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { Readable, Writable } from 'node:stream'

const NEWLINE = 0x0a

export class StdioJsonRpcTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** Bytes after the last newline read. */
  private pending: Buffer = Buffer.alloc(0)
  /** Within a line longer than the cap: its bytes are dropped up to its newline. */
  private skipping = false

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxLineBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData)
    this.input.on('error', this.onInputError)
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData)
    this.input.off('error', this.onInputError)
    if (this.input.listenerCount('data') === 0) this.input.pause()
    this.pending = Buffer.alloc(0)
    this.onclose?.()
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(serializeMessage(message))) resolve()
      else this.output.once('drain', resolve)
    })
  }

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error)
  }

  private readonly onData = (chunk: Buffer): void => {
    let data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    for (let end = data.indexOf(NEWLINE); end >= 0; end = data.indexOf(NEWLINE)) {
      const line = data.subarray(0, end)
      data = data.subarray(end + 1)
      if (this.skipping) this.skipping = false
      else this.receive(line.toString('utf8').replace(/\r$/, ''))
    }
    if (!this.skipping && data.length > this.maxLineBytes) {
      this.skipping = true
      this.reject(ErrorCode.ParseError, `Parse error: a message longer than ${this.maxLineBytes} bytes`, null)
    }
    this.pending = this.skipping ? Buffer.alloc(0) : data
  }

  private receive(line: string): void {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      this.reject(ErrorCode.ParseError, `Parse error: ${(error as Error).message}`, null)
      return
    }
    const message = JSONRPCMessageSchema.safeParse(value)
    if (message.success) this.onmessage?.(message.data)
    else this.reject(ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 request, notification or response', attemptedRequestId(value))
  }

  /** Answers a line that is no message; the server's log hears of it too. */
  private reject(code: ErrorCode, message: string, id: RequestId | null): void {
    this.onerror?.(new Error(message))
    // The SDK's message type has no id-less error; JSON-RPC requires `id: null` when none could be read.
    this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((error: unknown) => this.onerror?.(error as Error))
  }
}

/** The id of what was meant as a request (it names a method), for the client waiting on it; else null. */
function attemptedRequestId(value: unknown): RequestId | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('method' in value)) return null
  const { id } = value as { id?: unknown }
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null
}
