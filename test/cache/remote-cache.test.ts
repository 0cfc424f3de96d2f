import { strict as assert } from 'node:assert'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { RemoteCache } from '../../src/core/cache/index.js'
import { decodeRecord, encodeRecord } from '../../src/core/store/index.js'
import { vlt, vltJson } from '../helpers/cli.js'
import { cloneGitRepo, createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { NGINX, startNginxCache, type NginxCache } from '../helpers/nginx-cache.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'

const TOKEN = 'Bearer s3cret-token'
const FILES = {
  'src/parser.py': 'def parse_config(text):\n    """Parse the configuration."""\n    return dict(line.split("=", 1) for line in text.splitlines())\n',
  'src/app.py': 'from parser import parse_config\n\ndef main():\n    return parse_config(open("app.cfg").read())\n',
  'lib/util.ts': 'export function retryWithBackoff(attempts: number): number {\n  return attempts * 2\n}\n',
  'lib/main.ts': "import { retryWithBackoff } from './util'\nexport const delay = retryWithBackoff(3)\n",
  'native/buffer.c': '#include <stdlib.h>\nint buffer_grow(int size) { return size * 2; }\nint buffer_use(void) { return buffer_grow(4); }\n',
  'README.md': '# Cache fixture\n\nHow the parser reads the configuration.\n',
}

/** Files under the cache's directory: what it holds. */
function stored(cache: NginxCache, kind: 'ac' | 'cas'): string[] {
  try {
    return readdirSync(join(cache.data, 'cache', kind))
  } catch {
    return []
  }
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** The kind a record names in its header (see store/record.ts): what a cached object is. */
function kindOf(bytes: Buffer): string {
  return bytes.subarray(5, 5 + bytes[4]!).toString('latin1')
}

interface InitJson {
  treeHash: string
  files: number
  chunks: number
  symbols: number
  edges: number
  extracted: number
}

describe('remote cache ([cache] remote: an HTTP cache, nginx with WebDAV PUT)', function () {
  this.timeout(120_000)
  let cache: NginxCache
  let origin: GitFixture
  const clones: GitFixture[] = []
  const configs: UserConfigFile[] = []

  before(async function () {
    if (!NGINX) this.skip()
    cache = await startNginxCache({ token: TOKEN.slice('Bearer '.length) })
    origin = createGitRepo({ files: FILES })
    // A history of three commits: the commit index a fresh clone can take too.
    origin.write({ 'src/parser.py': `${FILES['src/parser.py']}\ndef parse_line(line):\n    return line.strip()\n` })
    origin.commit('Parse single lines of the configuration')
    origin.write({ 'native/buffer.c': `${FILES['native/buffer.c']}int buffer_shrink(int size) { return size / 2; }\n` })
    origin.commit('Let buffers shrink back when released')
  })
  after(async () => {
    await cache?.stop()
    origin?.cleanup()
    clones.forEach((clone) => clone.cleanup())
    configs.forEach((config) => config.cleanup())
  })

  function clone(): GitFixture {
    const fixture = cloneGitRepo(origin)
    clones.push(fixture)
    return fixture
  }

  function config(text: string): Record<string, string> {
    const file = userConfigFile(text)
    configs.push(file)
    return { ...file.env, VLT_CACHE_AUTH: TOKEN }
  }

  const pushing = () => config(`[cache]\nremote = "${cache.url}"\npush = true\nheader_env = "VLT_CACHE_AUTH"\n`)
  const reading = () => config(`[cache]\nremote = "${cache.url}"\nheader_env = "VLT_CACHE_AUTH"\n`)

  it("a CI run writes its records and the tree's aggregates back; a fresh clone takes them instead of building, with the same index", () => {
    const ci = clone()
    const built = vltJson<InitJson>(ci.dir, ['coderag', 'init'], pushing())
    assert.equal(built.extracted, 6)
    // One entry per blob record, one for the tree, one for HEAD's history.
    assert.equal(stored(cache, 'ac').length, 8)

    const fresh = clone()
    const run = vlt(fresh.dir, ['coderag', 'init'], reading())
    assert.equal(run.status, 0, run.stderr)
    assert.match(run.stderr, /^cache: 6 records, the tree's aggregates and the commit index \(3 commits\) from http:\/\/127\.0\.0\.1:\d+\/cache\/, 0 not there$/m)
    const status = vltJson(fresh.dir, ['coderag', 'status'])
    assert.equal(status.treeHash, built.treeHash)
    const again = vltJson<InitJson>(fresh.dir, ['coderag', 'init'], reading())
    assert.deepEqual({ ...again, durationMs: 0, commits: null, warnings: [] }, { ...built, extracted: 0, durationMs: 0, commits: null, warnings: [] })
    for (const args of [['coderag', 'def', 'buffer_grow'], ['coderag', 'refs', 'parse_config'], ['coderag', 'search', 'retry backoff']]) {
      assert.deepEqual(vltJson(fresh.dir, args), vltJson(ci.dir, args), args.join(' '))
    }
    assert.match(vlt(fresh.dir, ['coderag', 'verify']).stdout, /whole/)
  })

  it("a clone selecting other files finds no tree's aggregates for its settings: it reads the records and builds them", () => {
    const other = clone()
    const env = config(`[cache]\nremote = "${cache.url}"\nheader_env = "VLT_CACHE_AUTH"\n\n[index]\nexclude = ["README.md"]\n`)
    const run = vlt(other.dir, ['coderag', 'init', '--json'], env)
    assert.equal(run.status, 0, run.stderr)
    const result = JSON.parse(run.stdout) as InitJson & { warnings: string[] }
    assert.equal(result.files, 5)
    assert.equal(result.extracted, 0)
    assert.match(result.warnings.join('\n'), /^cache: 5 records and the commit index \(3 commits\) from http:\/\/127\.0\.0\.1:\d+\/cache\/, 0 not there$/m)
    assert.deepEqual(vltJson(other.dir, ['coderag', 'def', 'buffer_grow']), vltJson(clones[0]!.dir, ['coderag', 'def', 'buffer_grow']))
  })

  const object = (named: string): string => join(cache.data, 'cache', 'cas', named)

  /**
   * Points the tree's entry at a bundle whose part `name` is `forge`d from CI's (stored under its
   * own digest, so every digest holds); returns what to call to put the entry back as CI wrote it.
   */
  function forgeTreePart(name: string, forge: (bytes: Buffer) => Buffer): () => void {
    const entryFile = (entry: string): string => join(cache.data, 'cache', 'ac', entry)
    const names = (entry: string): string => readFileSync(entryFile(entry), 'latin1')
    // The bundle the tree's entry names (an earlier case may have left forged bundles beside it).
    const entry = stored(cache, 'ac').find((entry) => /^[0-9a-f]{64}$/.test(names(entry)) && kindOf(readFileSync(object(names(entry)))) === 'tree-bundle')!
    const bundleName = names(entry)
    const bundle = decodeRecord<{ treeHash: string; parts: Record<string, string> }>(readFileSync(object(bundleName)), 'tree-bundle', 1, 'bundle')
    const forged = forge(readFileSync(object(bundle.parts[name]!)))
    writeFileSync(object(sha256(forged)), forged)
    const forgedBundle = encodeRecord('tree-bundle', 1, { ...bundle, parts: { ...bundle.parts, [name]: sha256(forged) } })
    writeFileSync(object(sha256(forgedBundle)), forgedBundle)
    writeFileSync(entryFile(entry), sha256(forgedBundle))
    return () => writeFileSync(entryFile(entry), bundleName)
  }

  /** A fresh clone's init, which rejects the tree's aggregates (one part) and takes every record instead. */
  function initRejectingTheTree(): GitFixture {
    const fresh = clone()
    const run = vlt(fresh.dir, ['coderag', 'init', '--json'], reading())
    assert.equal(run.status, 0, run.stderr)
    const result = JSON.parse(run.stdout) as InitJson & { warnings: string[] }
    assert.match(result.warnings.join('\n'), /warning: cache: 1 records from http:\/\/127\.0\.0\.1:\d+\/cache\/ rejected/)
    assert.match(result.warnings.join('\n'), /^cache: 6 records and the commit index \(3 commits\) from /m)
    return fresh
  }

  it("rejects a tree's aggregates whose manifest does not describe the tree, though every digest and checksum holds, and builds it here", () => {
    const restore = forgeTreePart('manifest.mpk', (manifestBytes) => {
      const version = manifestBytes.readUInt32LE(5 + manifestBytes[4]!)
      const manifest = decodeRecord<{ files: Array<{ path: string; blob: string }> }>(manifestBytes, 'tree-manifest', version, 'manifest')
      // A well-formed lie: parser.py's entry names another file's content.
      const parser = manifest.files.find((file) => file.path === 'src/parser.py')!
      parser.blob = manifest.files.find((file) => file.path === 'src/app.py')!.blob
      return encodeRecord('tree-manifest', version, manifest)
    })
    try {
      const fresh = initRejectingTheTree()
      for (const args of [['coderag', 'def', 'parse_config'], ['coderag', 'search', 'configuration parser']]) {
        assert.deepEqual(vltJson(fresh.dir, args), vltJson(clones[0]!.dir, args), args.join(' '))
      }
    } finally {
      restore()
    }
  })

  it("rejects a tree's part whose record is damaged though its digest holds, keeps no piece of what it received, and builds the tree here", () => {
    // One byte flipped in the BM25 index's payload, far from its header: only the whole-file checksum can tell.
    const restore = forgeTreePart('bm25.mpk', (bytes) => {
      const damaged = Buffer.from(bytes)
      damaged[Math.floor(damaged.length * 0.7)]! ^= 0x20
      return damaged
    })
    try {
      const fresh = initRejectingTheTree()
      const trees = join(fresh.dir, '.vlt', 'trees')
      const leftovers = readdirSync(trees, { recursive: true }).map(String).filter((name) => name.endsWith('.vlt-tmp'))
      assert.deepEqual(leftovers, [])
      assert.deepEqual(vltJson(fresh.dir, ['coderag', 'search', 'configuration parser']), vltJson(clones[0]!.dir, ['coderag', 'search', 'configuration parser']))
      assert.match(vlt(fresh.dir, ['coderag', 'verify']).stdout, /whole/)
    } finally {
      restore()
    }
  })

  it('rejects content that does not match its digest, and a malformed entry, and builds those records here', () => {
    const isRecord = (named: string): boolean => kindOf(readFileSync(join(cache.data, 'cache', 'cas', named))) === 'blob-artifact'
    const objects = stored(cache, 'cas').filter(isRecord)
    const entries = stored(cache, 'ac').filter((entry) => isRecord(readFileSync(join(cache.data, 'cache', 'ac', entry), 'latin1')))
    // One object altered in place (a poisoned cache), one entry naming no digest at all.
    const poisoned = join(cache.data, 'cache', 'cas', objects[0]!)
    writeFileSync(poisoned, Buffer.concat([readFileSync(poisoned), Buffer.from('tampered')]))
    const malformed = entries.find((entry) => readFileSync(join(cache.data, 'cache', 'ac', entry), 'latin1') !== objects[0])!
    writeFileSync(join(cache.data, 'cache', 'ac', malformed), '../../etc/passwd')

    const fresh = clone()
    const run = vlt(fresh.dir, ['coderag', 'init', '--json'], reading())
    assert.equal(run.status, 0, run.stderr)
    const result = JSON.parse(run.stdout) as InitJson & { warnings: string[] }
    assert.equal(result.extracted, 2)
    assert.match(result.warnings.join('\n'), /warning: cache: 2 records from http:\/\/127\.0\.0\.1:\d+\/cache\/ rejected \(content not matching its digest, or not a valid record\) and built here/)
    assert.deepEqual(vltJson(fresh.dir, ['coderag', 'def', 'buffer_grow']), vltJson(clones[0]!.dir, ['coderag', 'def', 'buffer_grow']))
  })

  it('a cache that refuses or cannot be reached costs one warning, never the index', async () => {
    const withoutToken = clone()
    const env = config(`[cache]\nremote = "${cache.url}"\nheader_env = "VLT_CACHE_MISSING"\n`)
    const refused = vlt(withoutToken.dir, ['coderag', 'init'], env)
    assert.equal(refused.status, 0, refused.stderr)
    assert.match(refused.stderr, /warning: cache: \$VLT_CACHE_MISSING is not set; requests go without the Authorization header/)
    assert.match(refused.stderr, /warning: cache: http:\/\/127\.0\.0\.1:\d+\/cache\/ not usable \(GET answered HTTP 401\); indexing without it/)
    assert.equal(refused.stderr.match(/not usable/g)!.length, 1)
    assert.equal(vltJson(withoutToken.dir, ['coderag', 'status']).files, 6)

    // A cache that was there a moment ago: nothing listens on its port now.
    const gone = await startNginxCache()
    await gone.stop()
    const unreachable = clone()
    const down = vlt(unreachable.dir, ['coderag', 'init'], config(`[cache]\nremote = "${gone.url}"\n`))
    assert.equal(down.status, 0, down.stderr)
    assert.match(down.stderr, /warning: cache: http:\/\/127\.0\.0\.1:\d+\/cache\/ not usable \(ECONNREFUSED\); indexing without it/)
  })

  it('a write-back that cannot read its own content says so and goes on using the cache', async () => {
    process.env.VLT_UNIT_CACHE_AUTH = TOKEN
    const remote = new RemoteCache({ remote: cache.url, push: true, header: 'Authorization', headerEnv: 'VLT_UNIT_CACHE_AUTH', timeoutMs: 5000 })
    delete process.env.VLT_UNIT_CACHE_AUTH
    const unreadable = async function* (): AsyncGenerator<Uint8Array> {
      yield Buffer.from('ab')
      throw Object.assign(new Error('i/o error'), { code: 'EIO' })
    }
    assert.equal(await remote.putContentFrom(4, unreadable), undefined)
    assert.equal(remote.pushing, true)
    const sound = async function* (): AsyncGenerator<Uint8Array> {
      yield Buffer.from('abcd')
    }
    assert.equal(await remote.putContentFrom(4, sound), createHash('sha256').update('abcd').digest('hex'))
    const warnings: string[] = []
    remote.flush((message) => warnings.push(message))
    assert.deepEqual(warnings, ['warning: cache: not written back: EIO'])
  })

  it('never sends the content of working-tree files, only of committed blobs', () => {
    const before = stored(cache, 'ac').length
    const dev = clone()
    dev.write({ 'lib/util.ts': 'export function retryWithBackoff(attempts: number): number {\n  return attempts * 3 // uncommitted\n}\n' })
    const run = vlt(dev.dir, ['coderag', 'init'], pushing())
    assert.equal(run.status, 0, run.stderr)
    assert.equal(stored(cache, 'ac').length, before, 'a record of the edited file was written back')
    const committed = execFileSync('git', ['-C', dev.dir, 'status', '--porcelain'], { encoding: 'utf8' })
    assert.match(committed, /M lib\/util\.ts/)
  })
  it("a fresh clone takes HEAD's commit index instead of reading the history from git; a pack with a commit outside that history is rejected and the history read from git", () => {
    const ci = clones[0]!
    const fresh = clone()
    const taken = vltJson<InitJson & { commits: { indexed: number; added: number } }>(fresh.dir, ['coderag', 'init'], reading())
    assert.deepEqual([taken.commits.indexed, taken.commits.added], [3, 0])
    const byHistory = ['coderag', 'search', '--files', 'buffers shrink when released']
    assert.deepEqual(vltJson(fresh.dir, byHistory), vltJson(ci.dir, byHistory))

    // A well-formed pack, under the id its commits give it, whose newest commit is not this history's.
    const object = (named: string): string => join(cache.data, 'cache', 'cas', named)
    const bundleName = stored(cache, 'cas').find((named) => kindOf(readFileSync(object(named))) === 'commit-bundle')!
    const bundle = decodeRecord<{ head: string; packs: Array<{ id: string; commits: number; digest: string }> }>(readFileSync(object(bundleName)), 'commit-bundle', 1, 'bundle')
    const pack = decodeRecord<{ commits: Array<{ hash: string }> }>(readFileSync(object(bundle.packs[0]!.digest)), 'commit-pack', 1, 'pack')
    pack.commits[0]!.hash = 'f'.repeat(40)
    const id = createHash('sha1').update(pack.commits.map((commit) => `${commit.hash}\n`).join('')).digest('hex').slice(0, 24)
    const forgedPack = encodeRecord('commit-pack', 1, pack)
    writeFileSync(object(sha256(forgedPack)), forgedPack)
    const forgedBundle = encodeRecord('commit-bundle', 1, { ...bundle, packs: [{ id, commits: pack.commits.length, digest: sha256(forgedPack) }, ...bundle.packs.slice(1)] })
    writeFileSync(object(sha256(forgedBundle)), forgedBundle)
    const entry = stored(cache, 'ac').find((name) => readFileSync(join(cache.data, 'cache', 'ac', name), 'latin1') === bundleName)!
    writeFileSync(join(cache.data, 'cache', 'ac', entry), sha256(forgedBundle))
    try {
      const other = clone()
      const run = vlt(other.dir, ['coderag', 'init', '--json'], reading())
      assert.equal(run.status, 0, run.stderr)
      const result = JSON.parse(run.stdout) as InitJson & { commits: { indexed: number; added: number }; warnings: string[] }
      assert.deepEqual([result.commits.indexed, result.commits.added], [3, 3])
      // Counted with the records an earlier case poisoned for good.
      assert.match(result.warnings.join('\n'), /warning: cache: \d+ records from http:\/\/127\.0\.0\.1:\d+\/cache\/ rejected/)
      assert.doesNotMatch(result.warnings.join('\n'), /commit index/)
      assert.ok(!readdirSync(join(other.dir, '.vlt', 'commits', 'packs')).includes(`${id}.mpk`), 'the forged pack was stored')
      assert.deepEqual(vltJson(other.dir, byHistory), vltJson(ci.dir, byHistory))
    } finally {
      writeFileSync(join(cache.data, 'cache', 'ac', entry), bundleName)
    }
  })
})
