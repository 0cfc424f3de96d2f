import { strict as assert } from 'node:assert'
import { join } from 'node:path'
import { appendEntry, createThread, searchThreadsForOracle } from '../../src/core/threads/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('threads as an oracle source', function () {
  this.timeout(30_000)
  let repo: GitFixture
  const entries: Record<string, { id: string; timestamp: string }> = {}
  before(async () => {
    repo = createGitRepo({ files: { 'README.md': '# project\n' } })
    const vltDir = join(repo.dir, '.vlt')
    await createThread(vltDir, { name: 'auth-redesign', title: 'Auth redesign' })
    await createThread(vltDir, { name: 'build', title: 'Build speed' })
    const push = async (thread: string, key: string, text: string, type: 'thought' | 'decision' | 'research', author: string) => {
      const entry = await appendEntry(vltDir, thread, { text, type, author })
      entries[key] = { id: entry.id, timestamp: entry.timestamp }
    }
    await push('auth-redesign', 'jwt', 'Refresh tokens stay server-side.\nAccess tokens are JWT, signed with the session key.', 'decision', 'user')
    await push('auth-redesign', 'paseto', 'Maybe PASETO instead of JWT?', 'thought', 'claude')
    await push('build', 'cache', 'Turn on the compiler cache; builds drop from 90 s to 20 s.', 'research', 'librarian')
  })
  after(() => repo.cleanup())

  it('returns matching entries as RetrievalResults, the best scoring 1', async () => {
    const results = await searchThreadsForOracle(repo.dir, 'refresh tokens JWT')
    assert.deepEqual(results.map((r) => r.sourcePath), [`auth-redesign#${entries.jwt!.id}`, `auth-redesign#${entries.paseto!.id}`])
    const content = `Auth redesign — decision by user, ${entries.jwt!.timestamp}\n\nRefresh tokens stay server-side.\nAccess tokens are JWT, signed with the session key.`
    assert.deepEqual(results[0], {
      sourceType: 'threads',
      sourcePath: `auth-redesign#${entries.jwt!.id}`,
      retrievalMethod: 'bm25',
      score: 1,
      content,
      tokenCount: Math.ceil(content.length / 4),
      metadata: { thread: 'auth-redesign', title: 'Auth redesign', entryId: entries.jwt!.id, type: 'decision', author: 'user', timestamp: entries.jwt!.timestamp },
    })
    assert.ok(results[1]!.score > 0 && results[1]!.score < 1)
    assert.deepEqual(results[1]!.metadata.author, 'claude')
  })

  it('passes limit and type through, and finds nothing for unknown words', async () => {
    assert.deepEqual((await searchThreadsForOracle(repo.dir, 'jwt', { type: 'thought' })).map((r) => [r.sourcePath, r.score]), [[`auth-redesign#${entries.paseto!.id}`, 1]])
    assert.equal((await searchThreadsForOracle(repo.dir, 'jwt', { limit: 1 })).length, 1)
    assert.deepEqual(await searchThreadsForOracle(repo.dir, 'kubernetes'), [])
  })

  it('works from a subdirectory of the repository', async () => {
    repo.write({ 'src/app/main.ts': 'export {}\n' })
    const results = await searchThreadsForOracle(join(repo.dir, 'src', 'app'), 'compiler cache')
    assert.deepEqual(results.map((r) => [r.sourcePath, r.metadata.type]), [[`build#${entries.cache!.id}`, 'research']])
  })
})
