import { strict as assert } from 'node:assert'
import { execFileSync } from 'node:child_process'
import { closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  acquireLock,
  ConfinementError,
  confineTo,
  ensureDirSync,
  listDirConfined,
  listFilesConfined,
  openForAppendSync,
  readFileConfined,
  readFileConfinedSync,
  readRecord,
  readRecordSync,
  refuseShippedRecords,
  removeConfined,
  sweepTempFiles,
  writeFileAtomic,
  writeFileAtomicSync,
  writeRecord,
  writeRecordSync,
} from '../../src/core/store/index.js'

/**
 * A repository folder holding `.vlt` (the root) and, beside the repository, `outside/`: what a link
 * planted by a cloned repository would reach. Every case checks that `outside/` is untouched.
 */
describe('store/confine: nothing under .vlt/ reaches outside it', () => {
  let sandbox: string
  let root: string
  let outside: string
  let before: string
  const listing = (): string =>
    JSON.stringify(readdirSync(outside, { recursive: true }).sort().map((name) => [name, lstatSync(join(outside, String(name))).isFile() ? readFileSync(join(outside, String(name)), 'utf8') : 'dir']))

  beforeEach(() => {
    sandbox = realpathSync(mkdtempSync(join(tmpdir(), 'vlt-confine-')))
    mkdirSync(join(sandbox, 'repo'))
    root = join(sandbox, 'repo', '.vlt')
    outside = join(sandbox, 'outside')
    mkdirSync(join(outside, 'deep'), { recursive: true })
    writeFileSync(join(outside, 'secret'), 'TOP SECRET\n')
    writeFileSync(join(outside, 'deep', 'x.mpk.999999-0-abcdef01.vlt-tmp'), 'not ours\n')
    execFileSync('mkfifo', [join(outside, 'pipe')])
    before = listing()
    confineTo(root)
  })
  afterEach(() => rmSync(sandbox, { recursive: true, force: true }))

  /** A case: whatever it asserts, outside/ must be untouched afterwards. */
  const it = (title: string, fn: () => void | Promise<void>): Mocha.Test =>
    globalThis.it(title, async () => {
      try {
        await fn()
      } finally {
        assert.equal(listing(), before, 'outside/ is untouched')
      }
    })

  /** Plants `path` (under the root) as a link to `target`, creating the folders above it. */
  const link = (path: string, target: string): string => {
    mkdirSync(join(root, path, '..'), { recursive: true })
    symlinkSync(target, join(root, path))
    return join(root, path)
  }
  const refused = (shown: string, what = /is a symbolic link/) => (error: unknown) =>
    error instanceof ConfinementError && error.message.startsWith(shown) && what.test(error.message) && !error.message.includes('\n')

  describe('writes', () => {
    it('refuse a linked .vlt, relative or absolute, and a linked folder deeper down', async () => {
      symlinkSync('../outside', root)
      await assert.rejects(writeFileAtomic(join(root, 'state.mpk'), Buffer.from('x')), refused('.vlt is a symbolic link (to ../outside)'))
      rmSync(root)
      symlinkSync(outside, root)
      assert.throws(() => writeFileAtomicSync(join(root, 'objects', '5', 'ab', 'cd.c.mpk'), Buffer.from('x')), refused(`.vlt is a symbolic link (to ${outside})`))
      rmSync(root)
      link('objects/5/ab', outside)
      assert.throws(() => writeRecordSync(join(root, 'objects', '5', 'ab', 'cd.c.mpk'), 'k', 1, {}), refused('.vlt/objects/5/ab is a symbolic link'))
      link('trees', '../../outside')
      await assert.rejects(writeRecord(join(root, 'trees', 'abc', 'bm25.mpk'), 'k', 1, {}), refused('.vlt/trees is a symbolic link'))
    })

    it('create missing folders as mkdir -p does, and refuse a file in a folder’s place', async () => {
      await writeFileAtomic(join(root, 'a', 'b', 'c.json'), Buffer.from('{}'))
      assert.equal(readFileSync(join(root, 'a', 'b', 'c.json'), 'utf8'), '{}')
      writeFileSync(join(root, 'queue'), 'in the way')
      assert.throws(() => ensureDirSync(join(root, 'queue', 'x')), refused('.vlt/queue is not a directory', /not a directory/))
    })

    it('replace a link at the target name itself, never writing through it', async () => {
      const target = link('state.mpk', join(outside, 'secret'))
      await writeRecord(target, 'k', 1, { fine: true })
      assert.equal(lstatSync(target).isFile(), true)
      assert.deepEqual(await readRecord(target, 'k', 1), { fine: true })
    })

    it('never append through a link, nor to a FIFO', () => {
      link('logs/indexer.log', join(outside, 'secret'))
      assert.throws(() => openForAppendSync(join(root, 'logs', 'indexer.log')), refused('.vlt/logs/indexer.log is a symbolic link'))
      execFileSync('mkfifo', [join(root, 'logs', 'fifo.log')])
      assert.throws(() => openForAppendSync(join(root, 'logs', 'fifo.log')), refused('.vlt/logs/fifo.log is not a regular file', /not a regular file/))
      closeSync(openForAppendSync(join(root, 'logs', 'daemon.log')))
      assert.equal(lstatSync(join(root, 'logs', 'daemon.log')).isFile(), true)
    })

    it('re-prove a folder once its proof expires (a checkout can turn it into a link in a long-lived process)', async () => {
      await writeFileAtomic(join(root, 'threads', 'a.md'), Buffer.from('a'))
      rmSync(join(root, 'threads'), { recursive: true })
      symlinkSync(outside, join(root, 'threads'))
      await sleep(1_100)
      await assert.rejects(writeFileAtomic(join(root, 'threads', 'a.md'), Buffer.from('b')), refused('.vlt/threads is a symbolic link'))
    })

    it('prove a folder again when it was removed after its proof', async () => {
      await writeFileAtomic(join(root, 'trees', 't', 'a.mpk'), Buffer.from('a'))
      rmSync(join(root, 'trees'), { recursive: true })
      await writeFileAtomic(join(root, 'trees', 't', 'a.mpk'), Buffer.from('b'))
      assert.equal(readFileSync(join(root, 'trees', 't', 'a.mpk'), 'utf8'), 'b')
    })

    it('fail closed for a path under no known .vlt', async () => {
      await assert.rejects(writeFileAtomic(join(sandbox, 'elsewhere', 'x'), Buffer.from('x')), /internal error: .* under no \.vlt directory/)
    })

    it('apply the same way to a bare repository’s vlt in its git dir', async () => {
      const bare = join(sandbox, 'bare.git', 'vlt')
      mkdirSync(join(sandbox, 'bare.git'))
      confineTo(bare)
      symlinkSync(outside, bare)
      await assert.rejects(writeFileAtomic(join(bare, 'state.mpk'), Buffer.from('x')), refused('vlt is a symbolic link'))
    })
  })

  describe('reads', () => {
    it('refuse a record that is a link, a FIFO, a device or a folder, at once', async () => {
      link('state.mpk', join(outside, 'secret'))
      await assert.rejects(readRecord(join(root, 'state.mpk'), 'k', 1), refused('.vlt/state.mpk is a symbolic link'))
      assert.throws(() => readRecordSync(join(root, 'state.mpk'), 'k', 1), refused('.vlt/state.mpk is a symbolic link'))
      link('zero.mpk', '/dev/zero')
      await assert.rejects(readFileConfined(join(root, 'zero.mpk')), refused('.vlt/zero.mpk is a symbolic link'))
      execFileSync('mkfifo', [join(root, 'fifo.mpk')])
      await assert.rejects(readRecord(join(root, 'fifo.mpk'), 'k', 1), refused('.vlt/fifo.mpk is not a regular file (a FIFO)', /not a regular file/))
      assert.throws(() => readRecordSync(join(root, 'fifo.mpk'), 'k', 1), refused('.vlt/fifo.mpk is not a regular file (a FIFO)', /not a regular file/))
      mkdirSync(join(root, 'dir.mpk'))
      await assert.rejects(readRecord(join(root, 'dir.mpk'), 'k', 1), refused('.vlt/dir.mpk is not a regular file (a directory)', /not a regular file/))
    })

    it('refuse a linked folder on the way, and answer undefined for what is absent', async () => {
      assert.equal(await readFileConfined(join(root, 'threads', 'a.md')), undefined)
      assert.equal(readFileConfinedSync(join(root, 'objects', '5', 'ab', 'c.mpk')), undefined)
      assert.deepEqual(await listDirConfined(join(root, 'threads')), [])
      link('threads', outside)
      await assert.rejects(readFileConfined(join(root, 'threads', 'secret')), refused('.vlt/threads is a symbolic link'))
      await assert.rejects(listDirConfined(join(root, 'threads')), refused('.vlt/threads is a symbolic link'))
    })

    it('list files recursively without ever descending into a link', async () => {
      mkdirSync(join(root, 'objects', '5'), { recursive: true })
      writeFileSync(join(root, 'objects', '5', 'a.mpk'), 'a')
      link('objects/5/ab', outside)
      assert.deepEqual(await listFilesConfined(join(root, 'objects')), [join(root, 'objects', '5', 'a.mpk')])
    })
  })

  describe('deletes', () => {
    it('refuse a linked folder, and remove a link itself rather than its target', async () => {
      link('trees', outside)
      await assert.rejects(removeConfined(join(root, 'trees', 'secret')), refused('.vlt/trees is a symbolic link'))
      await assert.rejects(removeConfined(join(root, 'trees', 'deep'), { recursive: true }), refused('.vlt/trees is a symbolic link'))
      rmSync(join(root, 'trees'))
      link('trees/abc', outside)
      await removeConfined(join(root, 'trees', 'abc'), { recursive: true })
      assert.equal(existsSync(join(root, 'trees', 'abc')), false)
    })

    it('sweeping temp files never follows a link into another folder', async () => {
      mkdirSync(root)
      writeFileSync(join(root, 'state.mpk.999999-0-abcdef01.vlt-tmp'), 'abandoned')
      link('objects', outside)
      assert.equal(await sweepTempFiles(root), 1)
    })
  })

  describe('locks', () => {
    it('refuse a linked locks folder and a lock file linked to a FIFO (never hang)', async () => {
      link('locks', outside)
      await assert.rejects(acquireLock(root, { waitMs: 0 }), refused('.vlt/locks is a symbolic link'))
      rmSync(join(root, 'locks'))
      link('locks/index.lock', join(outside, 'pipe'))
      await assert.rejects(acquireLock(root, { waitMs: 0 }), refused('.vlt/locks/index.lock is a symbolic link'))
    })
  })
})

describe('store/shipped: records a repository commits under .vlt/', () => {
  it('allows threads and the .gitignore git-vlt writes; refuses anything else in one line naming it', () => {
    refuseShippedRecords(['src/a.py', '.vlt/.gitignore', '.vlt/threads/auth.md', '.vlt/threads/.gitattributes', 'docs/.vlt/x'])
    assert.throws(
      () => refuseShippedRecords(['.vlt/objects/5/ab/cd.python.mpk', '.vlt/state.mpk', '.vlt/threads/a.md', 'src/a.py']),
      (error: Error) =>
        !(error instanceof ConfinementError) &&
        error.message.startsWith('this commit ships files under .vlt/ (.vlt/objects/5/ab/cd.python.mpk and 1 more)') &&
        error.message.includes('git rm -r --cached .vlt/objects .vlt/state.mpk') &&
        !error.message.includes('\n'),
    )
  })
})
