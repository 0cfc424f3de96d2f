import { strict as assert } from 'node:assert'
import { mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { vlt, vltJson } from '../helpers/cli.js'

/** `coderag status` tells the truth about what is stored and what is left out. */
describe('coderag status reports', function () {
  this.timeout(60_000)
  let repo: GitFixture
  afterEach(() => repo?.cleanup())

  it("a delta tree's storage as its anchor's aggregates, naming the anchor", () => {
    repo = createGitRepo({ files: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`m${i}.py`, `def f${i}():\n    return ${i}\n`])) })
    const anchor = vltJson(repo.dir, ['coderag', 'init']).treeHash as string
    const full = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(full.deltaOf, null)
    repo.write({ 'm1.py': 'def f1():\n    return 100\n' })
    repo.commit('one file')
    const tree = vltJson(repo.dir, ['coderag', 'sync']).treeHash as string
    assert.notEqual(tree, anchor)

    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.treeHash, tree)
    assert.equal(status.deltaOf, anchor)
    const size = (name: string): number => statSync(join(repo.dir, '.vlt', 'trees', anchor, `${name}.mpk`)).size
    assert.equal(status.bm25Bytes, size('bm25'))
    assert.equal(status.graphBytes, size('graph') + size('symbols'))
    assert.equal(status.bm25Bytes, full.bm25Bytes)
    const text = vlt(repo.dir, ['coderag', 'status']).stdout
    assert.match(text, new RegExp(`storage +bm25 [1-9][0-9.]* (B|KiB), graph [1-9][0-9.]* (B|KiB), .*delta of ${anchor.slice(0, 12)}`))
  })

  it('the bytes the embedding cache holds as vector storage', () => {
    repo = createGitRepo({ files: { 'a.py': 'def a():\n    return 1\n' } })
    vltJson(repo.dir, ['coderag', 'init'])
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).vectorBytes, 0)
    const cache = join(repo.dir, '.vlt', 'vectors', 'some-provider')
    mkdirSync(cache, { recursive: true })
    writeFileSync(join(cache, 'segment-1.mpk'), Buffer.alloc(3000))
    writeFileSync(join(cache, 'segment-2.mpk'), Buffer.alloc(1000))
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).vectorBytes, 4000)
  })

  it('submodules as skipped, with the reason in text and their paths in --json', () => {
    const library = createGitRepo({ files: { 'lib.py': 'def lib():\n    return 1\n' } })
    try {
      repo = createGitRepo({ files: { 'app.py': 'def app():\n    return 2\n', 'vlt.toml': '[index]\nexclude = ["ignored/**"]\n' } })
      for (const path of ['libs/shared', 'ignored/lib']) repo.git('-c', 'protocol.file.allow=always', 'submodule', '-q', 'add', `file://${library.dir}`, path)
      repo.commit('add submodules')
      const init = vltJson(repo.dir, ['coderag', 'init'])
      assert.equal(init.skipped.submodule, 1)
      const status = vltJson(repo.dir, ['coderag', 'status'])
      // A submodule under an excluded folder is not "skipped": the configuration left it out.
      assert.deepEqual(status.submodules, ['libs/shared'])
      assert.equal(status.skipped.submodule, 1)
      assert.equal(status.files, 3, 'app.py, vlt.toml and .gitmodules; nothing of the submodules')
      assert.match(vlt(repo.dir, ['coderag', 'status']).stdout, /skipped: 1 submodule \(its files are another repository's: not indexed\)/)
    } finally {
      library.cleanup()
    }
  })
})
