import { strict as assert } from 'node:assert'
import { parseTranscript, type TranscriptIdentity } from '../../src/core/history/parse.js'
import { exchangeMentions, repoPath } from '../../src/core/history/mentions.js'
import { projectDirName } from '../../src/core/history/locate.js'
import { emptySessionMeta, type Exchange } from '../../src/core/history/types.js'
import { AGENT, MAIN_SESSION, fixtureText } from './fixtures/install.js'

const ROOT = '/home/dev/demo'
const main: TranscriptIdentity = { sessionId: 'from-file-name', agentId: null, isSidechain: false }

function parseFixture(name: string, identity = main) {
  return parseTranscript(Buffer.from(fixtureText(name, ROOT, '/home/dev/demo-wt')), 0, 0, identity, emptySessionMeta())
}

const summary = (e: Exchange) => ({ id: e.id, kind: e.kind, startLine: e.startLine, endLine: e.endLine, prompt: e.prompt.slice(0, 40), provisional: e.provisional })

describe('history: transcript parsing', () => {
  it('groups lines into exchanges: prompts, a compaction summary, the provisional last one', () => {
    const out = parseFixture('session-main.jsonl')
    assert.deepEqual(out.exchanges.map(summary), [
      { id: `${MAIN_SESSION}:main:1`, kind: 'prompt', startLine: 1, endLine: 12, prompt: 'Why does `git vlt coderag sync` hang for', provisional: false },
      { id: `${MAIN_SESSION}:main:14`, kind: 'prompt', startLine: 14, endLine: 17, prompt: 'Add a regression test for the zombie hol', provisional: false },
      // Starts at its compact_boundary line (21), not at the summary (22); the interruption (24) is not a prompt.
      { id: `${MAIN_SESSION}:main:21`, kind: 'compaction', startLine: 21, endLine: 24, prompt: 'This session is being continued from a p', provisional: false },
      { id: `${MAIN_SESSION}:main:25`, kind: 'prompt', startLine: 25, endLine: 26, prompt: 'Now document the stale lock timeout in R', provisional: true },
    ])
    assert.deepEqual(out.exchanges[2].compaction, { trigger: 'auto', preTokens: 155312 })
    assert.equal(out.exchanges[2].reply, 'Continuing from the summary: the fix and its test are in place; running the whole suite next.')
  })

  it('joins the lines of one API response and keeps session metadata', () => {
    const [first] = parseFixture('session-main.jsonl').exchanges
    assert.equal(first.reply, [
      'Let me read the lock implementation first.',
      'Fixed: `acquireLock` in src/lock.ts spun forever because it never checked whether the holder process was still alive.',
      'A zombie holder is now treated as dead, so the stale lock is broken after one poll.',
    ].join('\n\n'))
    assert.equal(first.hasThinking, true)
    assert.deepEqual(
      { cwd: first.cwd, branch: first.branch, version: first.version, model: first.model, timestamp: first.timestamp, endTimestamp: first.endTimestamp, startOffset: first.startOffset },
      { cwd: ROOT, branch: 'main', version: '2.1.12', model: 'claude-opus-4-5-20251101', timestamp: '2025-06-10T09:14:02.120Z', endTimestamp: '2025-06-10T09:14:15.480Z', startOffset: 174 },
    )
  })

  it('attaches tool results (user lines) to their tool_use by id, with the error flag', () => {
    const [first] = parseFixture('session-main.jsonl').exchanges
    assert.deepEqual(first.toolCalls.map((c) => ({ id: c.id, name: c.name, isError: c.isError, result: c.result.split('\n')[0] })), [
      { id: 'toolu_01Read', name: 'Read', isError: false, result: '     1\texport function acquireLock(path: string) {' },
      { id: 'toolu_02Bash', name: 'Bash', isError: true, result: 'Exit code 2' },
      { id: 'toolu_03Edit', name: 'Edit', isError: false, result: `The file ${ROOT}/src/lock.ts has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:` },
    ])
    assert.deepEqual(first.toolCalls[2].input, { file_path: `${ROOT}/src/lock.ts`, old_string: '  while (exists(path)) sleep(100)', new_string: '  while (exists(path) && !holderIsDead(path)) sleep(100)' })
  })

  it('counts skipped lines: known types, unknown types, malformed JSON, the unfinished last line', () => {
    const out = parseFixture('session-main.jsonl')
    assert.deepEqual(out.stats, {
      lines: 27,
      ignored: { 'file-history-snapshot': 1, progress: 1, 'system:turn_duration': 1, 'user:interruption': 1 },
      unknown: { 'mystery-event': 1 },
      malformed: 1,
      truncated: 1,
      orphanResults: 0,
    })
    assert.equal(out.meta.title, 'Stale lock hang')
    // The unfinished line is not consumed: the next read starts at it.
    const text = fixtureText('session-main.jsonl', ROOT, '/home/dev/demo-wt')
    assert.equal(out.endOffset, Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1)))
    assert.equal(out.endLine, 27)
  })

  it('reads a subagent transcript as a sidechain with its agent id and the parent session', () => {
    const out = parseFixture(`${MAIN_SESSION}/subagents/agent-${AGENT}.jsonl`, { sessionId: MAIN_SESSION, agentId: AGENT, isSidechain: true })
    assert.deepEqual(out.exchanges.map((e) => ({ id: e.id, isSidechain: e.isSidechain, agentId: e.agentId, tools: e.toolCalls.map((c) => c.name), reply: e.reply })), [
      {
        id: `${MAIN_SESSION}:${AGENT}:0`,
        isSidechain: true,
        agentId: AGENT,
        tools: ['Write'],
        reply: 'I will fork a child that exits without being reaped.\n\nCreated test/lock.test.ts with a zombie-holder case; it passes.',
      },
    ])
  })

  it('resumes mid-file from a byte offset with the carried session metadata', () => {
    const buf = Buffer.from(fixtureText('session-main.jsonl', ROOT, '/home/dev/demo-wt'))
    const whole = parseTranscript(buf, 0, 0, main, emptySessionMeta())
    const resumeAt = whole.exchanges[2].startOffset
    const tail = parseTranscript(buf.subarray(resumeAt), resumeAt, 21, main, whole.meta)
    assert.deepEqual(tail.exchanges.map(summary), whole.exchanges.slice(2).map(summary))
    assert.equal(tail.meta.title, 'Stale lock hang')
  })

  it('takes slash-command markup for what the user typed and ignores local command output', () => {
    const lines = [
      { type: 'user', uuid: 'u1', sessionId: 's', timestamp: '2025-01-01T00:00:00Z', message: { role: 'user', content: '<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>src/lock.ts</command-args>' } },
      { type: 'user', uuid: 'u2', sessionId: 's', timestamp: '2025-01-01T00:00:01Z', message: { role: 'user', content: '<local-command-stdout>Total cost: $0.12</local-command-stdout>' } },
      { type: 'user', uuid: 'u3', sessionId: 's', timestamp: '2025-01-01T00:00:02Z', isMeta: true, message: { role: 'user', content: 'Caveat: the messages below were generated by the user while running local commands.' } },
      { type: 'user', uuid: 'u1', sessionId: 's', timestamp: '2025-01-01T00:00:00Z', message: { role: 'user', content: 'duplicate line, same uuid' } },
    ]
    const out = parseTranscript(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'), 0, 0, main, emptySessionMeta())
    assert.deepEqual(out.exchanges.map((e) => e.prompt), ['/review src/lock.ts'])
    assert.deepEqual(out.stats.ignored, { 'user:local-command': 1, 'user:meta': 1, 'user:duplicate': 1 })
  })
})

