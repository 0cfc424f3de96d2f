import { strict as assert } from 'node:assert'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { loadCommitHistory, readCommitIndex, syncCommits, type CommitsContext } from '../../src/core/commits/index.js'
import { symbolOf } from '../../src/core/commits/log.js'
import { openRepo } from '../../src/core/git/index.js'
import { COMMIT_INDEX_KIND, COMMIT_INDEX_VERSION } from '../../src/core/commits/store.js'
import { ensureVltDir, writeRecord } from '../../src/core/store/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/** The commit index's view of the repository as it is now (HEAD read afresh, as every command does). */
async function context(repo: GitFixture, maxCommits = 0): Promise<CommitsContext> {
  const opened = await openRepo(repo.dir)
  return { repo: opened, paths: await ensureVltDir(opened.vltDir), maxCommits }
}

async function sync(repo: GitFixture, maxCommits = 0, warnings: string[] = []) {
  return syncCommits(await context(repo, maxCommits), { warn: (message) => warnings.push(message) })
}

async function history(repo: GitFixture, warnings: string[] = []) {
  return loadCommitHistory(await context(repo), (message) => warnings.push(message))
}

/** Deletes a loose object: what reads it fails from then on. */
function removeObject(repo: GitFixture, id: string): void {
  rmSync(join(repo.dir, '.git', 'objects', id.slice(0, 2), id.slice(2)))
}

const subjects = async (repo: GitFixture): Promise<string[]> => (await history(repo)).commits.map((commit) => commit.subject)

describe('commit index: hunk symbols', () => {
  it('names the declaration of a hunk header in each language', () => {
    assert.equal(symbolOf('def parse_header(self, raw):'), 'parse_header')
    assert.equal(symbolOf('class RetryMiddleware(BaseMiddleware):'), 'RetryMiddleware')
    assert.equal(symbolOf('async def fetch(url):'), 'fetch')
    assert.equal(symbolOf('func (r *Router) Handle(path string) {'), 'Handle')
    assert.equal(symbolOf('pub fn search_path(&self) -> bool {'), 'search_path')
    assert.equal(symbolOf('impl Searcher {'), 'Searcher')
    assert.equal(symbolOf('export function renderComponentRoot(vnode) {'), 'renderComponentRoot')
    assert.equal(symbolOf('  private resolveTarget<T>(el: T): void {'), 'resolveTarget')
    assert.equal(symbolOf('static int nfs_fill_super(struct super_block *sb)'), 'nfs_fill_super')
    assert.equal(symbolOf('public JsonElement toJsonTree(Object src) {'), 'toJsonTree')
    assert.equal(symbolOf('    if (ready) {'), undefined)
    assert.equal(symbolOf('Features and limitations'), undefined)
    assert.equal(symbolOf(''), undefined)
  })
})

