import { strict as assert } from 'node:assert'
import { existsSync, lstatSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EXTRACTOR_VERSION } from '../../src/core/parse/version.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { vlt, vltAsync, vltJson } from '../helpers/cli.js'

/** Bytes of every file under `dir`. */
function fileBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((total, entry) => total + lstatSync(join(entry.parentPath, entry.name)).size, 0)
}

function countFiles(dir: string): number {
  return existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length : 0
}

describe('coderag gc', function () {
  this.timeout(120_000)
  let repo: GitFixture
  afterEach(() => repo?.cleanup())

  it('keeps the last N trees, the anchors of kept delta trees and the artifacts they use', () => {
    repo = createGitRepo({ files: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`m${i}.py`, `def f${i}():\n    return ${i}\n`])) })
    const trees: string[] = [vltJson(repo.dir, ['coderag', 'init']).treeHash]
    for (let round = 1; round <= 4; round++) {
      repo.write({ 'm1.py': `def f1():\n    return ${round * 100}\n` })
      repo.commit(`round ${round}`)
      trees.push(vltJson(repo.dir, ['coderag', 'sync']).treeHash)
    }
    const vltDir = join(repo.dir, '.vlt')
    assert.equal(readdirSync(join(vltDir, 'trees')).length, 5)
    const recordsBefore = countFiles(join(vltDir, 'objects'))
    assert.equal(recordsBefore, 14, '10 original blobs + 4 versions of m1.py')

    const gc = vltJson(repo.dir, ['gc', '--keep', '2'])
    // The two newest trees are deltas on the first (cold) tree: it stays as their anchor.
    assert.deepEqual(new Set(gc.keptTrees), new Set([trees[4], trees[3], trees[0]]))
    assert.equal(gc.removedTrees, 2)
    // Versions 1 and 2 of m1.py are used by no kept tree (3 and 4 are, and the anchor's original).
    assert.equal(gc.removedBlobRecords, 2)
    assert.equal(countFiles(join(vltDir, 'objects')), 12)

    // The index still answers, and a sync after gc needs no extraction.
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.indexed, true)
    assert.equal(status.files, 10)
    repo.git('checkout', '-q', 'HEAD~1')
    const back = vltJson(repo.dir, ['coderag', 'sync'])
    assert.equal(back.mode, 'reused')
  })

  it('rewrites a pack most of whose records no kept tree uses', () => {
    const module = (i: number, version: number): string => `def f${i}():\n    return ${version}\n`
    repo = createGitRepo({ files: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`m${i}.py`, module(i, 0)])) })
    vltJson(repo.dir, ['coderag', 'init'])
    const packs = join(repo.dir, '.vlt', 'objects', String(EXTRACTOR_VERSION), 'packs')
    const indexes = (): string[] => readdirSync(packs).filter((name) => name.endsWith('.idx'))
    assert.equal(indexes().length, 1, 'a cold build of 300 files packs its records')
    vltJson(repo.dir, ['coderag', 'init', '--force'])
    assert.equal(indexes().length, 1, 'a forced rebuild retires the pack it stored again')
    repo.write(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`m${i}.py`, module(i, 1)])))
    repo.commit('200 changed')
    vltJson(repo.dir, ['coderag', 'sync'])

    const gc = vltJson(repo.dir, ['gc', '--keep', '1'])
    assert.equal(gc.removedBlobRecords, 200)
    assert.deepEqual(indexes().length, 1)
    assert.equal(vltJson(repo.dir, ['coderag', 'def', 'f250']).definitions[0].path, 'm250.py')
    assert.equal(vltJson(repo.dir, ['coderag', 'search', 'f250']).results[0].path, 'm250.py')
    repo.git('checkout', '-q', 'HEAD~1')
    assert.equal(vltJson(repo.dir, ['coderag', 'sync']).extracted.length, 200, 'the dropped records are extracted again')
  })

  it('reports the bytes it freed: dropped and rewritten packs with their indexes, trees, and temp files of killed runs', () => {
    const module = (i: number, version: number): string => `def f${i}():\n    return ${version}  # ${'padding '.repeat(8)}\n`
    repo = createGitRepo({ files: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`m${i}.py`, module(i, 0)])) })
    vltJson(repo.dir, ['coderag', 'init'])
    repo.write(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`m${i}.py`, module(i, 1)])))
    repo.commit('200 changed')
    vltJson(repo.dir, ['coderag', 'sync'])
    const vltDir = join(repo.dir, '.vlt')
    // What a build killed while writing a pack leaves behind (pid 999999999: no such process).
    const packs = join(vltDir, 'objects', String(EXTRACTOR_VERSION), 'packs')
    writeFileSync(join(packs, '0123456789abcdef.pack.999999999-0-deadbeef.vlt-tmp'), Buffer.alloc(50_000, 1))
    // state.mpk is rewritten (fewer recent trees): everything else only shrinks by what gc removed.
    const stored = (): number => fileBytes(join(vltDir, 'objects')) + fileBytes(join(vltDir, 'trees'))
    const before = stored()

    const gc = vltJson(repo.dir, ['gc', '--keep', '1'])
    assert.equal(gc.removedTrees, 1)
    assert.equal(gc.removedTempFiles, 1)
    assert.equal(gc.freedBytes, before - stored())
    const text = vlt(repo.dir, ['gc'])
    assert.match(text.stdout, /freeing 0 B/, 'a second gc has nothing left to free')
  })

  it('runs safely while queries read the index', async () => {
    repo = createGitRepo({ files: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`m${i}.py`, `def f${i}():\n    return ${i}\n`])) })
    vltJson(repo.dir, ['coderag', 'init'])
    for (let round = 1; round <= 3; round++) {
      repo.write({ 'm1.py': `def f1():\n    return ${round}\n` })
      repo.commit(`round ${round}`)
      vltJson(repo.dir, ['coderag', 'sync'])
    }
    const runs = await Promise.all([
      vltAsync(repo.dir, ['gc', '--keep', '1', '--json']),
      ...Array.from({ length: 6 }, () => vltAsync(repo.dir, ['coderag', 'status', '--json'])),
    ])
    for (const run of runs) assert.equal(run.status, 0, run.stderr)
    for (const run of runs.slice(1)) assert.equal(JSON.parse(run.stdout).files, 30)
  })

  it('refuses --keep 0', () => {
    repo = createGitRepo({ files: { 'a.py': 'x = 1\n' } })
    const run = vlt(repo.dir, ['gc', '--keep', '0'])
    assert.equal(run.status, 2)
  })
})
