import { strict as assert } from 'node:assert'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EXTRACTOR_VERSION } from '../../src/core/parse/version.js'
import { vlt, vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const FILES: Record<string, string> = {
  'app/a.py': 'def alpha():\n    """The first."""\n    return 1\n',
  'app/b.py': 'from app.a import alpha\n\n\ndef beta():\n    return alpha() + 1\n',
}

function flip(path: string): void {
  const bytes = readFileSync(path)
  bytes[bytes.length >> 1]! ^= 0xff
  writeFileSync(path, bytes)
}

describe('coderag verify and status integrity (CLI)', function () {
  this.timeout(120_000)
  let repo: GitFixture
  afterEach(() => repo?.cleanup())
  const vltDir = (): string => join(repo.dir, '.vlt')
  const looseRecord = (path: string): string => {
    const blob = repo.git('rev-parse', `HEAD:${path}`)
    return join(vltDir(), 'objects', String(EXTRACTOR_VERSION), blob.slice(0, 2), `${blob.slice(2)}.python.mpk`)
  }

  it('finds a whole index whole, and says so', () => {
    repo = createGitRepo({ files: FILES })
    vltJson(repo.dir, ['coderag', 'init'])
    const result = vltJson(repo.dir, ['coderag', 'verify'])
    assert.deepEqual(Object.keys(result).sort(), ['checked', 'durationMs', 'problems', 'treeHash', 'whole'])
    assert.deepEqual({ ...result, durationMs: 0 }, { treeHash: repo.git('rev-parse', 'HEAD^{tree}'), checked: { blobRecords: 2, records: 9 }, problems: [], whole: true, durationMs: 0 })
    const text = vlt(repo.dir, ['coderag', 'verify'])
    assert.equal(text.status, 0)
    assert.match(text.stdout, /^Checked 2 blob records and 9 other records of tree [0-9a-f]{12}: whole \(\d+ ms\)\.\n$/)
  })

  it('repairs every record it finds missing or damaged, and reads everything again', () => {
    repo = createGitRepo({ files: FILES })
    vltJson(repo.dir, ['coderag', 'init'])
    vltJson(repo.dir, ['coderag', 'status'])
    const tree = repo.git('rev-parse', 'HEAD^{tree}')
    flip(join(vltDir(), 'trees', tree, 'bm25.mpk'))
    flip(join(vltDir(), 'trees', tree, 'repomap.mpk'))
    rmSync(looseRecord('app/a.py'))
    flip(looseRecord('app/b.py'))

    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.integrity.complete, false)
    assert.deepEqual(status.integrity.problems.map((problem: string) => problem.replace(/ \(.*/, '').replace(/[0-9a-f]{40}/, 'TREE')), [
      '.vlt/trees/TREE/bm25.mpk: checksum mismatch',
      '.vlt/objects: 1 blob record missing, 1 blob record damaged',
    ])

    const run = vlt(repo.dir, ['coderag', 'verify'])
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stderr, '', 'the report says it all')
    assert.match(run.stdout, /: 3 problem\(s\)\.\n {2}repaired {2}\.vlt\/trees\/[0-9a-f]{40}\/bm25\.mpk: checksum mismatch/)
    assert.match(run.stdout, /repaired {2}\.vlt\/objects: 1 blob record missing, 1 blob record damaged/)
    assert.match(run.stdout, /repaired {2}\.vlt\/trees\/[0-9a-f]{40}\/repomap\.mpk: checksum mismatch .*\(a cache, rebuilt on first use\)/)
    assert.match(run.stdout, /\nWhole again \(\d+ ms\)\.\n$/)
    assert.deepEqual(vltJson(repo.dir, ['coderag', 'verify']).problems, [])
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).integrity.complete, true)
    assert.deepEqual(vltJson(repo.dir, ['coderag', 'def', 'alpha']).definitions.map((d: { path: string }) => d.path), ['app/a.py'])
  })

  it('extracts a record again from the working file when git lost the object too, and exits 1 when that is gone as well', () => {
    repo = createGitRepo({ files: FILES })
    vltJson(repo.dir, ['coderag', 'init'])
    // The record and the git object it was extracted from, both gone (a damaged clone).
    const blob = repo.git('rev-parse', 'HEAD:app/a.py')
    rmSync(looseRecord('app/a.py'))
    rmSync(join(repo.dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)))
    const fromFile = vltJson(repo.dir, ['coderag', 'verify'])
    assert.deepEqual([fromFile.whole, fromFile.problems], [true, [{ path: '.vlt/objects', problem: '1 blob record missing', repaired: true }]])

    // The working file gone too: nothing left to extract it from.
    rmSync(looseRecord('app/a.py'))
    rmSync(join(repo.dir, 'app', 'a.py'))
    const run = vlt(repo.dir, ['coderag', 'verify', '--json'])
    assert.equal(run.status, 1, run.stderr)
    const result = JSON.parse(run.stdout)
    assert.equal(result.whole, false)
    assert.deepEqual(result.problems.map((problem: { path: string; repaired: boolean }) => [problem.path, problem.repaired]), [['.vlt/objects', false]])
    const text = vlt(repo.dir, ['coderag', 'verify'])
    assert.equal(text.status, 1)
    assert.match(text.stdout, /NOT REPAIRED {2}\.vlt\/objects: 1 blob record missing\n.*still incomplete/)
    // A query answers from the rest, and says what it could not restore.
    const refs = vlt(repo.dir, ['coderag', 'def', 'beta'])
    assert.equal(refs.status, 0)
    assert.match(refs.stdout, /^app\/b\.py:4 /)
    assert.match(refs.stderr, /^warning: 1 record could not be re-extracted \(blob [0-9a-f]{40} is missing in .*\)\n$/)
  })

  it('a damaged or lost state.mpk: status still shows the index, sync rebuilds the state in one warning', () => {
    repo = createGitRepo({ files: FILES })
    vltJson(repo.dir, ['coderag', 'init'])
    const state = join(vltDir(), 'state.mpk')
    for (const damage of [() => writeFileSync(state, 'garbage'), () => rmSync(state)]) {
      damage()
      const status = vlt(repo.dir, ['coderag', 'status'])
      assert.equal(status.status, 0)
      assert.doesNotMatch(status.stdout, /Not indexed yet/)
      assert.match(status.stdout, /^tree {8}[0-9a-f]{12}/)
      assert.match(status.stdout, /^files {7}2 /m)
      assert.match(status.stdout, /^integrity {3}incomplete: \.vlt\/state\.mpk: (bad magic|missing)/m)
      const sync = vlt(repo.dir, ['coderag', 'sync'])
      assert.equal(sync.status, 0)
      assert.match(sync.stderr, /^warning: \/.*\/\.vlt\/state\.mpk: (bad magic: not a vlt record|missing); rebuilt the index state\n$/)
      assert.match(vlt(repo.dir, ['coderag', 'status']).stdout, /^integrity {3}complete$/m)
    }
  })

  it('sync sees the records or aggregates gone (a few stat calls) and restores them in one warning', () => {
    repo = createGitRepo({ files: FILES })
    vltJson(repo.dir, ['coderag', 'init'])
    rmSync(join(vltDir(), 'objects'), { recursive: true })
    const tree = repo.git('rev-parse', 'HEAD^{tree}')
    rmSync(join(vltDir(), 'trees', tree, 'graph.mpk'))
    const sync = vlt(repo.dir, ['coderag', 'sync'])
    assert.equal(sync.status, 0)
    assert.match(sync.stderr, /^warning: \/.*graph\.mpk: missing; 2 records of \.vlt\/objects were missing or damaged; re-extracted them, rebuilt the index of tree [0-9a-f]{12} from the blob records\n$/)
    assert.equal(vltJson(repo.dir, ['coderag', 'verify']).problems.length, 0)
    assert.deepEqual(readdirSync(join(vltDir(), 'trees', tree)).filter((name) => name === 'graph.mpk'), ['graph.mpk'])
  })
})
