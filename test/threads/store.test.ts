import { strict as assert } from 'node:assert'
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { UsageError } from '../../src/core/errors.js'
import { appendEntry, createThread, listThreads, readThread, THREADS_GITATTRIBUTES } from '../../src/core/threads/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const at = (iso: string) => new Date(iso)

describe('thread store (real git repositories)', function () {
  this.timeout(60_000)
  let repo: GitFixture
  let vltDir: string
  beforeEach(() => {
    repo = createGitRepo({ files: { 'README.md': '# project\n' } })
    vltDir = join(repo.dir, '.vlt')
  })
  afterEach(() => repo.cleanup())

  it('creates a committable thread with the union-merge attribute, and appends entries', async () => {
    await createThread(vltDir, { name: 'auth', description: 'Sessions to JWT.', now: at('2024-05-01T09:00:00Z') })
    await appendEntry(vltDir, 'auth', { text: 'Use JWT.', type: 'decision', author: 'claude', now: at('2024-05-01T10:00:00Z') })
    assert.equal(readFileSync(join(vltDir, 'threads', '.gitattributes'), 'utf8'), THREADS_GITATTRIBUTES)
    assert.equal(repo.git('status', '--porcelain', '--untracked-files=all'), '?? .vlt/threads/.gitattributes\n?? .vlt/threads/auth.md')
    assert.equal(repo.git('check-attr', 'merge', '.vlt/threads/auth.md'), '.vlt/threads/auth.md: merge: union')
    const thread = await readThread(vltDir, 'auth')
    assert.deepEqual(
      { title: thread.title, created: thread.created, description: thread.description, entries: thread.entries.map(({ author, type, text, timestamp }) => ({ author, type, text, timestamp })) },
      { title: 'auth', created: '2024-05-01T09:00:00.000Z', description: 'Sessions to JWT.', entries: [{ author: 'claude', type: 'decision', text: 'Use JWT.', timestamp: '2024-05-01T10:00:00.000Z' }] },
    )
    assert.deepEqual(await listThreads(vltDir), { threads: [{ name: 'auth', title: 'auth', entries: 1, lastActivity: '2024-05-01T10:00:00.000Z' }], warnings: [] })
  })

  it('never writes a secret to a thread file: titles, descriptions and entries are redacted, and hand-written ones on read', async () => {
    const token = 'ghp_' + 'R4nd0mT0k3nV4lu3sXq9Zp2Lm7Kw8Jd5Hf1Y'
    const key = 'AKIA' + 'Z7Q2R4XB6N3M5K7J'
    await createThread(vltDir, { name: 'ops', title: `Rotating ${key}`, description: `Old token ${token}.` })
    await appendEntry(vltDir, 'ops', { text: `Revoked ${token}; the new one is in the vault.`, type: 'decision', author: 'claude' })
    const file = readFileSync(join(vltDir, 'threads', 'ops.md'), 'utf8')
    assert.ok(!file.includes(token) && !file.includes(key), file)
    assert.match(file, /Revoked \[REDACTED:github-pat\]; the new one is in the vault\./)
    // Someone commits a thread with a key in it: readers (search, the oracle) never see it.
    writeFileSync(join(vltDir, 'threads', 'ops.md'), file.replace('the new one is in the vault', `the new one is ${key}`))
    const thread = await readThread(vltDir, 'ops')
    assert.equal(thread.entries[0]!.text, 'Revoked [REDACTED:github-pat]; the new one is [REDACTED:aws-access-token].')
  })

  it('refuses duplicates and unknown threads with a suggestion', async () => {
    await createThread(vltDir, { name: 'auth-redesign' })
    await assert.rejects(createThread(vltDir, { name: 'auth-redesign' }), (e: Error) => e instanceof UsageError && /already exists/.test(e.message))
    await assert.rejects(readThread(vltDir, 'auth-redesing'), (e: Error) => e instanceof UsageError && e.message === 'no thread named auth-redesing — did you mean auth-redesign? (`git vlt thread list` shows all 1)')
    await assert.rejects(
      appendEntry(vltDir, 'zzz', { text: 'x', type: 'thought', author: 'user' }),
      (e: Error) => e instanceof UsageError && e.message === 'no thread named zzz — create it with `git vlt thread new zzz` or see `git vlt thread list`',
    )
  })

  /** Thread `auth` with one committed entry, then `left` and `right` appended on two branches and merged. */
  async function mergeBranches(left: string[], right: string[]): Promise<void> {
    await createThread(vltDir, { name: 'auth', now: at('2024-05-01T09:00:00Z') })
    await appendEntry(vltDir, 'auth', { text: 'Base entry.', type: 'thought', author: 'user', now: at('2024-05-01T09:30:00Z') })
    repo.commit('thread')
    repo.git('checkout', '-q', '-b', 'left')
    for (const [i, text] of left.entries()) await appendEntry(vltDir, 'auth', { text, type: 'decision', author: 'alice', now: at(`2024-05-01T10:0${i * 2}:00Z`) })
    repo.commit('left')
    repo.git('checkout', '-q', 'main')
    for (const [i, text] of right.entries()) await appendEntry(vltDir, 'auth', { text, type: 'research', author: 'bob', now: at(`2024-05-01T10:0${i * 2 + 1}:00Z`) })
    repo.commit('right')
    repo.git('merge', '-q', '--no-edit', 'left')
    assert.equal(repo.git('status', '--porcelain'), '', 'the merge neither conflicts nor leaves changes')
  }

  const timeline = async () => (await readThread(vltDir, 'auth')).entries.map((e) => [e.timestamp.slice(11, 16), e.author, e.text])

  it('merges two branches that both appended entries: no conflict, every entry intact, sorted by time', async () => {
    // Entries sharing their blank lines and last lines: git trims what both sides' additions start and end with.
    const left = ['Left decision.\n\nDone.', 'Left second.\n\n```\nmake\n```']
    const right = ['Right research.\n\nDone.', 'Right second.\n\n```\nmake test\n```', 'Right third.']
    await mergeBranches(left, right)
    assert.deepEqual((await readThread(vltDir, 'auth')).problems, [])
    assert.deepEqual(await timeline(), [
      ['09:30', 'user', 'Base entry.'],
      ['10:00', 'alice', left[0]],
      ['10:01', 'bob', right[0]],
      ['10:02', 'alice', left[1]],
      ['10:03', 'bob', right[1]],
      ['10:05', 'bob', right[2]],
    ])
  })

  it('recovers entries a union merge spliced (four identical lines on both sides) and heals the file on the next push', async () => {
    const left = ['Left decision.\n\n```sh\nmake\n```\n\nDone.', 'Left second.\n\nDone.']
    const right = ['Right research.\n\n```sh\nmake test\n```\n\nDone.', 'Right second.\n\nDone.']
    await mergeBranches(left, right)
    const source = readFileSync(join(vltDir, 'threads', 'auth.md'), 'utf8')
    assert.match(source, /make test\n### decision · alice/, 'git spliced the two bodies (otherwise this test tests nothing)')
    const expected = [
      ['09:30', 'user', 'Base entry.'],
      ['10:00', 'alice', left[0]],
      ['10:01', 'bob', right[0]],
      ['10:02', 'alice', left[1]],
      ['10:03', 'bob', right[1]],
    ]
    assert.deepEqual(await timeline(), expected)
    const problems = (await readThread(vltDir, 'auth')).problems
    assert.equal(problems.length, 2)
    assert.ok(problems.every((p) => /was spliced by a merge; its text was recovered from commit [0-9a-f]{12}/.test(p)), problems.join('\n'))
    await appendEntry(vltDir, 'auth', { text: 'After merge.', type: 'insight', author: 'user', now: at('2024-05-01T11:00:00Z') })
    const healed = await readThread(vltDir, 'auth')
    assert.deepEqual(healed.problems, [])
    assert.deepEqual(await timeline(), [...expected, ['11:00', 'user', 'After merge.']])
  })

  it('loses no entry when two processes push at the same time', async () => {
    await createThread(vltDir, { name: 'busy' })
    const module = pathToFileURL(join(process.cwd(), 'src/core/threads/index.ts')).href
    const pusher = (who: string) =>
      new Promise<void>((resolve, reject) => {
        const code = `const { appendEntry } = await import(${JSON.stringify(module)});
          for (let i = 0; i < 25; i++) await appendEntry(${JSON.stringify(vltDir)}, 'busy', { text: '${who} ' + i, type: 'thought', author: '${who}' })`
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'pipe'] })
        let stderr = ''
        child.stderr.on('data', (chunk) => (stderr += chunk))
        child.on('close', (status) => (status === 0 ? resolve() : reject(new Error(`pusher ${who} exited ${status}: ${stderr}`))))
      })
    await Promise.all([pusher('alice'), pusher('bob')])
    const thread = await readThread(vltDir, 'busy')
    assert.deepEqual(thread.problems, [])
    const texts = thread.entries.map((e) => e.text)
    const expected = ['alice', 'bob'].flatMap((who) => Array.from({ length: 25 }, (_, i) => `${who} ${i}`))
    assert.deepEqual([...texts].sort(), [...expected].sort())
    assert.equal(new Set(thread.entries.map((e) => e.id)).size, 50)
  })
})
