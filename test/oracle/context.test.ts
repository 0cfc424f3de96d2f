import { strict as assert } from 'node:assert'
import { writeFileSync } from 'node:fs'
import { contextFileOf, readContext } from '../helpers/context.js'
import { vltAsync, vltJsonAsync } from '../helpers/cli.js'
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../helpers/fake-openai-server.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'
import { createOracleRepo, FAKE_KEY } from './fixture.js'

describe('git vlt oracle: the persistent conversation context', function () {
  this.timeout(90_000)
  let repo: GitFixture
  beforeEach(() => {
    ;({ repo } = createOracleRepo())
  })
  afterEach(() => repo.cleanup())

  const ask = (question: string, ...flags: string[]): Promise<any> => vltJsonAsync(repo.dir, ['oracle', question, '--source', 'code', '--no-log', ...flags])

  it('continues the current context: a follow-up\'s "that function" is the symbol the last answer defined', async () => {
    const first = await ask('where is acquireLock defined')
    assert.deepEqual(first.context, { name: 'default', exchanges: 1 })
    const followUp = await ask('who calls that function')
    assert.equal(followUp.context.name, 'default')
    assert.equal(followUp.context.exchanges, 2)
    assert.match(followUp.context.resolved, /^that → acquireLock\b/)
    assert.ok(followUp.sources.some((s: any) => s.sourcePath.startsWith('src/store.ts')), JSON.stringify(followUp.sources.map((s: any) => s.sourcePath)))
    const state = readContext(repo.dir, 'default')
    assert.equal(state.exchanges[0].question, 'where is acquireLock defined')
    assert.equal(state.exchanges[0].answer, first.answer, 'kept verbatim')
    assert.equal(state.lastModel, 'extractive')
    assert.equal(state.status, 'active')
  })

  it('--new starts a fresh context and makes it current; --context NAME picks or creates one; --list shows them', async () => {
    await ask('where is acquireLock defined')
    const fresh = await ask('who calls it', '--new')
    assert.match(fresh.context.name, /^ctx-\d{12}-[a-z0-9]+$/)
    assert.equal(fresh.context.exchanges, 1)
    assert.equal(fresh.context.resolved, undefined, 'a fresh context knows no "it"')
    // The fresh context is the current one now.
    assert.equal((await ask('where is writeBlobRecord defined')).context.name, fresh.context.name)
    const named = await ask('where is persistRecord defined', '--context', 'perf')
    assert.deepEqual(named.context, { name: 'perf', exchanges: 1 })
    assert.equal((await ask('who calls it')).context.name, 'perf')
    // Back to default: its "it" is still acquireLock.
    const back = await ask('who calls it', '--context', 'default')
    assert.match(back.context.resolved, /^it → acquireLock\b/)
    // --new with a name starts that one afresh.
    assert.deepEqual((await ask('where is acquireLock defined', '--context', 'perf', '--new')).context, { name: 'perf', exchanges: 1 })

    const listed = await vltJsonAsync(repo.dir, ['oracle', '--list'])
    assert.deepEqual(listed.map((c: any) => [c.name, c.current, c.exchanges]).sort(), [[fresh.context.name, false, 2], ['default', false, 2], ['perf', true, 1]].sort())
    assert.deepEqual(Object.keys(listed[0]).sort(), ['compressedExchanges', 'current', 'decisions', 'exchanges', 'lastModel', 'name', 'status', 'updated'])

    // --delete: perf (current) goes and default is current again; a name never stored fails with exit 1.
    assert.deepEqual(await vltJsonAsync(repo.dir, ['oracle', '--delete', 'perf']), { deleted: 'perf' })
    const after = await vltJsonAsync(repo.dir, ['oracle', '--list'])
    assert.deepEqual(after.map((c: any) => [c.name, c.current]).sort(), [[fresh.context.name, false], ['default', true]].sort())
    const missing = await vltAsync(repo.dir, ['oracle', '--delete', 'perf'])
    assert.equal(missing.status, 1, missing.stderr)
    assert.match(missing.stderr, /no conversation context named .*perf.* \(git vlt oracle --list shows them\)/)
    assert.equal((await vltAsync(repo.dir, ['oracle', 'where', '--delete', 'default'])).status, 2)

    const bad = await vltAsync(repo.dir, ['oracle', 'anything', '--context', '../escape'])
    assert.equal(bad.status, 2, bad.stderr)
    assert.match(bad.stderr, /a context name is 1 to 64 letters/)
    assert.equal((await vltAsync(repo.dir, ['oracle'])).status, 2)
  })

  it('a damaged context file is reported in one line and started afresh, never a crash', async () => {
    await ask('where is acquireLock defined')
    const path = contextFileOf(repo.dir, 'default')
    writeFileSync(path, 'garbage, not a record')
    const run = await vltAsync(repo.dir, ['oracle', 'who calls it', '--source', 'code', '--no-log'])
    assert.equal(run.status, 0, run.stderr)
    const warned = run.stderr.split('\n').filter((line) => /oracle context .* is damaged/.test(line))
    assert.equal(warned.length, 1, run.stderr)
    assert.match(warned[0]!, /^warning: the oracle context \S+default-[0-9a-f]{8}\.context is damaged \(.+\); starting it afresh$/)
    assert.ok(!/\n\s+at /.test(run.stderr), 'no stack trace')
    assert.equal(readContext(repo.dir, 'default').exchanges.length, 1, 'rewritten as a valid record')
  })

  it('answers "what did we decide about X" offline from the decisions stated, citing the exchange', async () => {
    await ask('We decided to keep the lock timeout at 5 seconds. Where is LOCK_TIMEOUT_MS used?')
    await ask('where is writeBlobRecord defined')
    const state = readContext(repo.dir, 'default')
    assert.equal(state.decisions.length, 1)
    const decided = state.decisions[0]
    assert.equal(decided.text, 'We decided to keep the lock timeout at 5 seconds.')
    const recall = await ask('what did we decide about the lock timeout')
    assert.equal(recall.model, 'extractive')
    assert.ok(
      recall.answer.startsWith(`From this conversation (context default), the decisions about lock, timeout:\n- We decided to keep the lock timeout at 5 seconds. [context default#${decided.exchange}, `),
      recall.answer,
    )
    assert.equal(decided.exchange, state.exchanges[0].id)
    const none = await ask('what did we decide about retries')
    assert.match(none.answer, /^This conversation \(context default\) records no decision about retrie/)
  })

  it('never stores a secret: a key in the question is redacted in the context', async () => {
    await ask(`where is endpointClient defined, it uses ${FAKE_KEY}`)
    const state = readContext(repo.dir, 'default')
    assert.ok(!JSON.stringify(state).includes(FAKE_KEY), 'the key is not in the context')
    assert.match(state.exchanges[0].question, /REDACTED|\*\*\*|\[secret/i)
  })

  describe('with a model', () => {
    let server: FakeOpenAIServer
    let user: UserConfigFile
    beforeEach(async () => {
      server = await startFakeOpenAIServer()
      user = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "test-model"\n`)
    })
    afterEach(async () => {
      user.cleanup()
      await server.close()
    })

    it('gives the model the summary, decisions and last exchanges as a data block', async () => {
      server.replyNext({ text: 'Noted: `acquireLock` in `src/lock.ts:4-10`.' }, { text: 'It is called by `writeBlobRecord` (`src/store.ts:4-7`).' })
      const first = await vltJsonAsync(repo.dir, ['oracle', 'We decided to keep acquireLock synchronous. Where is acquireLock defined?', '--source', 'code', '--no-log'], user.env)
      assert.equal(first.model, 'test-model')
      const second = await vltJsonAsync(repo.dir, ['oracle', 'who calls it', '--source', 'code', '--no-log'], user.env)
      assert.equal(second.context.exchanges, 2)
      const prompt = server.chatRequests.at(-1)!.body.messages!.map((m) => m.content).join('\n')
      assert.match(prompt, /<data-([0-9a-f]{16}) label="conversation" context="default"[^>]*>\n[\s\S]*Decisions stated so far:\n- We decided to keep acquireLock synchronous\. \[context default#[0-9a-z]+-[0-9a-f]{8}\][\s\S]*Q: We decided[\s\S]*A: Noted: `acquireLock`[\s\S]*<\/data-\1>/)
      assert.equal(readContext(repo.dir, 'default').lastModel, 'test-model')
    })
  })
})
