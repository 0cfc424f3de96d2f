import { strict as assert } from 'node:assert'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { appendEntry, createThread, readThread } from '../../src/core/threads/index.js'
import { vltTools, type ToolEnv } from '../../src/core/tools/index.js'
import { vlt, vltAsync } from '../helpers/cli.js'
import { startFakeOpenAIServer, type ChatReply, type FakeOpenAIServer } from '../helpers/fake-openai-server.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'

/** The librarian role's model: replies are scripted for it only, so the summarise role's requests (thread summaries) get the default reply. */
const LIBRARIAN_MODEL = 'test-librarian'
const AWS_KEY = 'AKIA' + 'Z7Q2R4XB6N3M5K7J'
const ENTRY = 'Decision log for 2026-W47: notes/decisions/2026-w47.md'
const WRITE_TOOLS = ['write_note', 'move_note', 'write_index_note', 'append_thread']

const DECISION_LOG = `# Decisions, week of 2026-11-16

- Keep the write-ahead log; drop the journal (oracle-session-2026-11-16, 1a).
- Retries back off exponentially, capped at 30 s (oracle-session-2026-11-18).
`

describe('git vlt librarian (CLI, loopback OpenAI-compatible server)', function () {
  this.timeout(120_000)
  let repo: GitFixture
  let server: FakeOpenAIServer
  let user: UserConfigFile
  let outside: string
  beforeEach(async () => {
    repo = createGitRepo({ files: { 'README.md': '# project\n', 'notes/existing.md': '# Existing\n\nKept by hand.\n' } })
    server = await startFakeOpenAIServer()
    user = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "test-model"\n[llm.models]\nlibrarian = "${LIBRARIAN_MODEL}"\n`)
    outside = mkdtempSync(join(tmpdir(), 'librarian-outside-'))
    const vltDir = join(repo.dir, '.vlt')
    for (const [day, text] of [
      ['2026-11-16', '**Q:** journal or WAL?\n\nKeep the write-ahead log; drop the journal.'],
      ['2026-11-18', '**Q:** how do retries back off?\n\nExponentially, capped at 30 s.'],
    ] as const) {
      await createThread(vltDir, { name: `oracle-session-${day}` })
      await appendEntry(vltDir, `oracle-session-${day}`, { text, type: 'research', author: 'Alice', now: new Date(`${day}T10:00:00Z`) })
    }
  })
  afterEach(async () => {
    repo.cleanup()
    user.cleanup()
    rmSync(outside, { recursive: true, force: true })
    await server.close()
  })

  const script = (...turns: Array<Omit<ChatReply, 'model'>>): void => server.replyNext(...turns.map((turn) => ({ ...turn, model: LIBRARIAN_MODEL })))
  const call = (id: string, name: string, args: object) => ({ id, name, arguments: args })
  const librarian = async (request: string, flags: string[] = []) => {
    const run = await vltAsync(repo.dir, ['librarian', request, '--json', ...flags], user.env)
    assert.equal(run.status, 0, run.stderr)
    return JSON.parse(run.stdout)
  }

  it('reads two session threads and writes a decision log, then moves it; the changes are left unstaged and listed', async () => {
    script(
      { toolCalls: [call('c1', 'list_threads', { prefix: 'oracle-session-', since: '2026-11-16' })] },
      { toolCalls: [call('c2', 'read_thread', { thread: 'oracle-session-2026-11-16' }), call('c3', 'read_thread', { thread: 'oracle-session-2026-11-18' })] },
      { toolCalls: [call('c4', 'write_note', { path: 'notes/decision-log.md', content: DECISION_LOG })] },
      { toolCalls: [call('c5', 'move_note', { from: 'notes/decision-log.md', to: 'notes/decisions/2026-w47.md' })] },
      { toolCalls: [call('c6', 'append_thread', { thread: 'decisions', text: ENTRY, type: 'decision', title: 'Decisions' })] },
      { text: 'Wrote the decision log of week 47 to notes/decisions/2026-w47.md.' },
    )
    const result = await librarian('organise the oracle session threads of last week into a decision log')

    assert.deepEqual(Object.keys(result).sort(), ['answer', 'stopped', 'toolCalls', 'usageByRole', 'writes'])
    assert.equal(readFileSync(join(repo.dir, 'notes/decisions/2026-w47.md'), 'utf8'), DECISION_LOG)
    assert.ok(!existsSync(join(repo.dir, 'notes/decision-log.md')))
    assert.deepEqual(result.writes, [
      { action: 'create', path: 'notes/decision-log.md', bytes: Buffer.byteLength(DECISION_LOG) },
      { action: 'move', path: 'notes/decisions/2026-w47.md', from: 'notes/decision-log.md', bytes: Buffer.byteLength(DECISION_LOG) },
      { action: 'append', path: '.vlt/threads/decisions.md', bytes: Buffer.byteLength(ENTRY) },
    ])
    const decisions = await readThread(join(repo.dir, '.vlt'), 'decisions')
    assert.deepEqual(decisions.entries.map((e) => [e.type, e.author, e.text]), [['decision', 'librarian', ENTRY]])

    // What the model was given: both threads, each with its summary, and the week's listing.
    assert.deepEqual(result.toolCalls.map((c: any) => [c.name, c.status]), [['list_threads', 'ok'], ['read_thread', 'ok'], ['read_thread', 'ok'], ['write_note', 'ok'], ['move_note', 'ok'], ['append_thread', 'ok']])
    assert.match(result.toolCalls[0].result, /^2 thread\(s\)\noracle-session-2026-11-18 {2}1 entries/)
    assert.match(result.toolCalls[1].result, /## Summary\n\nok\n\n## research · Alice · 2026-11-16T10:00:00\.000Z .*\n\n\*\*Q:\*\* journal or WAL\?/)
    assert.match(result.toolCalls[2].result, /capped at 30 s/)

    // The answer lists what changed, as we made it; nothing is staged.
    assert.match(result.answer, /^Wrote the decision log of week 47 to notes\/decisions\/2026-w47\.md\.\n\nChanged in the working tree \(not staged, not committed; review with git status and git diff\):\n- create notes\/decision-log\.md \(\d+ bytes\)\n- move notes\/decision-log\.md → notes\/decisions\/2026-w47\.md \(\d+ bytes\)\n- append \.vlt\/threads\/decisions\.md \(\d+ bytes\)$/)
    assert.equal(repo.git('diff', '--cached', '--name-only'), '')
    assert.match(repo.git('status', '--porcelain', '--untracked-files=all'), /\?\? notes\/decisions\/2026-w47\.md/)

    // Its own model (the librarian role), its own tools: the reading ones and the four writes.
    const first = server.chatRequests.find((r) => r.body.model === LIBRARIAN_MODEL)!
    const tools = (first.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)
    assert.deepEqual(tools, ['list_notes', 'read_note', 'search_notes', 'list_threads', 'read_thread', 'search_threads', ...WRITE_TOOLS])
    assert.match(first.body.messages![0]!.content, /^You are the Librarian of a git repository/)
    assert.match(first.body.messages![0]!.content, /The notes folders you write to: notes\/\. Today is \d{4}-\d\d-\d\d\./)
    assert.deepEqual(Object.keys(result.usageByRole), ['librarian'])
    assert.equal(result.usageByRole.librarian.model, LIBRARIAN_MODEL)
    assert.equal(result.usageByRole.librarian.requests, 6)
    assert.equal(result.stopped, null)
  })

  it('refuses writes outside its folders (.., absolute, a symlinked folder, .git in another case, not markdown) with an error result to the model', async () => {
    symlinkSync(outside, join(repo.dir, 'notes', 'linked'))
    const absolute = join(outside, 'abs.md')
    const attempts = ['../escape.md', absolute, 'notes/linked/x.md', 'notes/.GIT/hooks.md', 'README.md', 'notes/run.sh', '.vlt/threads/forged.md', 'Notes/x.md']
    script({ toolCalls: attempts.map((path, i) => call(`c${i}`, 'write_note', { path, content: '# x\n' })) }, { toolCalls: [call('m', 'move_note', { from: 'notes/existing.md', to: 'notes/linked/moved.md' })] }, { text: 'I could not write any of them.' })
    const result = await librarian('write x everywhere')

    assert.deepEqual(result.writes, [])
    assert.deepEqual(result.toolCalls.map((c: any) => c.status), [...attempts.map(() => 'error'), 'error'])
    const said = result.toolCalls.map((c: any) => c.result)
    assert.match(said[0], /climbs with "\.\."/)
    assert.match(said[1], /is absolute/)
    assert.match(said[2], /goes through a symbolic link \(notes\/linked\)/)
    assert.match(said[3], /names \.git or \.vlt/)
    assert.match(said[4], /outside the notes folders the Librarian writes to \(notes\/\)/)
    assert.match(said[5], /not a markdown note/)
    assert.match(said[6], /names \.git or \.vlt; threads are written with append_thread/)
    assert.match(said[7], /outside the notes folders/)
    assert.match(said[8], /goes through a symbolic link/)
    assert.deepEqual(readdirSync(outside), [])
    assert.ok(!existsSync(join(repo.dir, '..', 'escape.md')))
    assert.ok(existsSync(join(repo.dir, 'notes/existing.md')))
    assert.equal(repo.git('status', '--porcelain', '--untracked-files=all'), '?? .vlt/threads/.gitattributes\n?? .vlt/threads/oracle-session-2026-11-16.md\n?? .vlt/threads/oracle-session-2026-11-18.md\n?? notes/linked')
    assert.match(result.answer, /\n\nNo files were changed\.$/)
  })

  it('overwrites a note only after reading it, and redacts a secret from what it writes', async () => {
    const updated = '# Existing\n\nKept by hand, and indexed.\n'
    script(
      { toolCalls: [call('w1', 'write_note', { path: 'notes/existing.md', content: '# clobbered\n' })] },
      { toolCalls: [call('r1', 'read_note', { path: 'notes/existing.md' })] },
      { toolCalls: [call('w2', 'write_note', { path: 'notes/existing.md', content: updated }), call('w3', 'write_note', { path: 'notes/keys.md', content: `# Keys\n\naws_access_key_id = ${AWS_KEY}\n` })] },
      { toolCalls: [call('i1', 'write_index_note', { path: 'notes/index.md', title: 'Notes', notes: [{ path: 'notes/existing.md', description: 'what is kept by hand' }, { path: 'notes/keys.md', description: 'keys' }] })] },
      { text: 'Done.' },
    )
    const result = await librarian('tidy the notes')

    assert.deepEqual(result.toolCalls.map((c: any) => c.status), ['error', 'ok', 'ok', 'ok', 'ok'])
    assert.match(result.toolCalls[0].result, /notes\/existing\.md exists and was not read in this session: read it with read_note first/)
    assert.equal(readFileSync(join(repo.dir, 'notes/existing.md'), 'utf8'), updated)
    const keys = readFileSync(join(repo.dir, 'notes/keys.md'), 'utf8')
    assert.ok(!keys.includes(AWS_KEY))
    assert.match(keys, /aws_access_key_id = \[REDACTED:[a-z-]+\]/)
    assert.match(result.toolCalls[3].result, /1 secret-looking string\(s\) were replaced/)
    assert.equal(readFileSync(join(repo.dir, 'notes/index.md'), 'utf8'), '# Notes\n\n- [existing](existing.md) — what is kept by hand\n- [keys](keys.md) — keys\n')
    assert.deepEqual(
      result.writes.map((w: any) => [w.action, w.path, w.redacted]),
      [['update', 'notes/existing.md', undefined], ['create', 'notes/keys.md', 1], ['create', 'notes/index.md', undefined]],
    )
    // The model never saw the secret, and a note whose secret it was not shown is not its to rewrite.
    script({ toolCalls: [call('r', 'read_note', { path: 'notes/keys.md' })] }, { toolCalls: [call('w', 'write_note', { path: 'notes/keys.md', content: '# Keys\n' })] }, { text: 'Left it.' })
    repo.write({ 'notes/keys.md': `# Keys\n\naws_access_key_id = ${AWS_KEY}\n` })
    const again = await librarian('rewrite the keys note')
    assert.ok(!JSON.stringify(server.chatRequests.map((r) => r.body)).includes(AWS_KEY))
    assert.match(again.toolCalls[1].result, /holds secret-looking text that was hidden from you/)
    assert.ok(readFileSync(join(repo.dir, 'notes/keys.md'), 'utf8').includes(AWS_KEY))
  })

  it('uses --model over the librarian role, and stops at llm.max_turns saying so', async () => {
    const capped = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${server.baseUrl}"\nmodel = "test-model"\nmax_turns = 2\n`)
    try {
      server.replyNext({ model: 'other-model', toolCalls: [call('l', 'list_notes', {})] }, { model: 'other-model', text: 'Only looked.' })
      const run = await vltAsync(repo.dir, ['librarian', 'look around', '--json', '--model', 'other-model'], capped.env)
      assert.equal(run.status, 0, run.stderr)
      const result = JSON.parse(run.stdout)
      assert.equal(result.stopped, 'max_turns')
      assert.equal(result.usageByRole.librarian.model, 'other-model')
      assert.equal(result.toolCalls[0].result, 'notes/existing.md')
      assert.match(result.answer, /^Only looked\.\n\n_\(Stopped looking further at the number of tool-calling turns/)
    } finally {
      capped.cleanup()
    }
  })

  it('without a model: exit 1 and one line saying how to configure one', () => {
    const run = vlt(repo.dir, ['librarian', 'organise the notes'])
    assert.equal(run.status, 1)
    assert.equal(run.stdout, '')
    assert.match(run.stderr, /^git vlt: the Librarian needs a language model: set \[llm\] provider, base_url and model \(or \[llm\.models\] librarian\) in \S+config\.toml\n$/)
    assert.ok(!existsSync(join(repo.dir, 'notes', 'decision-log.md')))
  })

  it('gives the oracle and the MCP server none of its write tools', () => {
    const env = { index: { root: repo.dir }, maxTokens: 1000, clientId: () => 'test', warn: () => {} } as unknown as ToolEnv
    const names = vltTools(env).map((spec) => spec.name)
    for (const name of WRITE_TOOLS) assert.ok(!names.includes(name), name)
  })
})