describe('commit index: sync', function () {
  this.timeout(60_000)
  let repo: GitFixture
  beforeEach(() => {
    repo = createGitRepo()
    repo.write({ 'app/retry.py': 'def backoff(attempt):\n    return 2 ** attempt\n\n\ndef give_up(attempt):\n    return attempt > 5\n' })
    repo.commit('Add exponential backoff for retries')
    repo.write({ 'app/cookies.py': 'def domain_matches(cookie, host):\n    return host.endswith(cookie.domain)\n' })
    repo.commit('Match cookie domains by suffix\n\nA cookie for example.com applies to www.example.com.')
  })
  afterEach(() => repo.cleanup())

  it('indexes every commit of HEAD with its message, files, author and date, then only new ones', async () => {
    const first = await sync(repo)
    assert.deepEqual([first.mode, first.added, first.commits], ['rebuilt', 2, 2])
    const loaded = await history(repo)
    assert.deepEqual(loaded.commits.map((c) => [c.subject, c.body, c.files.map((f) => `${f.status} ${f.path}`), c.author]), [
      ['Match cookie domains by suffix', 'A cookie for example.com applies to www.example.com.', ['A app/cookies.py'], 'Fixture'],
      ['Add exponential backoff for retries', '', ['A app/retry.py'], 'Fixture'],
    ])
    assert.equal(loaded.commits[0]!.time, Date.parse('2024-01-01T00:00:00Z') / 1000)

    assert.equal((await sync(repo)).mode, 'unchanged')
    repo.write({ 'app/retry.py': 'def backoff(attempt):\n    return 3 ** attempt\n\n\ndef give_up(attempt):\n    return attempt > 5\n' })
    repo.commit('Back off faster')
    const update = await sync(repo)
    assert.deepEqual([update.mode, update.added, update.dropped, update.commits], ['incremental', 1, 0, 3])
    const after = await history(repo)
    assert.deepEqual(after.commits.map((c) => c.subject), ['Back off faster', 'Match cookie domains by suffix', 'Add exponential backoff for retries'])
    assert.deepEqual(after.commits[0]!.files[0]!.symbols, ['backoff'], 'the hunk header names the function the change is in')
  })

  it('names the function a hunk is in for C with git\'s default pattern, and follows a renamed document', async () => {
    const c = (limit: number) => `static int parse_header(const char *raw)\n{\n  return raw[0];\n}\n\nint give_up(int attempt)\n{\n  int limit = ${limit};\n  if (attempt > limit)\n    goto out;\n  return 0;\nout:\n  return 1;\n}\n`
    repo.write({ 'src/retry.c': c(5), 'docs/retry.md': `# Retries\n\n${'Retries back off exponentially.\n'.repeat(20)}` })
    repo.commit('Add the C retry helpers')
    repo.write({ 'src/retry.c': c(9) })
    repo.git('mv', 'docs/retry.md', 'docs/retries.md')
    repo.write({ 'docs/retries.md': `# Retries\n\n${'Retries back off exponentially.\n'.repeat(20)}See also give_up.\n` })
    repo.commit('Give up later, in C')
    await sync(repo)
    const [latest] = (await history(repo)).commits
    assert.deepEqual(latest!.files.map((f) => [f.status, f.path, f.symbols]), [['R', 'docs/retries.md', []], ['M', 'src/retry.c', ['give_up']]])
  })

  it('keeps the packs few as one-commit updates accumulate', async () => {
    await sync(repo)
    for (let i = 0; i < 12; i++) {
      repo.write({ 'app/counter.py': `COUNT = ${i}\n` })
      repo.commit(`Count to ${i}`)
      assert.equal((await sync(repo)).mode, 'incremental')
    }
    const index = (await readCommitIndex((await context(repo)).paths))!
    assert.equal(index.packs.reduce((sum, pack) => sum + pack.commits, 0), 14)
    assert.ok(index.packs.length <= 4, `${index.packs.length} packs`)
    assert.deepEqual(readdirSync(join(repo.dir, '.vlt/commits/packs')).sort(), index.packs.map((pack) => `${pack.id}.mpk`).sort(), 'merged packs are removed')
    assert.equal((await history(repo)).size, 14)
  })

  it('writes a long history in packs of bounded size as git streams it, and never merges past the bound', async () => {
    for (let i = 0; i < 5; i++) {
      repo.write({ 'app/counter.py': `COUNT = ${i}\n` })
      repo.commit(`Count to ${i}`)
    }
    const ctx = await context(repo)
    const built = await syncCommits(ctx, { warn: () => {}, packCommits: 3 })
    assert.deepEqual([built.mode, built.commits], ['rebuilt', 7])
    assert.deepEqual((await readCommitIndex(ctx.paths))!.packs.map((pack) => pack.commits), [3, 3, 1])
    repo.write({ 'app/counter.py': 'COUNT = 99\n' })
    repo.commit('Count to 99')
    await syncCommits(await context(repo), { warn: () => {}, packCommits: 3 })
    assert.deepEqual((await readCommitIndex(ctx.paths))!.packs.map((pack) => pack.commits), [1, 3, 3, 1])
    assert.deepEqual((await subjects(repo)).slice(0, 3), ['Count to 99', 'Count to 4', 'Count to 3'])
    assert.equal((await history(repo)).size, 8)
  })

  it('reads a long history with git processes side by side and keeps git\'s order', async () => {
    // 4,400 commits (git fast-import writes them in a blink): two readers of 2,200 on two cores.
    const count = 4_400
    const stream = [`commit refs/heads/main\nmark :1\ncommitter Fixture <fixture@example.com> 1700000000 +0000\ndata 5\nstart\nfrom ${repo.git('rev-parse', 'HEAD')}\n`]
    for (let i = 2; i <= count; i++) {
      const message = `Count to ${i}`
      stream.push(`commit refs/heads/main\nmark :${i}\ncommitter Fixture <fixture@example.com> ${1700000000 + i} +0000\ndata ${message.length}\n${message}\nfrom :${i - 1}\nM 100644 inline app/counter${i % 7}.py\ndata ${String(i).length + 1}\n${i}\n\n`)
    }
    execFileSync('git', ['fast-import', '--quiet'], { cwd: repo.dir, input: stream.join('') })
    repo.git('reset', '-q', '--hard', 'main')
    const built = await syncCommits(await context(repo), { warn: () => {}, packCommits: 1_000 })
    assert.deepEqual([built.mode, built.commits], ['rebuilt', count + 2])
    const loaded = await history(repo)
    assert.deepEqual(loaded.commits.map((c) => c.hash), repo.git('rev-list', '--no-merges', 'HEAD').split('\n'))
    assert.deepEqual(loaded.commits[0]!.files.map((f) => f.path), [`app/counter${count % 7}.py`])
    assert.ok(availableParallelism() < 2 || (await readCommitIndex((await context(repo)).paths))!.packs.length === 6, 'each reader writes its own packs: 1,000 + 1,000 + 200, twice')
  })

  it('drops the commits a rebase rewrote, keeps those still reachable, reads the new ones', async () => {
    await sync(repo)
    repo.git('checkout', '-q', '-b', 'feature')
    repo.write({ 'app/feature.py': 'def flag():\n    return True\n' })
    repo.commit('Add the feature flag')
    await sync(repo)
    repo.git('checkout', '-q', 'main')
    repo.write({ 'app/other.py': 'X = 1\n' })
    repo.commit('Unrelated change on main')
    repo.git('checkout', '-q', 'feature')
    repo.git('rebase', '-q', 'main')
    const rebased = await sync(repo)
    assert.deepEqual([rebased.mode, rebased.added, rebased.dropped, rebased.commits], ['rebuilt', 2, 1, 4])
    const hashes = (await history(repo)).commits.map((c) => c.hash)
    assert.deepEqual(hashes.sort(), repo.git('rev-list', 'HEAD').split('\n').sort(), 'exactly the commits reachable from HEAD')
  })

  it('follows renames: older commits name the file as it is called today', async () => {
    repo.git('mv', 'app/retry.py', 'app/backoff.py')
    repo.commit('Rename the retry module')
    repo.write({ 'app/backoff.py': 'def backoff(attempt):\n    return 2 ** attempt\n\n\ndef give_up(attempt):\n    return attempt > 9\n' })
    repo.commit('Give up later')
    await sync(repo)
    const loaded = await history(repo)
    const files = Object.fromEntries(loaded.commits.map((c) => [c.subject, c.files.map((f) => f.path)]))
    assert.deepEqual(files['Add exponential backoff for retries'], ['app/backoff.py'])
    assert.deepEqual(files['Rename the retry module'], ['app/backoff.py'])
    assert.deepEqual(loaded.commitsOf('app/backoff.py').map((i) => loaded.commits[i]!.subject), ['Give up later', 'Rename the retry module', 'Add exponential backoff for retries'])
  })

  it('never holds a commit newer than HEAD: other branches, or a checkout of an older commit', async () => {
    const base = repo.git('rev-parse', 'HEAD')
    repo.git('checkout', '-q', '-b', 'elsewhere')
    repo.write({ 'app/elsewhere.py': 'Y = 2\n' })
    repo.commit('Work on another branch')
    repo.git('checkout', '-q', 'main')
    await sync(repo)
    assert.deepEqual(await subjects(repo), ['Match cookie domains by suffix', 'Add exponential backoff for retries'])

    repo.write({ 'app/late.py': 'Z = 3\n' })
    repo.commit('A later commit')
    await sync(repo)
    repo.git('checkout', '-q', '--detach', `${base}~1`)
    const back = await sync(repo)
    assert.deepEqual([back.mode, back.dropped, back.commits], ['rebuilt', 2, 1])
    assert.deepEqual(await subjects(repo), ['Add exponential backoff for retries'])
  })

  it('a history loaded for another HEAD than the indexed one is brought up to date first', async () => {
    await sync(repo)
    repo.write({ 'app/late.py': 'Z = 3\n' })
    repo.commit('Not synced yet')
    assert.deepEqual((await subjects(repo))[0], 'Not synced yet')
  })

  it('keeps the newest max_commits commits', async () => {
    repo.write({ 'app/third.py': 'T = 3\n' })
    repo.commit('Third')
    const bounded = await sync(repo, 2)
    assert.deepEqual([bounded.added, bounded.commits], [2, 2])
    const all = await sync(repo, 0)
    assert.deepEqual([all.mode, all.added, all.commits], ['rebuilt', 1, 3])
  })

  it('leaves merges out and reads a merged branch incrementally', async () => {
    await sync(repo)
    repo.git('checkout', '-q', '-b', 'topic')
    repo.write({ 'app/topic.py': 'def topic():\n    pass\n' })
    repo.commit('Topic work')
    repo.git('checkout', '-q', 'main')
    repo.write({ 'app/main.py': 'M = 1\n' })
    repo.commit('Main work')
    repo.git('merge', '-q', '--no-ff', '-m', 'Merge branch topic', 'topic')
    const merged = await sync(repo)
    assert.deepEqual([merged.mode, merged.added], ['incremental', 2])
    assert.deepEqual((await subjects(repo)).sort(), ['Add exponential backoff for retries', 'Main work', 'Match cookie domains by suffix', 'Topic work'])
  })

  it('reads a root commit without its patch: its blobs are never loaded', async () => {
    // app/retry.py is unchanged since the root added it: only the root's patch would read its blob.
    removeObject(repo, repo.git('rev-parse', 'HEAD:app/retry.py'))
    await sync(repo)
    assert.deepEqual((await history(repo)).commits.map((c) => c.files.map((f) => `${f.status} ${f.path}`)), [['A app/cookies.py'], ['A app/retry.py']])
  })

  it('reads a deleted file without its patch, and pairs the files after it with their hunks', async () => {
    const gone = repo.git('rev-parse', 'HEAD:app/retry.py')
    repo.git('rm', '-q', 'app/retry.py')
    repo.write({ 'app/cookies.py': 'def domain_matches(cookie, host):\n    return host == cookie.domain or host.endswith(cookie.domain)\n' })
    repo.commit('Retry elsewhere; match exact domains')
    // Only the root's patch (which added it) and the deletion's would read its blob.
    removeObject(repo, gone)
    await sync(repo)
    const [latest] = (await history(repo)).commits
    assert.deepEqual(latest!.files.map((f) => [f.status, f.path, f.symbols]), [['M', 'app/cookies.py', ['domain_matches']], ['D', 'app/retry.py', []]])
  })

  it('pairs hunks with their files after a file that changed type (git shows it as two patches)', async () => {
    symlinkSync('retry.py', join(repo.dir, 'app/alias.py'))
    repo.commit('Alias the retry module')
    rmSync(join(repo.dir, 'app/alias.py'))
    repo.write({
      'app/alias.py': 'def alias():\n    return 1\n',
      'app/cookies.py': 'def domain_matches(cookie, host):\n    return host == cookie.domain or host.endswith(cookie.domain)\n',
    })
    repo.commit('Make the alias a module; match exact domains')
    await sync(repo)
    const [latest] = (await history(repo)).commits
    assert.deepEqual(latest!.files.map((f) => [f.status, f.path, f.symbols]), [['T', 'app/alias.py', []], ['M', 'app/cookies.py', ['domain_matches']]])
  })

  it('keeps git\'s order when roots come between other commits (unrelated histories merged)', async () => {
    repo.git('checkout', '-q', '--orphan', 'vendored')
    repo.git('rm', '-q', '-r', '-f', '.')
    repo.write({ 'vendor/lib.c': 'int lib(void)\n{\n  return 1;\n}\n' })
    repo.commit('Vendor lib')
    repo.write({ 'vendor/lib.c': 'int lib(void)\n{\n  return 2;\n}\n' })
    repo.commit('Update lib')
    repo.write({ 'vendor/lib.c': 'int lib(void)\n{\n  return 3;\n}\n' })
    repo.commit('Update lib again')
    repo.git('checkout', '-q', 'main')
    repo.git('merge', '-q', '--allow-unrelated-histories', '-m', 'Merge the vendored lib', 'vendored')
    repo.write({ 'app/retry.py': 'def backoff(attempt):\n    return 4 ** attempt\n' })
    repo.commit('Back off faster')
    const order = repo.git('rev-list', '--no-merges', 'HEAD').split('\n')
    const roots = repo.git('rev-list', '--max-parents=0', 'HEAD').split('\n')
    assert.ok(roots.some((root) => !roots.includes(order[order.indexOf(root) + 1] ?? root)), 'a root before other commits in git\'s order')
    await sync(repo)
    const loaded = await history(repo)
    assert.deepEqual(loaded.commits.map((c) => c.hash), order)
    assert.deepEqual(loaded.commits.map((c) => [c.subject, c.files.map((f) => [f.status, f.path, f.symbols])]), order.map((hash) => {
      const subject = repo.git('log', '-1', '--format=%s', hash)
      const expected: Record<string, Array<[string, string, string[]]>> = {
        'Back off faster': [['M', 'app/retry.py', ['backoff']]],
        'Update lib again': [['M', 'vendor/lib.c', ['lib']]],
        'Update lib': [['M', 'vendor/lib.c', ['lib']]],
        'Vendor lib': [['A', 'vendor/lib.c', []]],
        'Match cookie domains by suffix': [['A', 'app/cookies.py', []]],
        'Add exponential backoff for retries': [['A', 'app/retry.py', []]],
      }
      return [subject, expected[subject]]
    }))
  })

  it('reads odd file names and messages that hold the separators it uses', async () => {
    repo.write({ 'app/with space é.py': 'def spaced():\n    return 1\n', 'app/tab\there.py': 'V = 1\n' })
    repo.commit('Odd \x1e names \x1f here\n\nBody with \x1e and \x1f too.')
    repo.write({ 'app/with space é.py': 'def spaced():\n    return 2\n' })
    repo.commit('Change the spaced file')
    await sync(repo)
    const loaded = await history(repo)
    assert.deepEqual(loaded.commits[1]!.files.map((f) => f.path).sort(), ['app/tab\there.py', 'app/with space é.py'])
    assert.equal(loaded.commits[1]!.subject, 'Odd \x1e names \x1f here')
    assert.equal(loaded.commits[1]!.body, 'Body with \x1e and \x1f too.')
    assert.deepEqual(loaded.commits[0]!.files.map((f) => [f.path, f.symbols]), [['app/with space é.py', ['spaced']]])
  })

  it('rebuilds a damaged pack from git with one warning', async () => {
    await sync(repo)
    const { paths } = await context(repo)
    const pack = join(paths.commits, 'packs', `${(await readCommitIndex(paths))!.packs[0]!.id}.mpk`)
    const bytes = readFileSync(pack)
    bytes[bytes.length - 10] ^= 0xff
    writeFileSync(pack, bytes)
    const warnings: string[] = []
    assert.deepEqual((await history(repo, warnings)).commits.map((c) => c.subject), ['Match cookie domains by suffix', 'Add exponential backoff for retries'])
    assert.equal(warnings.length, 1, warnings.join('\n'))
    assert.match(warnings[0]!, /checksum mismatch.*rebuilding it from git/)
    const again: string[] = []
    await history(repo, again)
    await sync(repo, 0, again)
    assert.deepEqual(again, [])
  })

  it('rebuilds a damaged index with one warning', async () => {
    await sync(repo)
    const { paths } = await context(repo)
    writeFileSync(paths.commitIndex, 'not a record')
    const warnings: string[] = []
    const rebuilt = await sync(repo, 0, warnings)
    assert.deepEqual([rebuilt.mode, rebuilt.commits, warnings.length], ['rebuilt', 2, 1])
    assert.match(warnings[0]!, /bad magic.*rebuilding the commit index/)
  })

  it('refuses an index whose head would reach git as an option, and rebuilds it', async () => {
    await sync(repo)
    const { paths } = await context(repo)
    const index = (await readCommitIndex(paths))!
    const target = join(repo.dir, 'written-by-git.txt')
    await writeRecord(paths.commitIndex, COMMIT_INDEX_KIND, COMMIT_INDEX_VERSION, { ...index, head: `--output=${target}` })
    repo.write({ 'app/more.py': 'M = 1\n' })
    repo.commit('One more')
    const warnings: string[] = []
    const rebuilt = await sync(repo, 0, warnings)
    assert.deepEqual([rebuilt.mode, rebuilt.commits], ['rebuilt', 3])
    assert.equal(warnings.length, 1)
    assert.match(warnings[0]!, /malformed commit index/)
    assert.equal(existsSync(target), false)
  })

  it('reads everything again when forced', async () => {
    await sync(repo)
    const forced = await syncCommits(await context(repo), { warn: () => {}, force: true })
    assert.deepEqual([forced.mode, forced.added, forced.commits], ['rebuilt', 2, 2])
  })

  it('a repository without commits has an empty history', async () => {
    const empty = createGitRepo()
    try {
      assert.equal((await sync(empty)).commits, 0)
      assert.equal((await history(empty)).size, 0)
    } finally {
      empty.cleanup()
    }
  })
})
