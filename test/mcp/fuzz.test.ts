import { strict as assert } from 'node:assert'
import { spawn } from 'node:child_process'
import { CLI, cliEnv } from '../helpers/cli.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { shopRepo } from './mcp-helpers.js'

/** Deterministic PRNG (mulberry32), so that a failing message can be reproduced. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const METHODS = ['tools/call', 'tools/list', 'ping', 'initialize', 'resources/list', 'prompts/get', 'notifications/cancelled', 'notifications/initialized', 'logging/setLevel', 'completion/complete', '', 'x'.repeat(300)]
const TOOLS = ['search_code', 'find_definition', 'find_references', 'get_repo_map', 'thread_read', 'nope', '', null]

function junkValue(rand: () => number, depth = 0): unknown {
  const pick = Math.floor(rand() * (depth > 2 ? 6 : 8))
  switch (pick) {
    case 0: return null
    case 1: return rand() < 0.5
    case 2: return Math.floor(rand() * 2 ** 40) - 2 ** 39
    case 3: return rand() * 1e308
    case 4: return String.fromCharCode(...Array.from({ length: Math.floor(rand() * 40) }, () => Math.floor(rand() * 0xd7ff)))
    case 5: return ['..', '../../etc', '/etc/passwd', 'it', '*', '\u0000', 'UserService'][Math.floor(rand() * 7)]
    case 6: return Array.from({ length: Math.floor(rand() * 4) }, () => junkValue(rand, depth + 1))
    default: return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, (_, i) => [['query', 'symbol', 'limit', 'cursor', 'path', 'scope', 'tokens', `k${i}`][Math.floor(rand() * 8)], junkValue(rand, depth + 1)]))
  }
}

function junkMessage(rand: () => number, i: number): string {
  const kind = Math.floor(rand() * 7)
  if (kind === 0) return '{"jsonrpc":"2.0","method":' // truncated JSON
  if (kind === 1) return Buffer.from(Array.from({ length: 64 }, () => Math.floor(rand() * 256)).filter((b) => b !== 10)).toString('latin1')
  if (kind === 2) return JSON.stringify(junkValue(rand))
  if (kind === 3) return JSON.stringify({ jsonrpc: '2.0', id: `r${i}`, result: junkValue(rand) }) // a response to nothing
  if (kind === 4) return JSON.stringify({ jsonrpc: rand() < 0.8 ? '2.0' : '1.0', id: rand() < 0.5 ? i : junkValue(rand), method: METHODS[Math.floor(rand() * METHODS.length)], params: junkValue(rand) })
  if (kind === 5) return JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: TOOLS[Math.floor(rand() * TOOLS.length)], arguments: junkValue(rand) } })
  return JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'x'.repeat(Math.floor(rand() * 5000)), limit: junkValue(rand) } } })
}

describe('git vlt mcp under malformed input', function () {
  this.timeout(120_000)
  let repo: GitFixture
  before(() => {
    repo = shopRepo()
  })
  after(() => repo?.cleanup())

  it('survives 1,000 malformed or random JSON-RPC messages, then answers a valid call; stdout is JSON-RPC only', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], { cwd: repo.dir, env: cliEnv({ VLT_MCP_CLIENT_ID: 'fuzz' }), stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    const answered = new Promise<any>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString()
        for (const line of stdout.split('\n').slice(0, -1)) {
          const message = JSON.parse(line)
          if (message.id === 'final') resolve(message)
        }
      })
      child.on('exit', (code) => reject(new Error(`the server exited (${code})`)))
    })
    child.stderr.resume()
    const send = (line: string): boolean => child.stdin.write(`${line}\n`)
    send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzzer', version: '1' } } }))
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))
    const rand = random(20240501)
    for (let i = 1; i <= 1000; i++) {
      if (!send(junkMessage(rand, i))) await new Promise((resolve) => child.stdin.once('drain', resolve))
    }
    send(JSON.stringify({ jsonrpc: '2.0', id: 'final', method: 'tools/call', params: { name: 'find_definition', arguments: { symbol: 'UserService' } } }))
    try {
      const final = await answered
      assert.equal(final.result.isError, undefined, JSON.stringify(final))
      assert.equal(final.result.structuredContent.definitions[0].path, 'src/user_service.py')
      // Every line on stdout parsed as JSON above; each is a JSON-RPC 2.0 message.
      for (const line of stdout.trim().split('\n')) assert.equal(JSON.parse(line).jsonrpc, '2.0')
    } finally {
      // Wait for the server to be gone before the repository is removed under it.
      const gone = new Promise((resolve) => child.once('close', resolve))
      child.kill()
      await gone
    }
  })

  it('answers a line that is not JSON with a Parse error and JSON that is not a message with Invalid Request, and serves on', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], { cwd: repo.dir, env: cliEnv({ VLT_MCP_CLIENT_ID: 'raw' }), stdio: ['pipe', 'pipe', 'pipe'] })
    const replies: any[] = []
    let pending = ''
    let waiting: { id: unknown; resolve: () => void } | undefined
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString()
      const lines = pending.split('\n')
      pending = lines.pop()!
      for (const line of lines) {
        const reply = JSON.parse(line)
        replies.push(reply)
        if (waiting && reply.id === waiting.id) waiting.resolve()
      }
    })
    child.stderr.resume()
    const exited = new Promise<never>((_, reject) => child.on('exit', (code) => reject(new Error(`the server exited (${code})`))))
    const until = (id: unknown): Promise<void> => Promise.race([new Promise<void>((resolve) => (waiting = { id, resolve })), exited])
    const send = (line: string): void => void child.stdin.write(`${line}\n`)
    try {
      send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }))
      await until(0)
      send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))
      replies.length = 0
      const bad: Array<[string, number, string | number | null]> = [
        ['this is not json', -32700, null],
        ['{"jsonrpc":"2.0","id":1,"method":', -32700, null],
        ['', -32700, null],
        ['[]', -32600, null],
        ['42', -32600, null],
        ['{"foo":"bar"}', -32600, null],
        ['{"jsonrpc":"1.0","id":7,"method":"ping"}', -32600, 7],
        ['{"jsonrpc":"2.0","id":"q","method":5}', -32600, 'q'],
      ]
      for (const [line] of bad) send(line)
      send(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'ping' }))
      await until('after')
      assert.deepEqual(replies.pop(), { jsonrpc: '2.0', id: 'after', result: {} })
      assert.deepEqual(
        replies.map((reply) => [reply.jsonrpc, reply.id, reply.error?.code, typeof reply.error?.message]),
        bad.map(([, code, id]) => ['2.0', id, code, 'string']),
      )
    } finally {
      const gone = new Promise((resolve) => child.once('close', resolve))
      child.kill()
      await gone
    }
  })
})
