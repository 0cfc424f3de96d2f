import { strict as assert } from 'node:assert'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deltaLimit } from '../../src/core/index/build.js'
import { PACK_INDEX_KIND, PACK_INDEX_VERSION, type PackIndex } from '../../src/core/index/blob-store.js'
import { EXTRACTOR_VERSION } from '../../src/core/parse/version.js'
import { readRecordSync } from '../../src/core/store/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { vlt, vltJson } from '../helpers/cli.js'

/** A small repository with one file of each kind the skipped counts distinguish. */
function mixedRepo(): GitFixture {
  const repo = createGitRepo()
  repo.write({
    'vlt.toml': '[index]\nmax_file_bytes = 4000\n',
    'app/service.py': [
      'import os',
      '',
      '',
      'class UserService:',
      '    """Looks users up."""',
      '',
      '    def authenticate_user(self, name):',
      '        return os.getenv(name)',
      '',
    ].join('\n'),
    'app/broken.py': 'def broken(:\n    pass\n',
    'web/util.ts': 'export function add(a: number, b: number): number {\n  return a + b\n}\n',
    'docs/guide.md': '# Guide\n\nSome words.\n',
    'assets/logo.bin': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]),
    'big/huge.py': `# ${'x'.repeat(60)}\n`.repeat(100),
    'dist/bundle.js': `var a=1;${'function f(){return 1};'.repeat(120)}\n`,
    'data/latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    '.env': 'API_KEY=hunter2\n',
  })
  repo.commit('initial')
  return repo
}

const SKIPPED_KEYS = ['binary', 'invalidUtf8', 'minified', 'parseCrash', 'parseErrors', 'parseMemory', 'parseTimeout', 'secret', 'submodule', 'tooLarge']

