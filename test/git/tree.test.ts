import assert from 'node:assert/strict'
import { chmodSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { UsageError } from '../../src/core/errors.js'
import { diffNumstat, diffTrees, listTree, listTreeAndSubmodules, openRepo, type Repo } from '../../src/core/git/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('listTree', () => {
  let fixture: GitFixture
  let repo: Repo
  before(async () => {
    fixture = createGitRepo()
    fixture.write({
      'plain.c': 'int x;\n',
      'dir with spaces/naïve café.py': 'print("é")\n',
      'odd\nname\twith controls.txt': 'odd\n',
      'bin/run.sh': '#!/bin/sh\n',
      'empty.txt': '',
    })
    chmodSync(join(fixture.dir, 'bin/run.sh'), 0o755)
    symlinkSync('plain.c', join(fixture.dir, 'link.c'))
    fixture.git('add', '-A')
    // A submodule's gitlink, without cloning anything.
    fixture.git('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/lib`)
    fixture.git('commit', '-q', '-m', 'tree')
    repo = await openRepo(fixture.dir)
  })
  after(() => fixture.cleanup())

  it('lists regular and executable files with blob and size, skipping symlinks and submodules', async () => {
    const entries = await listTree(repo, 'HEAD')
    const blob = (path: string) => fixture.git('rev-parse', `HEAD:${path}`)
    assert.deepEqual(
      entries.map((entry) => entry.path).sort(),
      ['bin/run.sh', 'dir with spaces/naïve café.py', 'empty.txt', 'odd\nname\twith controls.txt', 'plain.c'],
    )
    const byPath = new Map(entries.map((entry) => [entry.path, entry]))
    assert.deepEqual(byPath.get('bin/run.sh'), { path: 'bin/run.sh', mode: '100755', blob: blob('bin/run.sh'), size: 10 })
    assert.deepEqual(byPath.get('dir with spaces/naïve café.py'), {
      path: 'dir with spaces/naïve café.py',
      mode: '100644',
      blob: blob('dir with spaces/naïve café.py'),
      size: Buffer.byteLength('print("é")\n'),
    })
    assert.equal(byPath.get('empty.txt')!.size, 0)
    assert.equal(byPath.get('odd\nname\twith controls.txt')!.size, 4)
  })

  it('lists the submodules apart, by path', async () => {
    const { files, submodules } = await listTreeAndSubmodules(repo, 'HEAD')
    assert.equal(files.length, 5)
    assert.deepEqual(submodules, ['vendor/lib'])
  })

  it('takes a tree hash as well as a revision, and the empty tree', async () => {
    const byTree = await listTree(repo, fixture.git('rev-parse', 'HEAD^{tree}'))
    assert.equal(byTree.length, 5)
    assert.deepEqual(await listTree(repo, '4b825dc642cb6eb9a060e54bf8d69288fbee4904'), [])
  })

  it('refuses a revision that git would read as an option', async () => {
    await assert.rejects(listTree(repo, '--output=/tmp/x'), UsageError)
  })
})

describe('diffTrees', () => {
  let fixture: GitFixture
  let repo: Repo
  let base: string
  before(async () => {
    fixture = createGitRepo({ files: { 'keep.c': 'k\n', 'edit.c': 'one\ntwo\n', 'gone.c': 'g\n', 'old name.c': 'moved content\n', 'data.bin': Buffer.from([0, 1, 2]), 'becomes-link.c': 'x\n' } })
    symlinkSync('keep.c', join(fixture.dir, 'link'))
    base = fixture.commit('with link')
    fixture.write({ 'edit.c': 'one\n2\nthree\n', 'new file.c': 'n\n', 'data.bin': Buffer.from([0, 9, 9, 9]) })
    rmSync(join(fixture.dir, 'gone.c'))
    fixture.git('mv', 'old name.c', 'new name.c')
    rmSync(join(fixture.dir, 'becomes-link.c'))
    symlinkSync('keep.c', join(fixture.dir, 'becomes-link.c'))
    rmSync(join(fixture.dir, 'link'))
    symlinkSync('edit.c', join(fixture.dir, 'link'))
    fixture.commit('changes')
    repo = await openRepo(fixture.dir)
  })
  after(() => fixture.cleanup())

  it('reports adds, edits, deletes, renames as delete+add, and file/symlink type changes', async () => {
    const changes = await diffTrees(repo, base, 'HEAD')
    const blob = (rev: string) => fixture.git('rev-parse', rev)
    assert.deepEqual(changes, [
      { status: 'T', path: 'becomes-link.c', oldBlob: blob(`${base}:becomes-link.c`), newBlob: blob('HEAD:becomes-link.c'), oldMode: '100644', newMode: '120000' },
      { status: 'M', path: 'data.bin', oldBlob: blob(`${base}:data.bin`), newBlob: blob('HEAD:data.bin'), oldMode: '100644', newMode: '100644' },
      { status: 'M', path: 'edit.c', oldBlob: blob(`${base}:edit.c`), newBlob: blob('HEAD:edit.c'), oldMode: '100644', newMode: '100644' },
      { status: 'D', path: 'gone.c', oldBlob: blob(`${base}:gone.c`), newBlob: null, oldMode: '100644', newMode: null },
      // 'link' changed target: neither side is a file, so it is not reported.
      { status: 'A', path: 'new file.c', oldBlob: null, newBlob: blob('HEAD:new file.c'), oldMode: null, newMode: '100644' },
      { status: 'A', path: 'new name.c', oldBlob: null, newBlob: blob('HEAD:new name.c'), oldMode: null, newMode: '100644' },
      { status: 'D', path: 'old name.c', oldBlob: blob(`${base}:old name.c`), newBlob: null, oldMode: '100644', newMode: null },
    ])
  })

  it('diffs from the empty tree for a first index', async () => {
    const changes = await diffTrees(repo, '4b825dc642cb6eb9a060e54bf8d69288fbee4904', 'HEAD')
    assert.ok(changes.every((change) => change.status === 'A'))
    assert.deepEqual(changes.map((change) => change.path), ['data.bin', 'edit.c', 'keep.c', 'new file.c', 'new name.c'])
  })

  it('counts lines added and deleted, null for binary files', async () => {
    const counts = await diffNumstat(repo, base, 'HEAD')
    const byPath = new Map(counts.map((count) => [count.path, count]))
    assert.deepEqual(byPath.get('edit.c'), { path: 'edit.c', added: 2, deleted: 1 })
    assert.deepEqual(byPath.get('data.bin'), { path: 'data.bin', added: null, deleted: null })
    assert.deepEqual(byPath.get('new name.c'), { path: 'new name.c', added: 1, deleted: 0 })
    assert.deepEqual(byPath.get('gone.c'), { path: 'gone.c', added: 0, deleted: 1 })
  })
})
