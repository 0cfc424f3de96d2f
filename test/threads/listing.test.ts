import { strict as assert } from 'node:assert'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { appendEntry, createThread, listThreads, searchThreads } from '../../src/core/threads/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('thread listing with malformed files beside sound ones', function () {
  this.timeout(30_000)
  let repo: GitFixture
  let vltDir: string
  before(async () => {
    repo = createGitRepo({ files: { 'README.md': '# project\n' } })
    vltDir = join(repo.dir, '.vlt')
    await createThread(vltDir, { name: 'sound', title: 'Sound' })
    await appendEntry(vltDir, 'sound', { text: 'Tokens rotate daily.', type: 'decision', author: 'user', now: new Date('2024-05-01T10:00:00Z') })
    const threads = join(vltDir, 'threads')
    writeFileSync(join(threads, 'empty.md'), '')
    writeFileSync(join(threads, 'binary.md'), Buffer.from([0, 1, 2, 0xff, 0xfe, 10]))
    mkdirSync(join(threads, 'folder.md'))
  })
  after(() => repo.cleanup())

  it('lists the sound thread and says, per broken file, what is wrong with it', async () => {
    const { threads, warnings } = await listThreads(vltDir)
    assert.deepEqual(threads.map((t) => t.name), ['sound'])
    const path = (name: string) => join(vltDir, 'threads', `${name}.md`)
    assert.deepEqual(warnings, [
      `${path('binary')}: not a thread file (its first line should be "# <title>"); left out`,
      `${path('empty')}: not a thread file (its first line should be "# <title>"); left out`,
      '.vlt/threads/folder.md is not a regular file (a directory); git-vlt reads and writes only regular files inside .vlt/: remove it and run again; left out',
    ])
  })

  it('searches the sound thread with the same warnings', async () => {
    const { hits, warnings } = await searchThreads(vltDir, 'tokens')
    assert.deepEqual(hits.map((h) => h.thread), ['sound'])
    assert.equal(warnings.length, 3)
  })
})