describe('coderag init/sync/status (CLI, real repositories)', function () {
  this.timeout(120_000)
  let repo: GitFixture

  afterEach(() => repo?.cleanup())

  it('init --json reports the documented shape and counts each skipped kind', () => {
    repo = mixedRepo()
    const result = vltJson(repo.dir, ['coderag', 'init'])
    assert.deepEqual(Object.keys(result).sort(), ['chunks', 'commits', 'durationMs', 'edges', 'extracted', 'files', 'skipped', 'symbols', 'treeHash', 'warnings'])
    assert.deepEqual(result.warnings, [])
    assert.equal(result.treeHash, repo.git('rev-parse', 'HEAD^{tree}'))
    assert.deepEqual(Object.keys(result.skipped).sort(), SKIPPED_KEYS)
    assert.deepEqual(result.skipped, { binary: 1, tooLarge: 1, minified: 1, invalidUtf8: 1, parseErrors: 1, secret: 1, parseTimeout: 0, parseMemory: 0, parseCrash: 0, submodule: 0 })
    // service.py, broken.py (indexed best effort), util.ts, guide.md, vlt.toml
    assert.equal(result.files, 5)
    assert.ok(result.symbols >= 3, `symbols ${result.symbols}`)
    assert.ok(result.chunks >= 5)
    // .vlt/ ignores itself: indexing leaves the work tree clean.
    assert.equal(repo.git('status', '--porcelain'), '')
  })

  it('status --json describes the index', () => {
    repo = mixedRepo()
    const before = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(before.indexed, false)
    vltJson(repo.dir, ['coderag', 'init'])
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.deepEqual(Object.keys(status).sort(), [
      'bm25Bytes', 'chunks', 'commits', 'deltaOf', 'edges', 'files', 'graphBytes', 'headTreeHash', 'indexed', 'indexer', 'integrity', 'languages', 'lastIncremental',
      'lastIndexed', 'overlay', 'queue', 'repoMapTokens', 'scip', 'skipped', 'stale', 'submodules', 'symbols', 'treeHash', 'vectorBytes',
    ])
    assert.equal(status.scip, null)
    assert.equal(status.indexed, true)
    assert.equal(status.stale, false)
    assert.equal(status.treeHash, status.headTreeHash)
    assert.deepEqual(status.languages, { python: 2, typescript: 1, text: 2 })
    assert.ok(status.bm25Bytes > 0 && status.graphBytes > 0)
    assert.ok(status.repoMapTokens > 0 && status.repoMapTokens <= 1024, String(status.repoMapTokens))
    assert.equal(vltJson(repo.dir, ['coderag', 'map']).tokens, status.repoMapTokens)
    assert.equal(status.skipped.secret, 1)
  })

  it('a commit touching one file re-extracts exactly that blob; a rename re-extracts nothing', () => {
    repo = createGitRepo({ files: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`pkg/m${i}.py`, `def f${i}(x):\n    return x + ${i}\n`])) })
    vltJson(repo.dir, ['coderag', 'init'])
    repo.write({ 'pkg/m7.py': 'def f7(x):\n    return x * 7\n' })
    repo.commit('edit m7')
    const sync = vltJson(repo.dir, ['coderag', 'sync'])
    assert.equal(sync.mode, 'incremental')
    assert.deepEqual(sync.changed, ['pkg/m7.py'])
    assert.deepEqual(sync.extracted, ['pkg/m7.py'])

    repo.git('mv', 'pkg/m3.py', 'pkg/renamed.py')
    repo.commit('rename')
    const renamed = vltJson(repo.dir, ['coderag', 'sync'])
    assert.equal(renamed.mode, 'incremental')
    assert.deepEqual(renamed.changed, ['pkg/m3.py', 'pkg/renamed.py'])
    assert.deepEqual(renamed.extracted, [])

    const unchanged = vltJson(repo.dir, ['coderag', 'sync'])
    assert.equal(unchanged.mode, 'unchanged')
    assert.deepEqual(unchanged.extracted, [])
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.files, 30)
    assert.equal(status.stale, false)
  })

  it('extracts content found under several paths once, and indexes every path', () => {
    const copy = 'def shared(x):\n    return x * 2\n'
    const files: Record<string, string> = {}
    for (let i = 0; i < 260; i++) files[`pkg/m${i}.py`] = `def f${i}(x):\n    return x + ${i}\n`
    for (let i = 0; i < 40; i++) files[`vendor${i}/util.py`] = copy
    repo = createGitRepo({ files })
    const init = vltJson(repo.dir, ['coderag', 'init'])
    assert.equal(init.files, 300)
    const packs = join(repo.dir, '.vlt', 'objects', String(EXTRACTOR_VERSION), 'packs')
    const packed = readdirSync(packs).filter((name) => name.endsWith('.idx')).flatMap((name) => readRecordSync<PackIndex>(join(packs, name), PACK_INDEX_KIND, PACK_INDEX_VERSION)!.keys)
    assert.equal(packed.length, 261, 'one record per distinct content')
    const definitions = vltJson(repo.dir, ['coderag', 'def', 'shared', '--limit', '100']).definitions
    assert.equal(definitions.length, 40)
  })

  it('an incremental build equals a cold build of the same tree', () => {
    repo = createGitRepo({ files: { 'a.py': 'def a():\n    return b()\n', 'b.py': 'def b():\n    return 1\n' } })
    vltJson(repo.dir, ['coderag', 'init'])
    repo.write({ 'c.py': 'from b import b\n\ndef c():\n    return b()\n' })
    repo.commit('add c')
    vltJson(repo.dir, ['coderag', 'sync'])
    const incremental = vltJson(repo.dir, ['coderag', 'status'])
    const cold = vltJson(repo.dir, ['coderag', 'init', '--force'])
    const after = vltJson(repo.dir, ['coderag', 'status'])
    for (const key of ['files', 'chunks', 'symbols', 'edges'] as const) assert.equal(incremental[key], cold[key], key)
    assert.equal(after.edges, incremental.edges)
  })

  it('a change deleting more files than remain re-resolves the unchanged files that called into them', () => {
    // Unchanged files reach the deleted ones by a call resolved to the only definition (no import)
    // and by an import; the deleted paths outnumber the files left, as in express's 4.x → 5.0 move,
    // and are too many for a delta: the patched graph is saved in full.
    const files: Record<string, string> = {
      'caller.py': 'def caller():\n    return gone0() + gone1()\n',
      'importer.py': 'from old.g2 import gone2\n\ndef importer():\n    return gone2()\n',
    }
    for (let i = 0; i <= deltaLimit(2); i++) files[`old/g${i}.py`] = `def gone${i}():\n    return ${i}\n`
    repo = createGitRepo({ files })
    vltJson(repo.dir, ['coderag', 'init'])
    repo.git('rm', '-q', '-r', 'old')
    repo.commit('delete old/')
    const sync = vlt(repo.dir, ['coderag', 'sync', '--json'])
    assert.equal(sync.status, 0, sync.stderr)
    const incremental = vltJson(repo.dir, ['coderag', 'status'])
    const cold = vltJson(repo.dir, ['coderag', 'init', '--force'])
    for (const key of ['files', 'symbols', 'edges'] as const) assert.equal(incremental[key], cold[key], key)
  })

  it('a file removed with git rm and not yet committed is left out of the working-tree overlay', () => {
    // git status reports it as `D.` with the index's null blob, which was taken for its content hash.
    repo = createGitRepo({ files: { 'keep.py': 'def keep():\n    return 1\n', 'gone.py': 'def gone():\n    return 2\n' } })
    repo.git('rm', '-q', 'gone.py')
    const init = vlt(repo.dir, ['coderag', 'init', '--json'])
    assert.equal(init.status, 0, init.stderr)
    const def = vlt(repo.dir, ['coderag', 'def', 'gone', '--json'])
    assert.equal(def.status, 0, def.stderr)
    assert.deepEqual(JSON.parse(def.stdout).definitions, [])
  })

  it('stores a small change as a delta on its anchor and a large one in full, both exact', () => {
    const module = (i: number, v: number) => `from pkg.m${(i + 1) % 100} import f${(i + 1) % 100}\n\ndef f${i}(x):\n    return f${(i + 1) % 100}(x) + ${v}\n`
    repo = createGitRepo({ files: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`pkg/m${i}.py`, module(i, 0)])) })
    vltJson(repo.dir, ['coderag', 'init'])
    const treeFiles = (tree: string) => readdirSync(join(repo.dir, '.vlt', 'trees', tree)).sort()

    repo.write(Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`pkg/m${i}.py`, module(i, 1)])))
    repo.commit('large change')
    const large = vltJson(repo.dir, ['coderag', 'sync'])
    assert.equal(large.extracted.length, 70)
    assert.deepEqual(treeFiles(large.treeHash), ['bm25.mpk', 'graph.mpk', 'manifest.mpk', 'symbols.mpk'])

    repo.write({ 'pkg/m99.py': module(99, 2), 'pkg/extra.py': 'def extra():\n    return 1\n' })
    repo.commit('small change')
    const small = vltJson(repo.dir, ['coderag', 'sync'])
    assert.deepEqual(small.extracted, ['pkg/extra.py', 'pkg/m99.py'])
    assert.deepEqual(treeFiles(small.treeHash), ['manifest.mpk'])

    const delta = vltJson(repo.dir, ['coderag', 'status'])
    const cold = vltJson(repo.dir, ['coderag', 'init', '--force'])
    assert.equal(delta.files, 101)
    for (const key of ['files', 'chunks', 'symbols', 'edges'] as const) assert.equal(delta[key], cold[key], key)
    assert.ok(cold.edges >= 100, `edges ${cold.edges}`)
  })

  it('switching branches reuses trees indexed before', () => {
    repo = createGitRepo({ files: { 'main.go': 'package main\n\nfunc main() {}\n' } })
    vltJson(repo.dir, ['coderag', 'init'])
    repo.git('checkout', '-q', '-b', 'feature')
    repo.write({ 'feature.go': 'package main\n\nfunc feature() int { return 1 }\n' })
    repo.commit('feature')
    assert.equal(vltJson(repo.dir, ['coderag', 'sync']).mode, 'incremental')
    repo.git('checkout', '-q', 'main')
    const back = vltJson(repo.dir, ['coderag', 'sync'])
    assert.equal(back.mode, 'reused')
    assert.deepEqual(back.extracted, [])
    repo.git('checkout', '-q', 'feature')
    assert.equal(vltJson(repo.dir, ['coderag', 'sync']).mode, 'reused')
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).files, 2)
  })

  it('indexes uncommitted edits as an overlay, and committing them costs no extraction', () => {
    repo = createGitRepo({ files: { 'lib.rs': 'pub fn one() -> i32 { 1 }\n' } })
    vltJson(repo.dir, ['coderag', 'init'])
    repo.write({ 'lib.rs': 'pub fn one() -> i32 { 1 }\npub fn two() -> i32 { 2 }\n', 'new.rs': 'fn fresh() {}\n' })
    const sync = vltJson(repo.dir, ['coderag', 'sync'])
    assert.equal(sync.mode, 'unchanged')
    assert.equal(sync.overlay.files, 2)
    assert.deepEqual([...sync.overlay.extracted].sort(), ['lib.rs', 'new.rs'])
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.overlay.files, 2)
    assert.equal(status.files, 1, 'the committed tree aggregates do not mix the overlay in')

    repo.commit('commit the edits')
    const committed = vltJson(repo.dir, ['coderag', 'sync'])
    assert.equal(committed.mode, 'incremental')
    assert.deepEqual(committed.extracted, [])
    assert.equal(committed.overlay.files, 0)
  })

  it('recovers from corrupt files: warns once, rebuilds, never crashes', () => {
    repo = createGitRepo({ files: { 'a.py': 'def a():\n    pass\n', 'b.py': 'def b():\n    pass\n' } })
    const first = vltJson(repo.dir, ['coderag', 'init'])
    const treeDir = join(repo.dir, '.vlt', 'trees', first.treeHash)
    const bm25 = join(treeDir, 'bm25.mpk')
    const bytes = readFileSync(bm25)
    // In the BM25 header, checked when the index is opened: by init for the tree it reuses (its other blocks by the query reading them: below).
    bytes[30] ^= 0xff
    writeFileSync(bm25, bytes)
    writeFileSync(join(repo.dir, '.vlt', 'state.mpk'), 'garbage')

    const run = vlt(repo.dir, ['coderag', 'init'])
    assert.equal(run.status, 0, run.stderr)
    const warnings = run.stderr.split('\n').filter((line) => line.startsWith('warning:'))
    assert.equal(warnings.length, 1, run.stderr)
    assert.match(warnings[0]!, /state\.mpk: bad magic.*bm25\.mpk: header checksum mismatch; rebuilt the BM25 index of tree [0-9a-f]{12} from the blob records, rebuilt the index state$/)
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.indexed, true)
    assert.equal(status.files, 2)

    // A corrupt per-blob artifact is re-extracted.
    const objects = join(repo.dir, '.vlt', 'objects')
    const record = findFiles(objects).find((path) => path.endsWith('.python.mpk'))!
    writeFileSync(record, 'not a record')
    rmSync(join(repo.dir, '.vlt', 'trees'), { recursive: true })
    const rebuilt = vlt(repo.dir, ['coderag', 'init', '--json'])
    assert.equal(rebuilt.status, 0, rebuilt.stderr)
    assert.equal(JSON.parse(rebuilt.stdout).files, 2)
  })

  it('rebuilds the BM25 index when a search reads a damaged block of it, and answers as before', () => {
    repo = createGitRepo({ files: { 'a.py': 'def alpha_total():\n    return 1\n', 'b.py': 'def beta():\n    return alpha_total()\n' } })
    const { treeHash } = vltJson(repo.dir, ['coderag', 'init'])
    const query = ['coderag', 'search', 'alpha_total', '--json']
    const before = vltJson(repo.dir, query)
    const bm25 = join(repo.dir, '.vlt', 'trees', treeHash, 'bm25.mpk')
    const pristine = readFileSync(bm25)
    // The last postings (the last term's tfs) and the first dictionary block: 'alpha_total' is read from both.
    const damaged = Buffer.from(pristine)
    damaged[damaged.length - 5] ^= 0xff
    damaged[17 + pristine.readUInt32LE(17 + 13 * 4) + 6] ^= 0xff
    writeFileSync(bm25, damaged)
    // Loading checks the header and tables only: a command that reads no posting sees nothing wrong.
    assert.equal(vlt(repo.dir, ['coderag', 'def', 'beta']).stderr, '')

    const run = vlt(repo.dir, query)
    assert.equal(run.status, 0, run.stderr)
    const { warnings } = JSON.parse(run.stdout) as { warnings: string[] }
    assert.equal(warnings.length, 1, run.stdout)
    assert.match(warnings[0]!, /bm25\.mpk: dictionary block at byte \d+ checksum mismatch; rebuilt the BM25 index of tree [0-9a-f]{12} from the blob records$/)
    const strip = (result: { durationMs?: number; warnings?: string[] }): unknown => ({ ...result, durationMs: 0, warnings: [] })
    assert.deepEqual(strip(JSON.parse(run.stdout)), strip(before))
    // Stored again as it was: the next search has nothing to say.
    assert.deepEqual(readFileSync(bm25), pristine)
    assert.deepEqual(vltJson(repo.dir, query).warnings, [])
  })

  it('opens the BM25 index only for a query that reads it: def and refs never see its damage, search rebuilds it and answers as before', () => {
    repo = createGitRepo({ files: { 'a.py': 'def alpha_total():\n    return 1\n', 'b.py': 'def beta():\n    return alpha_total()\n' } })
    const { treeHash } = vltJson(repo.dir, ['coderag', 'init'])
    const query = ['coderag', 'search', 'alpha_total', '--json']
    const before = { search: vltJson(repo.dir, query), def: vlt(repo.dir, ['coderag', 'def', 'beta']).stdout, refs: vlt(repo.dir, ['coderag', 'refs', 'alpha_total']).stdout }
    const bm25 = join(repo.dir, '.vlt', 'trees', treeHash, 'bm25.mpk')
    const pristine = readFileSync(bm25)
    const damaged = Buffer.from(pristine)
    // In the BM25 header, checked when the index is opened.
    damaged[30] ^= 0xff
    writeFileSync(bm25, damaged)
    for (const [name, args] of [['def', ['coderag', 'def', 'beta']], ['refs', ['coderag', 'refs', 'alpha_total']]] as const) {
      const run = vlt(repo.dir, [...args])
      assert.deepEqual([run.status, run.stderr, run.stdout], [0, '', before[name]], name)
    }

    const run = vlt(repo.dir, query)
    assert.equal(run.status, 0, run.stderr)
    const { warnings } = JSON.parse(run.stdout) as { warnings: string[] }
    assert.equal(warnings.length, 1, run.stdout)
    assert.match(warnings[0]!, /bm25\.mpk: header checksum mismatch; rebuilt the BM25 index of tree [0-9a-f]{12} from the blob records$/)
    const strip = (result: { durationMs?: number; warnings?: string[] }): unknown => ({ ...result, durationMs: 0, warnings: [] })
    assert.deepEqual(strip(JSON.parse(run.stdout)), strip(before.search))
    assert.deepEqual(readFileSync(bm25), pristine)
  })

  it('runs from a subdirectory, on a detached HEAD, in an empty repository and in a bare repository', () => {
    repo = createGitRepo({ files: { 'src/deep/x.py': 'def x():\n    pass\n' } })
    const fromSub = vltJson(join(repo.dir, 'src', 'deep'), ['coderag', 'init'])
    assert.equal(fromSub.files, 1)
    assert.ok(existsSync(join(repo.dir, '.vlt', 'state.mpk')))

    repo.write({ 'y.py': 'def y():\n    pass\n' })
    repo.commit('y')
    repo.git('checkout', '-q', '--detach', 'HEAD~1')
    const detached = vltJson(repo.dir, ['coderag', 'sync'])
    assert.equal(detached.treeHash, repo.git('rev-parse', 'HEAD^{tree}'))

    const empty = createGitRepo()
    try {
      const init = vltJson(empty.dir, ['coderag', 'init'])
      assert.equal(init.files, 0)
      assert.equal(init.treeHash, '4b825dc642cb6eb9a060e54bf8d69288fbee4904')
    } finally {
      empty.cleanup()
    }

    const bare = createGitRepo({ bare: true })
    try {
      repo.git('push', '-q', bare.dir, 'main')
      bare.git('symbolic-ref', 'HEAD', 'refs/heads/main')
      const init = vltJson(bare.dir, ['coderag', 'init'])
      assert.equal(init.files, 2)
      assert.ok(existsSync(join(bare.dir, 'vlt')), 'a bare repository keeps .vlt inside its git dir')
    } finally {
      bare.cleanup()
    }
  })

  it('works in a linked worktree', () => {
    repo = createGitRepo({ files: { 'a.py': 'def a():\n    pass\n' } })
    const parent = mkdtempSync(join(tmpdir(), 'vlt-wt-'))
    const wt = join(parent, 'wt')
    try {
      repo.git('worktree', 'add', '-q', '-b', 'side', wt)
      const init = vltJson(wt, ['coderag', 'init'])
      assert.equal(init.files, 1)
      assert.ok(existsSync(join(wt, '.vlt', 'state.mpk')))
    } finally {
      rmSync(parent, { recursive: true, force: true })
    }
  })

  it('fails outside a git repository with one line and exit code 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vlt-nogit-'))
    try {
      for (const command of [['coderag', 'init'], ['coderag', 'sync'], ['coderag', 'status']]) {
        const run = vlt(dir, command, { GIT_CEILING_DIRECTORIES: tmpdir() })
        assert.equal(run.status, 2, `${command.join(' ')}: ${run.stderr}`)
        assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
        assert.match(run.stderr, /^git vlt: not a git repository/)
        const json = vlt(dir, [...command, '--json'], { GIT_CEILING_DIRECTORIES: tmpdir() })
        assert.equal(json.status, 2)
        assert.equal(JSON.parse(json.stdout).error.code, 'usage')
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('rejects a bad vlt.toml with exit code 2 naming the key', () => {
    repo = createGitRepo({ files: { 'vlt.toml': '[index]\nmax_file_byte = 10\n', 'a.py': 'x = 1\n' } })
    const run = vlt(repo.dir, ['coderag', 'init'])
    assert.equal(run.status, 2)
    assert.match(run.stderr, /index\.max_file_byte/)
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
  })

  it('documents every command with examples', () => {
    repo = createGitRepo()
    for (const command of ['init', 'sync', 'status']) {
      const run = vlt(repo.dir, ['coderag', command, '--help'])
      assert.equal(run.status, 0)
      assert.match(run.stdout, /EXAMPLES/)
      assert.match(run.stdout, /--json/)
    }
  })
})

function findFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
}