describe('history: file mentions', () => {
  const roots = [ROOT, '/home/dev/demo-wt']
  const knownFiles = new Set(['src/lock.ts', 'src/util.ts', 'README.md', 'src/search.ts'])

  it('collects tool paths, command and prose paths inside the repository, relative to its root', () => {
    const exchanges = parseFixture('session-main.jsonl').exchanges
    assert.deepEqual(exchangeMentions(exchanges[0], { roots, knownFiles }), [
      { path: 'src/lock.ts', kind: 'read', tool: 'Read' },
      { path: 'src/util.ts', kind: 'command', tool: 'Bash' },
      { path: 'src/lock.ts', kind: 'command', tool: 'Bash' },
      { path: 'src/lock.ts', kind: 'edit', tool: 'Edit' },
      // `@src/lock.ts` in the prompt, and the path in the reply.
      { path: 'src/lock.ts', kind: 'prose', tool: '' },
    ])
    // test/lock.test.ts is not a repository file and no tool of this exchange touched it: a hint only.
    assert.deepEqual(exchangeMentions(exchanges[1], { roots, knownFiles }), [])
    assert.deepEqual(exchangeMentions(exchanges[3], { roots, knownFiles }), [
      { path: 'README.md', kind: 'edit', tool: 'Write' },
      { path: 'README.md', kind: 'prose', tool: '' },
    ])
  })

  it('normalises paths against the cwd and the worktree that contains them', () => {
    assert.equal(repoPath('/home/dev/demo/src/a.ts', '/home/dev/demo', roots), 'src/a.ts')
    assert.equal(repoPath('/home/dev/demo-wt/src/a.ts', '/home/dev/demo-wt', roots), 'src/a.ts')
    assert.equal(repoPath('../lib/b.ts', '/home/dev/demo/src', roots), 'lib/b.ts')
    assert.equal(repoPath('src\\win\\c.ts', '/home/dev/demo', roots), 'src/win/c.ts')
    assert.equal(repoPath('/etc/passwd', '/home/dev/demo', roots), null)
    assert.equal(repoPath('/home/dev/demo-other/x.ts', '/home/dev/demo', roots), null)
    assert.equal(repoPath('~/notes.md', '/home/dev/demo', roots), null)
    assert.equal(repoPath('/home/dev/demo/.git/config', '/home/dev/demo', roots), null)
  })

  it('names project folders as Claude Code does', () => {
    assert.equal(projectDirName('/home/dev/my_repo.v2'), '-home-dev-my-repo-v2')
  })
})
