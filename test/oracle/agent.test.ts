import { strict as assert } from 'node:assert'
import { z } from 'zod'
import { DEFAULT_CONFIG } from '../../src/core/config/index.js'
import { UsageError } from '../../src/core/errors.js'
import { createLlmClient, type LlmClient } from '../../src/core/llm/index.js'
import { runAgent, type AgentBounds, type AgentRun } from '../../src/core/oracle/agent.js'
import { NO_MEMORY, READ_ONLY, type AnyToolSpec } from '../../src/core/tools/index.js'
import { startFakeOpenAIServer, type FakeOpenAIServer, type ReceivedRequest } from '../helpers/fake-openai-server.js'

/** A tool of the test's own: `key` in, whatever `answer` says out. */
function tool(name: string, answer: (key: string) => Promise<string>): AnyToolSpec {
  return {
    name,
    title: name,
    description: `Looks up a key (${name}).`,
    input: { key: z.string().describe('The key.') },
    output: {},
    annotations: READ_ONLY,
    run: async (args: { key: string }) => ({ structured: {}, text: await answer(args.key), remember: { summary: '', insights: [], symbols: [], files: [] } }),
  }
}

const lookup = tool('lookup', async (key) => `value of ${key}`)

/** The messages a request sent, as the fake server received them. */
type Wire = Array<{ role: string; content: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string }>
const messagesOf = (request: ReceivedRequest): Wire => request.body.messages as unknown as Wire

