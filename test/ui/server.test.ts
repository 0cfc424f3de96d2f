import { strict as assert } from 'node:assert'
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer as createNetServer, type Server } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startUiServer, type UiServer } from '../../src/core/ui/index.js'
import { vlt, vltSpawn } from '../helpers/cli.js'
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../helpers/fake-openai-server.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'
import { createOracleRepo, FAKE_KEY } from '../oracle/fixture.js'
import { readContext } from '../helpers/context.js'
import { askEvents, httpRequest, type SseEvent } from './http.js'

/** A private key's armour, split so that this file is not itself a credentials file to scanners. */
const PRIVATE_KEY = ['-----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEowIBAAKCAQEAvQ7Gf5cVq3kF0bX9y2HqP8Jm4tLw\n-----END RSA ', 'PRIVATE KEY-----\n'].join('')

describe('git vlt ui: the server', function () {
  this.timeout(120_000)
  let repo: GitFixture
  let server: UiServer
  let keyCommit: string
  const ends: string[] = []
  const warnings: string[] = []
  const get = (path: string, headers: Record<string, string> = {}) => httpRequest(server.port, path, { headers: { 'x-vlt-token': server.token, ...headers } })

  before(async () => {
    repo = createOracleRepo().repo
    repo.write({ '.env': `OPENAI_API_KEY=${FAKE_KEY}\n`, 'keys/notes.txt': PRIVATE_KEY, '.gitignore': 'ignored.txt\n', 'ignored.txt': 'not shown\n' })
    symlinkSync('/etc/passwd', join(repo.dir, 'passwd-link'))
    symlinkSync('/etc', join(repo.dir, 'etc-link'))
    keyCommit = repo.commit('Add the deployment settings')
    server = await startUiServer({ cwd: repo.dir, onAnswerEnd: (outcome) => ends.push(outcome), warn: (message) => warnings.push(message) })
  })
  after(async () => {
    await server?.close()
    repo?.cleanup()
  })

  describe('who may talk to it', () => {
    it('listens on 127.0.0.1 and hands out a URL carrying its token', () => {
      assert.match(server.url, new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?t=${server.token}$`))
      assert.ok(server.token.length >= 32)
    })

    it('refuses requests without the token or with a wrong one, page and API alike', async () => {
      assert.equal((await httpRequest(server.port, '/')).status, 401)
      assert.equal((await httpRequest(server.port, '/api/info')).status, 401)
      assert.equal((await httpRequest(server.port, '/assets/app.js')).status, 401)
      assert.equal((await httpRequest(server.port, '/api/info', { headers: { 'x-vlt-token': `${server.token.slice(0, -1)}${server.token.endsWith('A') ? 'B' : 'A'}` } })).status, 401)
      assert.equal((await httpRequest(server.port, `/api/info?t=${server.token}x`)).status, 401)
    })

    it('serves the page with its token, under a policy that runs only its own scripts', async () => {
      const page = await httpRequest(server.port, `/?t=${server.token}`, { headers: { 'sec-fetch-site': 'none' } })
      assert.equal(page.status, 200)
      assert.ok(page.body.includes(`content="${server.token}"`))
      assert.match(String(page.headers['content-security-policy']), /script-src 'self';/)
      assert.equal(page.headers['referrer-policy'], 'no-referrer')
      assert.equal((await get('/api/info')).status, 200)
    })

    it('refuses another host name (DNS rebinding), another Origin and cross-site requests', async () => {
      assert.equal((await get('/api/info', { host: `attacker.example:${server.port}` })).status, 421)
      assert.equal((await get('/api/info', { host: `127.0.0.1:${server.port + 1}` })).status, 421)
      assert.equal((await get('/api/info', { origin: 'http://attacker.example' })).status, 403)
      assert.equal((await get('/api/info', { origin: `https://127.0.0.1:${server.port}` })).status, 403)
      assert.equal((await get('/api/info', { 'sec-fetch-site': 'cross-site' })).status, 403)
      assert.equal((await get('/api/info', { origin: `http://localhost:${server.port}` })).status, 200)
      const post = await httpRequest(server.port, '/api/sync', { method: 'POST', headers: { 'x-vlt-token': server.token } })
      assert.equal(post.status, 403, 'a POST without its Origin')
      assert.match(post.json.error, /Origin/)
    })
  })

  describe('what it shows', () => {
    it('serves a file of the repository with credentials in it redacted', async () => {
      const file = await get('/api/file?path=src/client.ts')
      assert.equal(file.status, 200)
      assert.equal(file.json.path, 'src/client.ts')
      assert.ok(file.json.text.includes('endpointClient'))
      assert.ok(!file.body.includes(FAKE_KEY), 'the key is redacted')
    })

    it('refuses paths that leave the repository: .., absolute, symbolic links, .git', async () => {
      for (const path of ['../../../etc/passwd', '/etc/passwd', 'src/../../x', 'passwd-link', 'etc-link/passwd']) {
        const reply = await get(`/api/file?path=${encodeURIComponent(path)}`)
        assert.ok([400, 403].includes(reply.status), `${path}: ${reply.status} ${reply.body}`)
        assert.ok(!reply.body.includes('root:'), path)
      }
      assert.equal((await get('/api/file?path=.git/config')).status, 404)
      assert.equal((await get(`/api/blame?path=passwd-link&start=1&end=2`)).status, 400)
      assert.equal((await get('/api/history?path=../..')).status, 400)
    })

    it('never serves credentials files, keys or files git ignores', async () => {
      const env = await get('/api/file?path=.env')
      assert.equal(env.status, 403)
      assert.ok(!env.body.includes(FAKE_KEY))
      const key = await get('/api/file?path=keys/notes.txt')
      assert.equal(key.status, 403)
      assert.ok(!key.body.includes('MIIE'))
      assert.equal((await get('/api/file?path=ignored.txt')).status, 404)
    })

    it('shows a commit with its message and diff, credentials redacted, and refuses what is no hash', async () => {
      const commit = await get(`/api/commit?hash=${keyCommit.slice(0, 12)}`)
      assert.equal(commit.status, 200)
      assert.equal(commit.json.hash, keyCommit)
      assert.equal(commit.json.message, 'Add the deployment settings')
      assert.match(commit.json.diff, /\.env/)
      assert.ok(!commit.body.includes(FAKE_KEY), 'the key added by the commit is redacted')
      assert.ok(!commit.body.includes('MIIE'), 'so is the private key')
      assert.equal((await get('/api/commit?hash=--output%3D%2Ftmp%2Fx')).status, 400)
      assert.equal((await get('/api/commit?hash=HEAD')).status, 400)
      assert.equal((await get('/api/commit?hash=0123456789abcdef')).status, 404)
    })

    it('blames a range and answers definitions and references from the index', async () => {
      const blame = await get('/api/blame?path=src/lock.ts&start=2&end=4')
      assert.equal(blame.status, 200)
      assert.ok(blame.json.blame.some((b: { subject: string }) => b.subject === 'Raise LOCK_TIMEOUT_MS to 30 s'))
      const def = await get('/api/def?symbol=acquireLock')
      assert.equal(def.json.definitions[0].path, 'src/lock.ts')
      const refs = await get('/api/refs?symbol=acquireLock')
      assert.ok(refs.json.references.some((r: { path: string }) => r.path === 'src/store.ts'))
      const search = await get('/api/search?q=blob+record+lock')
      assert.ok(search.json.files.length > 0)
    })

    it('answers again from a rebuilt index when a query finds a block of the stored symbol table damaged', async () => {
      assert.equal((await get('/api/def?symbol=acquireLock')).status, 200, 'indexed')
      const symbols = join(repo.dir, '.vlt', 'trees', repo.git('rev-parse', 'HEAD^{tree}'), 'symbols.mpk')
      const bytes = readFileSync(symbols)
      // A table this small has one bucket: the last block, before the record's own checksum.
      bytes[bytes.length - 8]! ^= 0xff
      writeFileSync(symbols, bytes)
      // Past the context's reuse time: the next query opens the stored table again and reads the damaged block.
      await sleep(3_100)
      warnings.length = 0
      const def = await get('/api/def?symbol=acquireLock')
      assert.equal(def.status, 200, JSON.stringify(def.json))
      assert.equal(def.json.definitions[0].path, 'src/lock.ts')
      assert.equal(warnings.length, 1, warnings.join('\n'))
      assert.match(warnings[0]!, /symbols\.mpk: checksum mismatch.*rebuilt the index of tree [0-9a-f]{12} from the blob records/)
    })

    it('reads notes and threads, and names no endpoint it does not have', async () => {
      const note = await get('/api/note?path=docs/storage.md')
      assert.equal(note.json.title, 'Storage')
      assert.equal((await get('/api/thread?name=..%2F..%2Fetc')).status, 400)
      assert.equal((await get('/api/nothing')).status, 404)
      assert.equal((await get('/assets/..%2F..%2Fpackage.json')).status, 404)
    })
  })

  describe('answers as server-sent events', () => {
    let model: FakeOpenAIServer
    let user: UserConfigFile
    before(async () => {
      model = await startFakeOpenAIServer()
      user = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${model.baseUrl}"\nmodel = "test-model"\n`)
    })
    after(async () => {
      await model?.close()
      user?.cleanup()
    })

    it('streams the tokens of the answer before the answer is complete, then the whole response', async () => {
      process.env.GIT_VLT_CONFIG = user.path
      try {
        model.replyNext({ text: 'acquireLock is defined in `src/lock.ts:4-10`.', chunkDelayMs: 30 })
        const { events } = await askEvents(server.port, server.token, { question: 'where is acquireLock defined', sources: ['code'] })
        const names = events.map((e) => e.event)
        assert.equal(names[0], 'start')
        const tokens = events.filter((e) => e.event === 'token')
        const answer = events.find((e) => e.event === 'answer')!
        assert.ok(tokens.length >= 5, names.join(','))
        assert.ok(tokens[0]!.at < answer.at - 100, `first token at ${tokens[0]!.at} ms, answer at ${answer.at} ms`)
        assert.equal(tokens.map((e) => e.data.text).join(''), answer.data.answer)
        assert.equal(answer.data.model, 'test-model')
        assert.ok(answer.data.sources.some((s: { sourcePath: string }) => s.sourcePath.startsWith('src/lock.ts:')))
      } finally {
        delete process.env.GIT_VLT_CONFIG
      }
    })

    it("has a thread's summary written by the summarise role's model, as the CLI and MCP do", async () => {
      const tiered = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${model.baseUrl}"\nmodel = "test-model"\n\n[llm.models]\nsummarise = "small-model"\n`)
      process.env.GIT_VLT_CONFIG = tiered.path
      try {
        vlt(repo.dir, ['thread', 'new', 'storage', '--description', 'Where records live.'], { GIT_VLT_CONFIG: tiered.path })
        vlt(repo.dir, ['thread', 'push', 'storage', 'Records are packed past 256 files.', '--type', 'decision'], { GIT_VLT_CONFIG: tiered.path })
        model.replyNext({ text: 'Records are packed past 256 files.', model: 'small-model' })
        const before = model.chatRequests.length
        const summary = await get('/api/thread-summary?name=storage')
        assert.equal(summary.status, 200, summary.body)
        assert.deepEqual(model.chatRequests.slice(before).map((request) => request.body.model), ['small-model'])
      } finally {
        delete process.env.GIT_VLT_CONFIG
        tiered.cleanup()
      }
    })

    it('stops the run when the browser goes away mid-answer: the model request is cancelled, nothing is logged', async () => {
      process.env.GIT_VLT_CONFIG = user.path
      try {
        // The model writes three words, then waits forever: only a cancelled request ends it.
        model.replyNext({ text: 'the lock is taken by acquireLock in src/lock.ts' })
        model.failNext({ kind: 'hang', afterChunks: 4 })
        const cancelledBefore = model.streamsCancelled
        ends.length = 0
        const { events, cut } = await askEvents(server.port, server.token, { question: 'where is writeBlobRecord defined', sources: ['code'] }, (_e, all) => all.filter((e) => e.event === 'token').length >= 2)
        assert.ok(cut, JSON.stringify(events))
        assert.ok(events.some((e: SseEvent) => e.event === 'token'))
        for (let i = 0; i < 100 && (ends.length === 0 || model.streamsCancelled === cancelledBefore); i++) await new Promise((resolve) => setTimeout(resolve, 50))
        assert.deepEqual(ends, ['stopped'])
        assert.equal(model.streamsCancelled, cancelledBefore + 1, 'the model request was cancelled')
        const threads = join(repo.dir, '.vlt', 'threads')
        const logged = readdirSync(threads).filter((name) => name.startsWith('oracle-session')).map((name) => readFileSync(join(threads, name), 'utf8')).join('')
        // The question answered before was logged; the stopped one was not.
        assert.ok(logged.includes('where is acquireLock defined'))
        assert.ok(!logged.includes('where is writeBlobRecord defined'))
      } finally {
        delete process.env.GIT_VLT_CONFIG
      }
    })

    it('keeps the conversation as MCP clients do: a follow-up\'s "it" is the symbol the last answer defined', async () => {
      await askEvents(server.port, server.token, { question: 'where is writeBlobRecord defined', sources: ['code'] })
      const { events } = await askEvents(server.port, server.token, { question: 'who calls it', sources: ['code'] })
      const start = events.find((e) => e.event === 'start')!
      // The last symbols talked about, newest first (the earlier tests asked about acquireLock).
      assert.match(start.data.question, /^who calls it writeBlobRecord\b/)
      assert.match(start.data.resolved, /^it → writeBlobRecord\b/)
      const state = readContext(repo.dir, 'default')
      assert.equal(state.exchanges.at(-1).via, 'ui')
      assert.match(state.exchanges.at(-1).question, /^who calls it writeBlobRecord\b/)
    })

    it('answers extractively without a model, saying so, and refuses a bad question', async () => {
      const { events } = await askEvents(server.port, server.token, { question: 'where is acquireLock defined', sources: ['code', 'git'], explain: true })
      const answer = events.find((e) => e.event === 'answer')!
      assert.equal(answer.data.model, 'extractive')
      assert.ok(answer.data.traces, 'explain asked for the traces')
      assert.ok(!events.some((e) => e.event === 'token'))
      // The oracle says where it is: a history question reads the cited lines' history and blame.
      const history = await askEvents(server.port, server.token, { question: 'why was LOCK_TIMEOUT_MS changed', sources: ['code', 'git'] })
      assert.deepEqual(history.events.filter((e) => e.event === 'stage').map((e) => e.data.stage), ['searching', 'history', 'blame', 'answering'])
      const empty = await httpRequest(server.port, '/api/ask', { method: 'POST', headers: { origin: `http://127.0.0.1:${server.port}`, 'x-vlt-token': server.token }, body: '{"question":"  "}' })
      assert.equal(empty.status, 400)
      const badSource = await httpRequest(server.port, '/api/ask', { method: 'POST', headers: { origin: `http://127.0.0.1:${server.port}`, 'x-vlt-token': server.token }, body: '{"question":"x","sources":["shell"]}' })
      assert.equal(badSource.status, 400)
    })
  })

  describe('the command', () => {
    it('prints {url, port, token} with --json and serves until interrupted', async () => {
      const child = vltSpawn(repo.dir, ['ui', '--no-open', '--json'])
      let stdout = ''
      child.stdout!.on('data', (chunk) => (stdout += chunk))
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
      for (let i = 0; i < 200 && !stdout.trim().endsWith('}'); i++) await new Promise((resolve) => setTimeout(resolve, 50))
      const started = JSON.parse(stdout)
      assert.deepEqual(Object.keys(started).sort(), ['port', 'token', 'url'])
      assert.ok(started.url.includes(`?t=${started.token}`))
      const info = await httpRequest(started.port, '/api/info', { headers: { 'x-vlt-token': started.token } })
      assert.equal(info.json.root, repo.dir)
      child.kill('SIGTERM')
      assert.equal(await exited, 0)
    })

    it('says in one line that the port is in use (exit 1), and rejects a bad port (exit 2)', async () => {
      const blocker: Server = createNetServer()
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
      const port = (blocker.address() as { port: number }).port
      try {
        const run = vlt(repo.dir, ['ui', '--no-open', '--port', String(port)])
        assert.equal(run.status, 1, run.stderr)
        assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
        assert.match(run.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use`))
      } finally {
        blocker.close()
      }
      assert.equal(vlt(repo.dir, ['ui', '--port', '70000']).status, 2)
    })

    it('says in one line that a bare repository has no working tree to show (exit 2)', () => {
      const bare = createGitRepo({ bare: true })
      try {
        const run = vlt(bare.dir, ['ui', '--no-open'])
        assert.equal(run.status, 2, run.stderr)
        assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
        assert.match(run.stderr, /bare repository/)
      } finally {
        bare.cleanup()
      }
    })
  })
})
