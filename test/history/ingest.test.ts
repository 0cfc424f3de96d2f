import { strict as assert } from 'node:assert'
import { appendFileSync, existsSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { UsageError } from '../../src/core/errors.js'
import { fileHistory, ingestHistory, queryHistory, searchHistory, type IngestResult } from '../../src/core/history/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { AGENT, MAIN_SESSION, OLD_SESSION, WORKTREE_SESSION, installTranscripts, type InstalledConfig } from './fixtures/install.js'

const line = (value: object) => `${JSON.stringify(value)}\n`
const SECRET_SESSION = '6e2f9a10-4b8c-4d3e-a5f1-7c9b0d2e4f61'

function envelope(root: string, uuid: string, timestamp: string) {
  return { isSidechain: false, userType: 'external', cwd: root, sessionId: MAIN_SESSION, version: '2.1.12', gitBranch: 'main', uuid, timestamp }
}
function userLine(root: string, uuid: string, timestamp: string, content: unknown) {
  return { ...envelope(root, uuid, timestamp), type: 'user', message: { role: 'user', content } }
}
function assistantLine(root: string, uuid: string, timestamp: string, id: string, block: object) {
  return { ...envelope(root, uuid, timestamp), type: 'assistant', requestId: `req_${id}`, message: { id, type: 'message', role: 'assistant', model: 'claude-opus-4-5-20251101', content: [block] } }
}

/** The fields of an ingest report that do not depend on timing. */
function counts(result: IngestResult) {
  const { durationMs, ...rest } = result
  assert.ok(durationMs >= 0)
  return rest
}

describe('history: ingest, search and file history over real transcripts', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let worktree: string
  let config: InstalledConfig
  let configDir: string

  beforeEach(() => {
    repo = createGitRepo({
      files: {
        'src/lock.ts': 'export function acquireLock(path: string) {}\n',
        'src/util.ts': 'export const sleep = (ms: number) => ms\n',
        'src/search.ts': 'export const K1 = 1.2\n',
        'README.md': '# demo\n',
        'CHANGELOG.md': '## 0.3\n',
      },
    })
    worktree = `${repo.dir}-wt`
    repo.git('worktree', 'add', '-q', '-b', 'feature/bm25', worktree)
    config = installTranscripts(repo.dir, worktree)
    configDir = config.configDir
  })
  afterEach(() => {
    repo.cleanup()
    rmSync(worktree, { recursive: true, force: true })
    rmSync(configDir, { recursive: true, force: true })
  })

  it('ingests the sessions of every worktree with their subagents, skipping what it must', async () => {
    const first = await ingestHistory(repo.dir, { configDir })
    assert.deepEqual(counts(first), {
      sessions: 3,
      transcripts: 4,
      exchanges: 8,
      newExchanges: 8,
      updatedSessions: 3,
      removedSessions: 0,
      rewrittenTranscripts: 0,
      lines: 44,
      ignoredLines: { 'file-history-snapshot': 1, progress: 1, 'system:turn_duration': 1, 'user:interruption': 1 },
      unknownLines: { 'mystery-event': 1 },
      malformedLines: 1,
      truncatedLines: 1,
    })
    // Private: under .vlt/, which ignores everything but threads/.
    assert.ok(existsSync(join(repo.dir, '.vlt', 'history', 'index.mpk')))
    assert.equal(repo.git('status', '--porcelain'), '')

    const indexMtime = statSync(join(repo.dir, '.vlt', 'history', 'index.mpk')).mtimeMs
    const again = await ingestHistory(repo.dir, { configDir })
    assert.deepEqual({ newExchanges: again.newExchanges, updatedSessions: again.updatedSessions, lines: again.lines, exchanges: again.exchanges }, { newExchanges: 0, updatedSessions: 0, lines: 0, exchanges: 8 })
    assert.equal(statSync(join(repo.dir, '.vlt', 'history', 'index.mpk')).mtimeMs, indexMtime, 'a no-op ingest writes nothing')

    // From the linked worktree, the same sessions (its own .vlt/).
    const fromWorktree = await ingestHistory(worktree, { configDir })
    assert.deepEqual({ sessions: fromWorktree.sessions, exchanges: fromWorktree.exchanges }, { sessions: 3, exchanges: 8 })
  })

  it('stores transcripts redacted: prompts, replies, tool inputs and results, titles', async () => {
    const token = 'ghp_' + 'R4nd0mT0k3nV4lu3sXq9Zp2Lm7Kw8Jd5Hf1Y'
    const key = 'AKIA' + 'Z7Q2R4XB6N3M5K7J'
    // A session of its own: the main fixture ends in a line still being written.
    writeFileSync(join(dirname(config.main), `${SECRET_SESSION}.jsonl`), [
      line({ type: 'custom-title', customTitle: `deploy with ${key}`, sessionId: SECRET_SESSION }),
      line(userLine(repo.dir, 'u-secret', '2025-06-12T10:00:00.000Z', `Push with ${token} please`)),
      line(assistantLine(repo.dir, 'a-secret', '2025-06-12T10:00:02.000Z', 'msg_secret', { type: 'tool_use', id: 'toolu_secret', name: 'Bash', input: { command: `git push https://x:${token}@github.com/o/r` } })),
      line(userLine(repo.dir, 'u-result', '2025-06-12T10:00:03.000Z', [{ type: 'tool_result', tool_use_id: 'toolu_secret', content: `AWS_ACCESS_KEY_ID=${key}` }])),
      line(assistantLine(repo.dir, 'a-reply', '2025-06-12T10:00:04.000Z', 'msg_reply', { type: 'text', text: `Pushed; ${token} still works.` })),
    ].join('').replaceAll(MAIN_SESSION, SECRET_SESSION))
    await ingestHistory(repo.dir, { configDir })
    for (const file of readdirSync(join(repo.dir, '.vlt', 'history'), { recursive: true, withFileTypes: true })) {
      if (!file.isFile()) continue
      const bytes = readFileSync(join(file.parentPath, file.name))
      assert.ok(!bytes.includes(token) && !bytes.includes(key), `${file.name} holds a secret`)
    }
    const hits = await queryHistory(repo.dir, 'push please', { configDir, refresh: false })
    const hit = hits.results.find((result) => result.prompt.startsWith('Push with'))!
    assert.equal(hit.prompt, 'Push with [REDACTED:github-pat] please')
    assert.equal(hit.title, 'deploy with [REDACTED:aws-access-token]')
  })

  it('searches with date, branch and sidechain filters', async () => {
    const ids = async (query: string, options: Parameters<typeof queryHistory>[2] = {}) =>
      (await queryHistory(repo.dir, query, { configDir, ...options })).results.map((hit) => hit.exchangeId)

    const stale = await queryHistory(repo.dir, 'stale lock hang', { configDir, limit: 3 })
    const top = stale.results[0]
    assert.deepEqual({ ...top, score: undefined }, {
      sessionId: MAIN_SESSION,
      exchangeId: `${MAIN_SESSION}:main:1`,
      agentId: null,
      title: 'Stale lock hang',
      timestamp: '2025-06-10T09:14:02.120Z',
      branch: 'main',
      score: undefined,
      prompt: 'Why does `git vlt coderag sync` hang forever when a stale lock is left behind? Start with @src/lock.ts',
      reply: 'Let me read the lock implementation first. Fixed: `acquireLock` in src/lock.ts spun forever because it never checked whether the holder process was still alive. A zombie holder is now treated as dead, so the stale lock is broken after one …',
      files: ['src/lock.ts', 'src/util.ts'],
      isSidechain: false,
      kind: 'prompt',
    })
    assert.ok(top.score > 0)

    assert.deepEqual(await ids('fork child reaped'), [`${MAIN_SESSION}:main:14`])
    assert.deepEqual(await ids('fork child reaped', { includeSidechains: true }), [`${MAIN_SESSION}:main:14`, `${MAIN_SESSION}:${AGENT}:0`])
    // Not 'k1': its part '1' also matches the random temp directory names the transcripts mention (vlt-git-a1bC9z).
    assert.deepEqual(await ids('prose'), [`${WORKTREE_SESSION}:main:0`])
    assert.deepEqual(await ids('prose', { branch: 'main' }), [])
    assert.deepEqual(await ids('prose', { branch: 'feature/bm25' }), [`${WORKTREE_SESSION}:main:0`])
    // Both words beat one repeated.
    assert.deepEqual(await ids('lock fix'), [`${OLD_SESSION}:main:5`, `${MAIN_SESSION}:main:21`, `${MAIN_SESSION}:main:1`, `${MAIN_SESSION}:main:14`, `${MAIN_SESSION}:main:25`])
    assert.deepEqual(await ids('release notes', { after: '2025-06-01' }), [])
    assert.deepEqual(await ids('release notes', { before: '2025-06-01' }), [`${OLD_SESSION}:main:1`, `${OLD_SESSION}:main:5`])
    assert.deepEqual(await ids('release notes', { after: '2025-05-01T08:02:00Z', before: '2025-05-02' }), [`${OLD_SESSION}:main:5`])
    // The compaction summary is searchable, as the exchange it opens; identifiers match whole and by part (holder).
    assert.deepEqual(await ids('liveness holderIsDead'), [`${MAIN_SESSION}:main:21`, `${MAIN_SESSION}:main:1`, `${MAIN_SESSION}:main:14`, `${MAIN_SESSION}:main:25`])
    await assert.rejects(queryHistory(repo.dir, 'lock', { configDir, after: 'last tuesday' }), UsageError)
  })

  it('answers which sessions touched or discussed a file, newest first', async () => {
    const lock = await fileHistory(repo.dir, 'src/lock.ts', { configDir })
    assert.deepEqual(lock.sessions.map((s) => ({ id: s.sessionId, title: s.title, relation: s.relation, exchanges: s.exchanges.map((e) => [e.exchangeId, e.relation]) })), [
      {
        id: MAIN_SESSION,
        title: 'Stale lock hang',
        relation: 'touched',
        exchanges: [[`${MAIN_SESSION}:main:21`, 'discussed'], [`${MAIN_SESSION}:main:1`, 'touched']],
      },
      { id: OLD_SESSION, title: 'Release notes for 0.3', relation: 'discussed', exchanges: [[`${OLD_SESSION}:main:5`, 'discussed']] },
    ])
    assert.deepEqual(lock.sessions[1].exchanges[0], {
      exchangeId: `${OLD_SESSION}:main:5`,
      agentId: null,
      isSidechain: false,
      timestamp: '2025-05-01T08:05:00.000Z',
      relation: 'discussed',
      tools: [],
      prompt: 'Also mention the lock fix from src/lock.ts',
      reply: 'Added a line about the lock fix.',
    })

    // Written by a subagent: the session that started it touched the file.
    const test = await fileHistory(repo.dir, 'test/lock.test.ts', { configDir })
    assert.deepEqual(test.sessions.map((s) => [s.sessionId, s.relation, s.exchanges.map((e) => [e.agentId, e.isSidechain, e.tools])]), [
      [MAIN_SESSION, 'touched', [[AGENT, true, ['Write']]]],
    ])

    // A folder: anything under it; the worktree session's edit counts, relative to its own root.
    const src = await fileHistory(repo.dir, 'src', { configDir })
    assert.deepEqual(src.sessions.map((s) => [s.sessionId, s.timestamp]), [
      [WORKTREE_SESSION, '2025-07-02T14:00:00.000Z'],
      [MAIN_SESSION, '2025-06-10T11:02:00.100Z'],
      [OLD_SESSION, '2025-05-01T08:05:00.000Z'],
    ])
    // Paths typed from a subdirectory, relative to it or to the root.
    assert.equal((await fileHistory(join(repo.dir, 'src'), 'lock.ts', { configDir })).sessions.length, 2)
    assert.equal((await fileHistory(join(repo.dir, 'src'), 'src/lock.ts', { configDir })).path, 'src/lock.ts')
    assert.deepEqual((await fileHistory(repo.dir, 'src/lock.ts', { configDir, before: '2025-06-01' })).sessions.map((s) => s.sessionId), [OLD_SESSION])
  })

  it('re-ingests incrementally: appended lines, a rewritten last line, a rewritten file, deleted transcripts', async () => {
    await ingestHistory(repo.dir, { configDir })
    const root = repo.dir
    // The unfinished tool result line is completed, the reply follows, then a new prompt.
    appendFileSync(config.main, 'essfully at: ' + root + '/README.md"}]},"uuid":"u-027","timestamp":"2025-06-10T11:03:19.500Z","sessionId":"' + MAIN_SESSION + '","cwd":"' + root + '"}\n')
    appendFileSync(config.main, line(assistantLine(root, 'a-028', '2025-06-10T11:03:25.000Z', 'msg_09Doc', { type: 'text', text: 'Documented the hundred millisecond poll in README.md.' })))
    appendFileSync(config.main, line(userLine(root, 'u-029', '2025-06-10T11:10:00.000Z', 'Bump the version to 0.4 for the release')))
    appendFileSync(config.main, line(assistantLine(root, 'a-030', '2025-06-10T11:10:04.000Z', 'msg_10Ver', { type: 'text', text: 'Bumped package.json to 0.4.0 with a changelog entry.' })))
    const appended = await ingestHistory(repo.dir, { configDir })
    assert.deepEqual({ newExchanges: appended.newExchanges, updatedSessions: appended.updatedSessions, lines: appended.lines, exchanges: appended.exchanges, truncated: appended.truncatedLines }, {
      newExchanges: 1, updatedSessions: 1, lines: 6, exchanges: 9, truncated: 0,
    })
    const [docs] = (await searchHistory(repo.dir, 'hundred millisecond poll', { configDir })).map((r) => r.metadata.exchangeId)
    assert.equal(docs, `${MAIN_SESSION}:main:25`, 'the provisional exchange was rebuilt with its reply')

    // The session rewrites its last (provisional) line.
    const text = readFileSync(config.main, 'utf8')
    const lastLineStart = text.lastIndexOf('\n', text.length - 2) + 1
    truncateSync(config.main, Buffer.byteLength(text.slice(0, lastLineStart)))
    appendFileSync(config.main, line(assistantLine(root, 'a-030', '2025-06-10T11:10:04.000Z', 'msg_10Ver', { type: 'text', text: 'Version bump postponed: the release branch is frozen.' })))
    const rewrittenLine = await ingestHistory(repo.dir, { configDir })
    assert.deepEqual({ newExchanges: rewrittenLine.newExchanges, exchanges: rewrittenLine.exchanges, lines: rewrittenLine.lines }, { newExchanges: 0, exchanges: 9, lines: 2 })
    assert.deepEqual((await queryHistory(repo.dir, 'frozen postponed', { configDir })).results.map((r) => r.exchangeId), [`${MAIN_SESSION}:main:29`])
    assert.deepEqual((await queryHistory(repo.dir, 'package json', { configDir })).results.map((r) => r.exchangeId), [])

    // A file rewritten shorter than where ingest resumes is read again from the start.
    writeFileSync(config.old, readFileSync(config.old, 'utf8').split('\n').slice(0, 3).join('\n') + '\n')
    const rewrittenFile = await ingestHistory(repo.dir, { configDir })
    assert.deepEqual({ rewritten: rewrittenFile.rewrittenTranscripts, newExchanges: rewrittenFile.newExchanges, exchanges: rewrittenFile.exchanges }, { rewritten: 1, newExchanges: 0, exchanges: 8 })

    // Deleting a session's transcripts removes its exchanges, documents and mentions together.
    rmSync(config.old)
    const removedOld = await ingestHistory(repo.dir, { configDir })
    assert.deepEqual({ removed: removedOld.removedSessions, sessions: removedOld.sessions, exchanges: removedOld.exchanges }, { removed: 1, sessions: 2, exchanges: 7 })
    assert.deepEqual((await queryHistory(repo.dir, 'release notes changelog', { configDir })).results.map((r) => r.sessionId).filter((id) => id === OLD_SESSION), [])
    assert.deepEqual((await fileHistory(repo.dir, 'CHANGELOG.md', { configDir })).sessions, [])

    rmSync(config.main)
    rmSync(join(config.main.slice(0, -'.jsonl'.length)), { recursive: true })
    const removedMain = await ingestHistory(repo.dir, { configDir })
    assert.deepEqual({ removed: removedMain.removedSessions, sessions: removedMain.sessions, exchanges: removedMain.exchanges, transcripts: removedMain.transcripts }, { removed: 1, sessions: 1, exchanges: 1, transcripts: 1 })
    assert.deepEqual(readdirSync(join(repo.dir, '.vlt', 'history', 'transcripts')).length, 1)
    assert.deepEqual((await fileHistory(repo.dir, 'src/lock.ts', { configDir })).sessions, [])
  })

  it('re-checks a transcript modified within the clock tick of the last read (same size, same mtime)', async () => {
    const root = repo.dir
    appendFileSync(config.old, line({ ...userLine(root, 'o-007', '2025-05-01T09:00:00.000Z', 'Tag the release commit'), sessionId: OLD_SESSION }))
    // A whole-second time, as coarse filesystems keep it, so that it can be restored exactly.
    const mtime = new Date(Math.floor(Date.now() / 1000) * 1000)
    utimesSync(config.old, mtime, mtime)
    await ingestHistory(repo.dir, { configDir })
    const text = readFileSync(config.old, 'utf8')
    writeFileSync(config.old, text.replace('Tag the release commit', 'Sign the tarball files'))
    utimesSync(config.old, mtime, mtime)
    assert.equal(statSync(config.old).size, Buffer.byteLength(text))
    await ingestHistory(repo.dir, { configDir })
    assert.deepEqual((await queryHistory(repo.dir, 'tarball', { configDir })).results.map((r) => r.exchangeId), [`${OLD_SESSION}:main:7`])
  })

  it('gives the oracle RetrievalResults, by words and by linked files', async () => {
    const [first] = await searchHistory(repo.dir, 'stale lock hang', { configDir, limit: 2 })
    assert.deepEqual({ ...first, content: first.content.split('\n') }, {
      sourceType: 'history',
      sourcePath: `${MAIN_SESSION}:main:1`,
      retrievalMethod: 'bm25',
      score: 1,
      tokenCount: Math.ceil(first.content.length / 4),
      content: [
        'Session "Stale lock hang" on main, 2025-06-10T09:14:02.120Z',
        'User: Why does `git vlt coderag sync` hang forever when a stale lock is left behind? Start with @src/lock.ts',
        'Assistant: Let me read the lock implementation first.',
        '',
        'Fixed: `acquireLock` in src/lock.ts spun forever because it never checked whether the holder process was still alive.',
        '',
        'A zombie holder is now treated as dead, so the stale lock is broken after one poll.',
        `Tools: Read ${repo.dir}/src/lock.ts, Bash grep -rn --stale src/util.ts src/lock.ts (error), Edit ${repo.dir}/src/lock.ts`,
      ],
      metadata: {
        sessionId: MAIN_SESSION,
        exchangeId: `${MAIN_SESSION}:main:1`,
        agentId: null,
        isSidechain: false,
        title: 'Stale lock hang',
        timestamp: '2025-06-10T09:14:02.120Z',
        branch: 'main',
        files: ['src/lock.ts', 'src/util.ts'],
      },
    })
    const linked = await searchHistory(repo.dir, 'quux', { configDir, files: ['CHANGELOG.md', 'src/search.ts'] })
    assert.deepEqual(linked.map((r) => [r.sourcePath, r.retrievalMethod, r.score]), [
      [`${WORKTREE_SESSION}:main:0`, 'graph', 0.6],
      [`${OLD_SESSION}:main:1`, 'graph', 0.6],
    ])
  })
})
