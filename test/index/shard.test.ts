import { strict as assert } from 'node:assert'
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inShard, parseShard } from '../../src/core/index/shard.js'
import { MANIFEST_KIND, MANIFEST_VERSION } from '../../src/core/index/manifest.js'
import { decodeRecord, encodeRecord } from '../../src/core/store/index.js'
import { vlt, vltJson } from '../helpers/cli.js'
import { cloneGitRepo, createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/** Forty modules calling each other, a few with the same content (one record for several paths). */
function files(): Record<string, string> {
  const tree: Record<string, string> = { 'README.md': '# Shards\n\nHow the parser reads the configuration.\n', 'pkg/__init__.py': '', 'lib/__init__.py': '' }
  for (let i = 0; i < 40; i++) {
    tree[`pkg/mod${i}.py`] = `from pkg.mod${(i + 1) % 40} import step_${(i + 1) % 40}\n\ndef step_${i}(value):\n    """Step ${i} of the pipeline."""\n    return step_${(i + 1) % 40}(value + ${i})\n`
  }
  return tree
}

interface ShardJson {
  treeHash: string
  shard: { index: number; count: number }
  files: number
  extracted: number
  vltDir: string
}

describe('index/shard: init --shard K/N in separate clones, then merge', function () {
  this.timeout(120_000)
  let origin: GitFixture
  const clones: GitFixture[] = []

  before(() => {
    origin = createGitRepo({ files: files() })
  })
  after(() => {
    origin.cleanup()
    clones.forEach((clone) => clone.cleanup())
  })

  function clone(): GitFixture {
    const fixture = cloneGitRepo(origin)
    clones.push(fixture)
    return fixture
  }

  it('splits contents by blob hash: every content in exactly one shard', () => {
    assert.deepEqual(parseShard('2/4'), { index: 2, count: 4 })
    for (const bad of ['0/4', '5/4', '2', '2/0', 'a/b', '1/2/3']) assert.equal(parseShard(bad), undefined, bad)
    const blob = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
    assert.deepEqual([1, 2, 3].map((index) => inShard(blob, { index, count: 3 })).filter(Boolean).length, 1)
  })

  it('shards in three clones, merged in a fourth, give the index a single init gives', () => {
    const single = clone()
    const whole = vltJson(single.dir, ['coderag', 'init'])
    const shards = [1, 2, 3].map((index) => vltJson<ShardJson>(clone().dir, ['coderag', 'init', '--shard', `${index}/3`]))
    assert.ok(shards.every((shard) => shard.treeHash === whole.treeHash && shard.files > 0 && shard.extracted === shard.files))
    // The 43 files hold 42 contents (the two empty __init__.py are one blob): each extracted once, by its shard.
    assert.equal(shards.reduce((sum, shard) => sum + shard.files, 0), 43)
    // A shard builds no tree: it cannot answer, and says why.
    assert.equal(readdirSync(shards[0]!.vltDir).includes('trees'), false)

    // Kept as the GitLab matrix template keeps them: each shard's objects/ moved under .vlt/shards/<index>/.
    const merger = clone()
    const kept = shards.map((shard) => {
      const dir = join(merger.dir, '.vlt', 'shards', String(shard.shard.index))
      mkdirSync(dir, { recursive: true })
      renameSync(join(shard.vltDir, 'objects'), join(dir, 'objects'))
      return dir
    })
    const merged = vltJson(merger.dir, ['coderag', 'merge', ...kept])
    assert.equal(merged.extracted, 0)
    assert.equal(merged.merged.records, 42)
    assert.deepEqual(merged.merged.shards, kept)
    assert.deepEqual({ ...merged, merged: null, durationMs: 0, commits: null, warnings: [] }, { ...whole, merged: null, extracted: 0, durationMs: 0, commits: null, warnings: [] })
    // Learned by the merge as by the init, before any search asks: the same term associations.
    const model = (dir: string): Buffer => readFileSync(join(dir, '.vlt', 'trees', whole.treeHash, 'term-associations.mpk'))
    assert.ok(model(merger.dir).equals(model(single.dir)), "the merge's term associations differ from the single init's")
    for (const args of [['coderag', 'def', 'step_7'], ['coderag', 'refs', 'step_3'], ['coderag', 'search', 'pipeline step'], ['coderag', 'map']]) {
      assert.deepEqual(vltJson(merger.dir, args), vltJson(single.dir, args), args.join(' '))
    }
    // The records arrive in another order, and the tree's aggregates are byte for byte those of the single
    // init (its manifest too, but for its creation time).
    const manifest = (dir: string) => ({ ...decodeRecord<{ createdAt: string }>(readFileSync(join(dir, '.vlt', 'trees', whole.treeHash, 'manifest.mpk')), MANIFEST_KIND, MANIFEST_VERSION, 'manifest'), createdAt: null })
    assert.deepEqual(manifest(merger.dir), manifest(single.dir))
    for (const part of ['bm25.mpk', 'symbols.mpk', 'graph.mpk']) {
      const bytes = (dir: string): Buffer => readFileSync(join(dir, '.vlt', 'trees', whole.treeHash, part))
      assert.ok(bytes(merger.dir).equals(bytes(single.dir)), `${part} differs from the single init's`)
    }
  })

  it('a damaged record from a shard is extracted here instead, and reported; a missing shard is one line, exit 1', () => {
    const shard = vltJson<ShardJson>(clone().dir, ['coderag', 'init', '--shard', '1/1'])
    const loose = readdirSync(join(shard.vltDir, 'objects'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.python.mpk'))
    appendFileSync(join(shard.vltDir, 'objects', loose[0]!), 'tampered')
    const merger = clone()
    const merged = vltJson(merger.dir, ['coderag', 'merge', shard.vltDir])
    assert.equal(merged.extracted, 1)
    assert.equal(merged.merged.rejected, 1)
    assert.deepEqual(merged.warnings, ['warning: merge: 1 record from the shards failed their checks and were extracted here'])

    const missing = vlt(merger.dir, ['coderag', 'merge', join(merger.dir, 'no-such-shard')])
    assert.equal(missing.status, 1)
    assert.match(missing.stderr, /merge: .*no-such-shard is not a directory/)
    assert.equal(missing.stderr.trim().split('\n').length, 1)
  })

  it("rejects a key in a shard's pack index that is not a record key (never used as a path)", () => {
    const shard = vltJson<ShardJson>(clone().dir, ['coderag', 'init', '--shard', '1/1'])
    const version = readdirSync(join(shard.vltDir, 'objects'))[0]!
    const records = join(shard.vltDir, 'objects', version)
    const loose = readdirSync(records, { recursive: true, encoding: 'utf8' }).find((name) => name.endsWith('.python.mpk'))!
    const bytes = readFileSync(join(records, loose))
    mkdirSync(join(records, 'packs'))
    writeFileSync(join(records, 'packs', 'forged.pack'), bytes)
    const index = { pack: 'forged.pack', keys: ['../../../../outside.python'], offsets: Float64Array.of(0), lengths: Uint32Array.of(bytes.length) }
    writeFileSync(join(records, 'packs', 'forged.idx'), encodeRecord('blob-pack-index', 1, index))
    const merger = clone()
    const run = vlt(merger.dir, ['coderag', 'merge', shard.vltDir, '--json'])
    assert.equal(run.status, 0, run.stderr)
    const merged = JSON.parse(run.stdout)
    assert.equal(merged.merged.rejected, 1)
    assert.equal(merged.extracted, 0)
  })

  it('never follows a link inside a shard out of it', () => {
    const shard = vltJson<ShardJson>(clone().dir, ['coderag', 'init', '--shard', '1/1'])
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'vlt-outside-')))
    try {
      const fan = readdirSync(join(shard.vltDir, 'objects'))[0]!
      const objects = join(shard.vltDir, 'objects', fan)
      const moved = join(outside, 'records')
      rmSync(moved, { recursive: true, force: true })
      // The shard's records folder replaced by a link to a folder elsewhere.
      writeFileSync(join(outside, 'secret'), 'TOP SECRET\n')
      rmSync(objects, { recursive: true })
      symlinkSync(outside, objects)
      const merger = clone()
      const run = vlt(merger.dir, ['coderag', 'merge', shard.vltDir])
      assert.equal(run.status, 1, run.stdout)
      assert.match(run.stderr, /symbolic link/)
      assert.equal(readFileSync(join(outside, 'secret'), 'utf8'), 'TOP SECRET\n')
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })

  it('refuses a malformed --shard as a usage error', () => {
    const run = vlt(clone().dir, ['coderag', 'init', '--shard', '3/2'])
    assert.equal(run.status, 2)
    assert.match(run.stderr, /--shard takes K\/N with 1 ≤ K ≤ N \(e\.g\. --shard 2\/4\), not "3\/2"/)
  })
})
