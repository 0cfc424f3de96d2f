import { strict as assert } from 'node:assert'
import { join } from 'node:path'
import { appendEntry, createThread, searchThreads } from '../../src/core/threads/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('thread search', function () {
  this.timeout(30_000)
  let repo: GitFixture
  let vltDir: string
  const ids: Record<string, string> = {}
  before(async () => {
    repo = createGitRepo({ files: { 'README.md': '# project\n' } })
    vltDir = join(repo.dir, '.vlt')
    await createThread(vltDir, { name: 'auth-redesign', title: 'Auth redesign' })
    await createThread(vltDir, { name: 'build', title: 'Build speed' })
    const push = async (thread: string, key: string, text: string, type: 'thought' | 'decision' | 'research') =>
      (ids[key] = (await appendEntry(vltDir, thread, { text, type, author: 'user' })).id)
    await push('auth-redesign', 'jwt', 'Context first.\nRefresh tokens stay server-side, access tokens are JWT.', 'decision')
    await push('auth-redesign', 'paseto', 'Maybe PASETO instead of JWT?', 'thought')
    await push('build', 'cache', 'Turn on the compiler cache; builds drop from 90 s to 20 s.', 'research')
  })
  after(() => repo.cleanup())

  it('ranks entries by BM25 and points at the matching line', async () => {
    const { hits, warnings } = await searchThreads(vltDir, 'refresh tokens')
    assert.deepEqual(warnings, [])
    assert.deepEqual(
      hits.map(({ thread, entryId, type, snippet }) => ({ thread, entryId, type, snippet })),
      [{ thread: 'auth-redesign', entryId: ids.jwt, type: 'decision', snippet: 'Refresh tokens stay server-side, access tokens are JWT.' }],
    )
    assert.ok(hits[0].score > 0)
  })

  it('matches stems and thread names, filters by type, and finds nothing for unknown words', async () => {
    assert.deepEqual((await searchThreads(vltDir, 'jwt')).hits.map((h) => h.entryId).sort(), [ids.jwt, ids.paseto].sort())
    assert.deepEqual((await searchThreads(vltDir, 'jwt', { type: 'thought' })).hits.map((h) => h.entryId), [ids.paseto])
    assert.deepEqual((await searchThreads(vltDir, 'building')).hits.map((h) => h.entryId), [ids.cache])
    assert.deepEqual((await searchThreads(vltDir, 'kubernetes')).hits, [])
  })
})