describe('oracle agent loop (loopback OpenAI-compatible server)', function () {
  this.timeout(30_000)
  let server: FakeOpenAIServer
  beforeEach(async () => {
    server = await startFakeOpenAIServer()
  })
  afterEach(() => server.close())

  const client = (model: string): LlmClient =>
    createLlmClient({ ...DEFAULT_CONFIG.llm, provider: 'openai', baseUrl: server.baseUrl, model, apiKeyEnv: 'TEST_LLM_KEY', timeoutMs: 5_000 }, { env: {}, retry: { attempts: 1 } })!

  const run = (overrides: Partial<Omit<AgentRun, 'bounds'>> & { bounds?: Partial<AgentBounds> } = {}) => {
    const warnings: string[] = []
    const model = client('test/model')
    const promise = runAgent({
      messages: [
        { role: 'system', content: 'You answer questions.' },
        { role: 'user', content: 'What is the value of a?' },
      ],
      tools: [lookup],
      memory: NO_MEMORY,
      agent: model,
      answer: model,
      toolResultTokens: 1000,
      maxAnswerTokens: 500,
      warn: (message) => warnings.push(message),
      ...overrides,
      bounds: { maxTurns: 10, tokenBudget: 100_000, deadlineMs: 10_000, ...overrides.bounds },
    })
    return { promise, warnings }
  }

  it('runs a tool the model calls and gives it the result as data, then answers', async () => {
    server.replyNext({ toolCalls: [{ id: 'call_a', name: 'lookup', arguments: { key: 'a' } }] }, { text: 'It is `value of a`.' })
    const { promise } = run()
    const result = await promise
    assert.equal(result.text, 'It is `value of a`.')
    assert.equal(result.stopped, null)
    assert.equal(result.turns, 2)
    assert.equal(result.toolCalls.length, 1)
    const [call] = result.toolCalls
    assert.deepEqual({ ...call, durationMs: 0 }, { id: 'call_a', name: 'lookup', arguments: { key: 'a' }, result: 'value of a', status: 'ok', durationMs: 0 })
    const [first, second] = server.chatRequests
    const tools = first!.body.tools as Array<{ function: { name: string; parameters: { properties: Record<string, unknown>; required: string[] } } }>
    assert.deepEqual(tools.map((t) => t.function.name), ['lookup'])
    assert.deepEqual(tools[0]!.function.parameters.required, ['key'])
    const sent = messagesOf(second!)
    assert.deepEqual(sent[2]!.tool_calls!.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]), [['call_a', 'lookup', { key: 'a' }]])
    assert.equal(sent[3]!.role, 'tool')
    assert.equal(sent[3]!.tool_call_id, 'call_a')
    assert.match(sent[3]!.content!, /^<data-([0-9a-f]{16}) label="tool-result" tool="lookup" status="ok">\nvalue of a\n<\/data-\1>$/)
  })

  it('runs the calls of one turn in parallel', async () => {
    // Each tool waits until the other has started: run one after the other, the first would never finish.
    let started = 0
    let release: () => void = () => {}
    const bothStarted = new Promise<void>((resolve) => (release = resolve))
    const meet = async (key: string): Promise<string> => {
      if (++started === 2) release()
      await bothStarted
      return `met ${key}`
    }
    server.replyNext({ toolCalls: [{ id: 'one', name: 'left', arguments: { key: 'x' } }, { id: 'two', name: 'right', arguments: { key: 'y' } }] }, { text: 'done' })
    const { promise } = run({ tools: [tool('left', meet), tool('right', meet)], bounds: { deadlineMs: 3_000 } })
    const result = await promise
    assert.deepEqual(result.toolCalls.map((c) => [c.id, c.status, c.result]), [['one', 'ok', 'met x'], ['two', 'ok', 'met y']])
    assert.equal(result.stopped, null)
    const sent = messagesOf(server.chatRequests[1]!)
    assert.deepEqual(sent.filter((m) => m.role === 'tool').map((m) => m.tool_call_id), ['one', 'two'])
  })

  it('returns a failing tool, an unknown tool and malformed arguments to the model as errors, and goes on', async () => {
    const refusing = tool('refusing', async () => {
      throw new UsageError('no such key here')
    })
    server.replyNext(
      {
        toolCalls: [
          { id: 'e1', name: 'refusing', arguments: { key: 'a' } },
          { id: 'e2', name: 'nonexistent', arguments: {} },
          { id: 'e3', name: 'lookup', arguments: '{"key": ' },
          { id: 'e4', name: 'lookup', arguments: { key: 5 } },
          { id: 'e5', name: 'lookup', arguments: { key: 'b', extra: true } },
        ],
      },
      { toolCalls: [{ id: 'ok', name: 'lookup', arguments: { key: 'b' } }] },
      { text: 'b is `value of b`.' },
    )
    const { promise } = run({ tools: [lookup, refusing] })
    const result = await promise
    assert.equal(result.text, 'b is `value of b`.')
    const byId = Object.fromEntries(result.toolCalls.map((c) => [c.id, c]))
    assert.deepEqual(Object.values(byId).map((c) => c.status), ['error', 'error', 'error', 'error', 'error', 'ok'])
    assert.equal(byId.e1!.result, 'no such key here')
    assert.match(byId.e2!.result, /^no tool named "nonexistent"; the tools are lookup, refusing$/)
    assert.equal(byId.e3!.arguments, '{"key": ')
    assert.match(byId.e3!.result, /^lookup was called with arguments that are not a JSON object/)
    assert.match(byId.e4!.result, /^lookup was called with invalid arguments: key: Expected string, received number$/)
    assert.match(byId.e5!.result, /Unrecognized key\(s\) in object: 'extra'/)
    const sent = messagesOf(server.chatRequests[1]!)
    assert.match(sent.find((m) => m.tool_call_id === 'e1')!.content!, /status="error">\nno such key here\n/)
  })

  it('abandons a hung tool at the deadline and answers from what it has, saying so', async () => {
    const hung = tool('hung', () => new Promise<string>(() => {}))
    server.replyNext({ toolCalls: [{ id: 'h', name: 'hung', arguments: { key: 'a' } }, { id: 'q', name: 'lookup', arguments: { key: 'a' } }] }, { text: 'Partial answer.' })
    const started = Date.now()
    // Long enough for the first request and the quick tool on a loaded machine: at 400 ms it failed once at load 15.
    const { promise, warnings } = run({ tools: [lookup, hung], bounds: { deadlineMs: 2_000 } })
    const result = await promise
    const took = Date.now() - started
    assert.ok(took >= 1_950 && took < 10_000, `${took} ms`)
    assert.equal(result.stopped, 'deadline')
    assert.deepEqual(result.toolCalls.map((c) => [c.id, c.status]), [['h', 'timeout'], ['q', 'ok']])
    assert.ok(result.toolCalls[0]!.durationMs > 0, String(result.toolCalls[0]!.durationMs))
    assert.match(result.text, /^Partial answer\.\n\n_\(Stopped looking further at the time limit \(llm\.agent_timeout_ms\); this answer is from what was gathered by then\.\)_$/)
    assert.match(warnings.join('\n'), /stopped calling tools at the time limit/)
    const last = server.chatRequests.at(-1)!
    assert.equal(last.body.tools, undefined, 'the answer is asked for without tools')
    assert.match(messagesOf(last).at(-1)!.content!, /You have reached the time limit .*: no more tools/)
  })

  it('stops calling tools at max_turns: the last request has no tools', async () => {
    const again = { toolCalls: [{ name: 'lookup', arguments: { key: 'a' } }] }
    server.replyNext(again, again, { text: 'Answer after the limit.' })
    const { promise } = run({ bounds: { maxTurns: 3 } })
    const result = await promise
    assert.equal(server.chatRequests.length, 3)
    assert.equal(result.turns, 3)
    assert.equal(result.stopped, 'max_turns')
    assert.equal(result.toolCalls.length, 2)
    assert.ok(server.chatRequests[1]!.body.tools)
    assert.equal(server.chatRequests[2]!.body.tools, undefined)
    assert.match(result.text, /^Answer after the limit\.\n\n_\(Stopped looking further at the number of tool-calling turns \(llm\.max_turns\)/)
  })

  it('stops calling tools once the token budget is spent', async () => {
    server.replyNext({ toolCalls: [{ name: 'lookup', arguments: { key: 'a' } }], usage: { prompt_tokens: 900, completion_tokens: 200 } }, { text: 'Budget answer.' })
    const { promise } = run({ bounds: { tokenBudget: 1000 } })
    const result = await promise
    assert.equal(result.stopped, 'token_budget')
    assert.equal(server.chatRequests.length, 2)
    assert.equal(server.chatRequests[1]!.body.tools, undefined)
  })

  it('streams the final answer; with a model of its own, the answer model writes it from what the agent gathered', async () => {
    const deltas: string[] = []
    server.replyNext({ toolCalls: [{ id: 's', name: 'lookup', arguments: { key: 'a' } }] }, { text: 'Streamed answer in words.' })
    const same = await run({ onText: (delta) => deltas.push(delta) }).promise
    assert.equal(same.text, 'Streamed answer in words.')
    assert.ok(deltas.length > 1, 'word by word')
    assert.equal(deltas.join(''), same.text)

    server.requests.length = 0
    deltas.length = 0
    server.replyNext({ toolCalls: [{ id: 't', name: 'lookup', arguments: { key: 'a' } }] }, { text: 'The agent would answer.' }, { text: 'The answer model answers.' })
    const tiered = await run({ agent: client('test/small'), answer: client('test/large'), onText: (delta) => deltas.push(delta) }).promise
    assert.equal(tiered.text, 'The answer model answers.')
    assert.equal(deltas.join(''), tiered.text)
    assert.deepEqual(server.chatRequests.map((r) => [r.body.model, r.body.stream, r.body.tools !== undefined]), [
      ['test/small', false, true],
      ['test/small', false, true],
      ['test/large', true, false],
    ])
    assert.match(messagesOf(server.chatRequests[2]!).at(-1)!.content!, /label="tool-result" tool="lookup"/)
  })
})
