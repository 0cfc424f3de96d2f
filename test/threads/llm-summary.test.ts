import { strict as assert } from 'node:assert'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { vltAsync, vltJson, vltJsonAsync } from '../helpers/cli.js'
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../helpers/fake-openai-server.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'

describe('thread summaries written by a configured LLM', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let server: FakeOpenAIServer
  let user: UserConfigFile | undefined
  beforeEach(async () => {
    server = await startFakeOpenAIServer()
  })
  afterEach(async () => {
    repo?.cleanup()
    user?.cleanup()
    await server.close()
  })

  it('asks the LLM only on read, once per new entries, and sends only what is new', async () => {
    user = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "test-model"\n`)
    const env = user.env
    repo = createGitRepo()
    vltJson(repo.dir, ['thread', 'new', 'auth'], env)
    for (const text of ['Use JWT for sessions', 'Tokens expire after 15 minutes', 'Refresh tokens rotate']) {
      vltJson(repo.dir, ['thread', 'push', 'auth', text, '--type', 'decision'], env)
    }
    assert.equal(server.chatRequests.length, 0, 'push never calls the LLM')

    server.replyNext({ text: 'Decided: JWT sessions, 15-minute tokens, rotating refresh tokens.' })
    const first = await vltJsonAsync(repo.dir, ['thread', 'read', 'auth', '--summary'], env)
    assert.equal(first.summary.generatedBy, 'llm')
    assert.equal(first.summary.text, 'Decided: JWT sessions, 15-minute tokens, rotating refresh tokens.')
    assert.equal(server.chatRequests.length, 1)

    await vltJsonAsync(repo.dir, ['thread', 'read', 'auth', '--summary'], env)
    assert.equal(server.chatRequests.length, 1, 'a cached summary costs no call')

    vltJson(repo.dir, ['thread', 'push', 'auth', 'Store refresh tokens hashed', '--type', 'decision'], env)
    server.replyNext({ text: 'Updated summary.' })
    const second = await vltJsonAsync(repo.dir, ['thread', 'read', 'auth', '--summary'], env)
    assert.equal(second.summary.text, 'Updated summary.')
    assert.equal(server.chatRequests.length, 2)
    const prompt = server.chatRequests[1]!.body.messages!.map((m) => m.content).join('\n')
    assert.match(prompt, /Store refresh tokens hashed/)
    assert.match(prompt, /Decided: JWT sessions/, 'the previous summary is passed on')
    assert.doesNotMatch(prompt, /Tokens expire after 15 minutes/, 'old entries are not sent again')
  })

  it('falls back to the extractive summary, with a warning, when the LLM is unreachable', async () => {
    await server.close()
    user = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "m"\ntimeout_ms = 2000\n`)
    const env = user.env
    repo = createGitRepo()
    vltJson(repo.dir, ['thread', 'new', 'ops'], env)
    vltJson(repo.dir, ['thread', 'push', 'ops', 'Deploy on Tuesdays', '--type', 'decision'], env)
    const run = await vltAsync(repo.dir, ['thread', 'read', 'ops', '--summary'], env)
    assert.equal(run.status, 0, run.stderr)
    assert.match(run.stderr, /warning: LLM endpoint .* unreachable.*extractive/)
    assert.match(run.stdout, /Summary \(extractive\)/)
    assert.match(run.stdout, /Deploy on Tuesdays/)
    const json = await vltJsonAsync(repo.dir, ['thread', 'read', 'ops', '--summary'], env)
    assert.equal(json.summary.generatedBy, 'extractive')
    assert.equal(json.warnings.length, 1)
    assert.match(json.warnings[0], /unreachable.*extractive summary/)
    server = await startFakeOpenAIServer()
  })
})
