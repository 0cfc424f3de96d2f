import { strict as assert } from 'node:assert'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CLI, cliEnv, vlt, vltJson, vltSpawn } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('git vlt thread (CLI, real repositories)', function () {
  this.timeout(120_000)
  let repo: GitFixture
  beforeEach(() => {
    repo = createGitRepo({ files: { 'README.md': '# project\n' } })
    repo.git('config', 'user.name', 'Alice Smith')
  })
  afterEach(() => repo.cleanup())

  it('new, push (argument and stdin), read, list, search', () => {
    const created = vltJson(repo.dir, ['thread', 'new', 'auth', '--description', 'Sessions to JWT.'])
    assert.deepEqual({ ...created, created: undefined }, { name: 'auth', title: 'auth', created: undefined, description: 'Sessions to JWT.', path: '.vlt/threads/auth.md' })

    const pushed = vltJson(repo.dir, ['thread', 'push', 'auth', 'Use JWT.', '--type', 'decision'])
    assert.deepEqual({ thread: pushed.thread, author: pushed.author, type: pushed.type, text: pushed.text }, { thread: 'auth', author: 'Alice Smith', type: 'decision', text: 'Use JWT.' })
    const piped = spawnSync(process.execPath, [CLI, 'thread', 'push', 'auth', '--author', 'claude', '--json'], {
      cwd: repo.dir,
      env: cliEnv(),
      input: 'Benchmarks:\n\n- verify: 40 µs\n',
      encoding: 'utf8',
    })
    assert.equal(piped.status, 0, piped.stderr)
    assert.equal(JSON.parse(piped.stdout).text, 'Benchmarks:\n\n- verify: 40 µs')

    const read = vltJson(repo.dir, ['thread', 'read', 'auth', '--summary'])
    assert.deepEqual(
      read.entries.map((e: any) => [e.id, e.author, e.type, e.text]),
      [
        [pushed.id, 'Alice Smith', 'decision', 'Use JWT.'],
        [read.entries[1].id, 'claude', 'thought', 'Benchmarks:\n\n- verify: 40 µs'],
      ],
    )
    assert.deepEqual(read.summary, {
      text: `Decisions:\n- ${pushed.timestamp.slice(0, 10)} Alice Smith: Use JWT.\n\nThoughts:\n- ${read.entries[1].timestamp.slice(0, 10)} claude: Benchmarks:`,
      upToEntry: read.entries[1].id,
      stale: false,
      generatedBy: 'extractive',
    })
    assert.equal(read.name, 'auth')
    assert.ok(!('warnings' in read))

    const text = vlt(repo.dir, ['thread', 'read', 'auth'])
    assert.equal(text.status, 0)
    assert.match(text.stdout, /^# auth {2}\(auth, created \S+\)\n\nSessions to JWT\.\n\n## decision · Alice Smith · \S+ {2}\[\S+\]\n\nUse JWT\.\n/)

    assert.deepEqual(vltJson(repo.dir, ['thread', 'list']).threads, [{ name: 'auth', title: 'auth', entries: 2, lastActivity: read.entries[1].timestamp }])
    const search = vltJson(repo.dir, ['thread', 'search', 'verify'])
    assert.deepEqual(search.hits.map((h: any) => [h.thread, h.entryId, h.snippet]), [['auth', read.entries[1].id, '- verify: 40 µs']])

    // The summary cache stays private; the thread and its merge attribute are what git sees.
    assert.equal(repo.git('status', '--porcelain', '--untracked-files=all'), '?? .vlt/threads/.gitattributes\n?? .vlt/threads/auth.md')
  })

  it('summarises an oracle session thread on every read (cached), other threads only when asked; --no-summary leaves it out', () => {
    for (const name of ['oracle-session-2026-11-20', 'auth']) {
      vlt(repo.dir, ['thread', 'new', name])
      vlt(repo.dir, ['thread', 'push', name, 'Chose the WAL over the journal.', '--type', 'decision'])
    }
    const session = vltJson(repo.dir, ['thread', 'read', 'oracle-session-2026-11-20'])
    assert.equal(session.summary.generatedBy, 'extractive')
    assert.match(session.summary.text, /^Decisions:\n- \S+ Alice Smith: Chose the WAL over the journal\.$/)
    assert.ok(existsSync(join(repo.dir, '.vlt', 'cache', 'threads', 'oracle-session-2026-11-20.summary.json')))
    assert.match(vlt(repo.dir, ['thread', 'read', 'oracle-session-2026-11-20']).stdout, /## Summary \(extractive\)\n\nDecisions:/)
    assert.ok(!('summary' in vltJson(repo.dir, ['thread', 'read', 'oracle-session-2026-11-20', '--no-summary'])))
    assert.ok(!('summary' in vltJson(repo.dir, ['thread', 'read', 'auth'])))
  })

  it('advises committing a new thread only where there is a working tree to commit it from', () => {
    assert.match(vlt(repo.dir, ['thread', 'new', 'auth']).stdout, /^Created \.vlt\/threads\/auth\.md — .* and commit it to share\.\n$/)
    const bare = createGitRepo({ bare: true })
    try {
      const run = vlt(bare.dir, ['thread', 'new', 'auth'])
      assert.equal(run.status, 0, run.stderr)
      assert.doesNotMatch(run.stdout, /commit/i)
      assert.match(run.stdout, new RegExp(`^Created ${join(bare.dir, 'vlt', 'threads', 'auth.md').replace(/[.]/g, '\\.')} — `))
      assert.match(run.stdout, /bare repository/)
      assert.equal(vltJson(bare.dir, ['thread', 'new', 'auth2']).path, join(bare.dir, 'vlt', 'threads', 'auth2.md'))
    } finally {
      bare.cleanup()
    }
  })

  it('exits 2 with one clear line on bad names, unknown threads and bad types', () => {
    vltJson(repo.dir, ['thread', 'new', 'auth-redesign'])
    const cases: Array<[string[], RegExp]> = [
      [['thread', 'new', '../escape'], /^git vlt: invalid thread name "\.\.\/escape": use lowercase letters/],
      [['thread', 'new', 'Auth'], /^git vlt: invalid thread name "Auth"/],
      [['thread', 'push', 'auth-redesing', 'x'], /^git vlt: no thread named auth-redesing — did you mean auth-redesign\?/],
      [['thread', 'read', 'nope'], /^git vlt: no thread named nope — create it with `git vlt thread new nope`/],
      [['thread', 'push', 'auth-redesign', '   '], /^git vlt: the entry text is empty/],
    ]
    for (const [args, message] of cases) {
      const run = vlt(repo.dir, args)
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`)
      assert.match(run.stderr, message)
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
    }
    const json = vlt(repo.dir, ['thread', 'read', 'nope', '--json'])
    assert.equal(json.status, 2)
    assert.equal(JSON.parse(json.stdout).error.code, 'usage')
    assert.notEqual(vlt(repo.dir, ['thread', 'push', 'auth-redesign', 'x', '--type', 'musing']).status, 0)
  })

  it('loses nothing when two processes push at once', async () => {
    vltJson(repo.dir, ['thread', 'new', 'busy'])
    const run = (who: string, i: number) =>
      new Promise<number | null>((resolve) => vltSpawn(repo.dir, ['thread', 'push', 'busy', `${who} ${i}`, '--author', who]).on('close', resolve))
    const worker = async (who: string) => {
      for (let i = 0; i < 6; i++) assert.equal(await run(who, i), 0)
    }
    await Promise.all([worker('alice'), worker('bob')])
    const texts = vltJson(repo.dir, ['thread', 'read', 'busy']).entries.map((e: any) => e.text).sort()
    assert.deepEqual(texts, ['alice 0', 'alice 1', 'alice 2', 'alice 3', 'alice 4', 'alice 5', 'bob 0', 'bob 1', 'bob 2', 'bob 3', 'bob 4', 'bob 5'])
    assert.equal(readFileSync(join(repo.dir, '.vlt/threads/busy.md'), 'utf8').match(/<!-- vlt:end /g)!.length, 12)
  })
})
