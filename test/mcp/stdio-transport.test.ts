import { strict as assert } from 'node:assert'
import { PassThrough } from 'node:stream'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { StdioJsonRpcTransport } from '../../src/core/mcp/stdio-transport.js'

describe('StdioJsonRpcTransport', () => {
  it('answers a line over the size cap with a Parse error, drops it to its newline and reads on', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const transport = new StdioJsonRpcTransport(input, output, 64)
    const received: JSONRPCMessage[] = []
    const errors: string[] = []
    transport.onmessage = (message) => received.push(message)
    transport.onerror = (error) => errors.push(error.message)
    await transport.start()
    // The long line arrives in pieces, its newline in the same chunk as the next message.
    input.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(80)}`)
    input.write('x'.repeat(80))
    input.write('"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\r\n')
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(received, [{ jsonrpc: '2.0', id: 2, method: 'ping' }])
    const replies = String(output.read() ?? '').trim().split('\n').map((line) => JSON.parse(line))
    assert.deepEqual(replies, [{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: a message longer than 64 bytes' } }])
    assert.deepEqual(errors, ['Parse error: a message longer than 64 bytes'])
    await transport.close()
  })
})
