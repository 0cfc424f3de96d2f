import { strict as assert } from 'node:assert'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { shelvedPath, writableShelves } from '../../src/core/librarian/shelves.js'

describe('the Librarian\'s writable folders', () => {
  let root: string
  let outside: string
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'librarian-shelves-')))
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'librarian-outside-')))
  })
  afterEach(() => {
    rmSync(root, { recursive: true, force: true })
    rmSync(outside, { recursive: true, force: true })
  })

  it('are the configured folders inside the repository, else notes/; never a vault elsewhere, the root, .git or .vlt', () => {
    assert.deepEqual(writableShelves(root, []), ['notes'])
    assert.deepEqual(writableShelves(root, ['~/vault', '/abs/vault', '../sibling', '.', '.git', 'docs/.VLT']), ['notes'])
    assert.deepEqual(writableShelves(root, ['docs/adr/', './wiki', 'docs/../wiki', '~/vault']), ['docs/adr', 'wiki'])
  })

  it('refuse a path through a symlinked folder, the folder itself included, and a file that is a link', () => {
    symlinkSync(outside, join(root, 'notes'))
    assert.throws(() => shelvedPath(root, ['notes'], 'notes/x.md'), /goes through a symbolic link \(notes\)/)
    rmSync(join(root, 'notes'))
    mkdirSync(join(root, 'notes'))
    symlinkSync(join(outside, 'target.md'), join(root, 'notes', 'link.md'))
    assert.throws(() => shelvedPath(root, ['notes'], 'notes/link.md'), /goes through a symbolic link/)
    assert.equal(shelvedPath(root, ['notes'], './notes//sub/./new.MD'), 'notes/sub/new.MD')
    assert.throws(() => shelvedPath(root, ['notes'], 'notes\\..\\..\\x.md'), /climbs with "\.\."/)
    assert.throws(() => shelvedPath(root, ['notes'], 'C:/x/notes/a.md'), /is absolute/)
    assert.throws(() => shelvedPath(root, ['notes'], 'notes/.Vlt/a.md'), /names \.git or \.vlt/)
  })
})
