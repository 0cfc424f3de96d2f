import { strict as assert } from 'node:assert'
import { readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { keyOf } from '../../src/core/index/blob-store.js'
import { openIndexContext } from '../../src/core/index/context.js'
import { initIndex } from '../../src/core/index/index.js'
import { Repairs } from '../../src/core/index/repairs.js'
import { openQueryContext } from '../../src/core/query/context.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const FILES: Record<string, string> = {
  'app/a.py': 'def alpha():\n    """The first."""\n    return 1\n',
  'app/b.py': 'from app.a import alpha\n\n\ndef beta():\n    return alpha() + 1\n',
}

function collect(): { warn: (message: string) => void; lines: string[] } {
  const lines: string[] = []
  return { warn: (message) => lines.push(message), lines }
}

describe('healing blob records', function () {
  this.timeout(60_000)
  let repo: GitFixture
  afterEach(() => repo?.cleanup())

  it('extracts a missing or damaged record again the moment a reader needs it: from git, or from the working file', async () => {
    repo = createGitRepo({ files: FILES })
    repo.write({ 'app/c.py': 'def gamma():\n    return 3\n' })
    await initIndex(repo.dir, { warn: () => {} })
    const ctx = await openIndexContext(repo.dir)
    const committed = { blob: repo.git('rev-parse', 'HEAD:app/a.py'), language: 'python' as const }
    const working = { blob: repo.git('hash-object', 'app/c.py'), language: 'python' as const }
    rmSync(ctx.blobs.loosePath(committed))
    const bytes = readFileSync(ctx.blobs.loosePath(working))
    bytes[bytes.length >> 1]! ^= 0xff
    writeFileSync(ctx.blobs.loosePath(working), bytes)

    assert.equal(ctx.blobs.read(committed), undefined)
    const a = ctx.blobs.readOrHeal(committed)
    assert.ok(a && !a.skipped && a.artifact.symbols.some((symbol) => symbol.name === 'alpha'))
    const c = ctx.blobs.readOrHeal(working, { path: 'app/c.py', dirty: true })
    assert.ok(c && !c.skipped && c.artifact.symbols.some((symbol) => symbol.name === 'gamma'))
    const { warn, lines } = collect()
    ctx.repairs.flush(warn)
    assert.deepEqual(lines, ['warning: 2 records of .vlt/objects were missing or damaged; re-extracted them'])
    // Stored again: a fresh reader finds them whole.
    const fresh = await openIndexContext(repo.dir)
    assert.deepEqual(fresh.blobs.read(committed), a)
    assert.deepEqual(fresh.blobs.read(working), c)
  })

  it('never stores a working file under a hash that no longer names its content', async () => {
    repo = createGitRepo({ files: FILES })
    repo.write({ 'app/c.py': 'def gamma():\n    return 3\n' })
    await initIndex(repo.dir, { warn: () => {} })
    const ctx = await openIndexContext(repo.dir)
    const working = { blob: repo.git('hash-object', 'app/c.py'), language: 'python' as const }
    rmSync(ctx.blobs.loosePath(working))
    repo.write({ 'app/c.py': 'def delta():\n    return 4\n' })
    assert.equal(ctx.blobs.readOrHeal(working, { path: 'app/c.py', dirty: true }), undefined)
    const { warn, lines } = collect()
    ctx.repairs.flush(warn)
    assert.deepEqual(lines, ['warning: 1 record could not be re-extracted (app/c.py changed since it was indexed)'])
    assert.equal(ctx.blobs.read(working), undefined)
  })

  it('heals every damaged record of a garbled pack in one go, and mends a pack cut short', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 300; i++) files[`gen/m${i}.py`] = `def f${i}():\n    return ${i}\n`
    repo = createGitRepo({ files })
    await initIndex(repo.dir, { warn: () => {} })
    const ctx = await openIndexContext(repo.dir)
    const packs = ctx.blobs.packsDir
    const pack = join(packs, readdirSync(packs).find((name) => name.endsWith('.pack'))!)
    const size = readFileSync(pack).length
    // The first half of the pack garbled in place: its records fail their checksums, the others hold.
    const bytes = readFileSync(pack)
    for (let i = 0; i < size >> 1; i++) bytes[i] = (i * 31) & 0xff
    writeFileSync(pack, bytes)
    const keys = Object.keys(files).map((path) => ({ blob: repo.git('rev-parse', `HEAD:${path}`), language: 'python' as const }))
    const damaged = ctx.blobs.inspect(keys, false).damaged.length
    assert.ok(damaged > 100, `${damaged} damaged`)
    assert.ok(ctx.blobs.readOrHeal(keys.find((k) => ctx.blobs.inspect([k], false).damaged.length > 0)!))
    const { warn, lines } = collect()
    ctx.repairs.flush(warn)
    assert.deepEqual(lines, [`warning: ${damaged} records of .vlt/objects were missing or damaged; re-extracted them`])
    assert.deepEqual(ctx.blobs.inspect(keys, true), { missing: [], damaged: [] })

    // Cut short: the records past the end are missing (not damaged), the pack is mended to the rest.
    truncateSync(pack, size >> 2)
    const reader = (await openIndexContext(repo.dir)).blobs
    // The garbled half was healed loose; of the other half, what lay past the new end is lost.
    const missing = reader.missing(keys)
    assert.ok(missing.length > 0 && missing.length < keys.length, `${missing.length} missing`)
    assert.match([...reader.damagedFiles.values()][0]!, /bytes, shorter than its index says: \d+ records lost$/)
    assert.equal(reader.mendPacks(), 1)
    const mended = (await openIndexContext(repo.dir)).blobs
    assert.deepEqual(mended.missing(keys).map(keyOf), missing.map(keyOf))
    assert.equal(mended.damagedFiles.size, 0, 'the mended pack holds what its index says')
  })

  it('a query restores every record missing when it opens the index, and reports it once', async () => {
    repo = createGitRepo({ files: FILES })
    await initIndex(repo.dir, { warn: () => {} })
    rmSync(join(repo.dir, '.vlt', 'objects'), { recursive: true })
    const { warn, lines } = collect()
    const qctx = await openQueryContext(repo.dir, { warn })
    assert.deepEqual(lines, ['warning: 2 records of .vlt/objects were missing or damaged; re-extracted them'])
    assert.match(qctx.artifact('app/b.py')!.chunks[0]!.body, /def beta/)
  })
})

describe('repairs: one line per command', () => {
  it('names what was damaged and what was done, however many records', () => {
    const repairs = new Repairs()
    const { warn, lines } = collect()
    repairs.flush(warn)
    assert.deepEqual(lines, [], 'nothing found, nothing said')
    repairs.recordsRestored(1000)
    repairs.recordsRestored(2)
    repairs.rebuilt('rebuilt the index of tree 1a2b3c4d5e6f from the blob records')
    repairs.flush(warn)
    assert.deepEqual(lines, ['warning: 1,002 records of .vlt/objects were missing or damaged; re-extracted them, rebuilt the index of tree 1a2b3c4d5e6f from the blob records'])
  })
})
