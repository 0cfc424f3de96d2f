import { strict as assert } from 'node:assert'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { artifactCache, openQueryContext, type FileSource } from '../../src/core/query/context.js'
import type { Chunk, FileArtifact } from '../../src/core/parse/types.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const warn = (): void => {}

describe('query context', function () {
  this.timeout(60_000)
  let repo: GitFixture
  afterEach(() => repo?.cleanup())

  it('builds the index on first use and lays uncommitted edits over HEAD', async () => {
    repo = createGitRepo({ files: { 'app/a.py': 'def first():\n    return 1\n', 'app/b.py': 'from app.a import first\n\ndef caller():\n    return first()\n' } })
    assert.equal(existsSync(join(repo.dir, '.vlt')), false)
    const clean = await openQueryContext(repo.dir, { warn })
    assert.equal(clean.freshness.treeHash, repo.git('rev-parse', 'HEAD^{tree}'))
    assert.equal(clean.freshness.stale, false)
    assert.equal(clean.freshness.overlayFiles, 0)
    assert.deepEqual(clean.aggregates.symbols.byName('first').map((s) => s.path), ['app/a.py'])

    repo.write({ 'app/a.py': 'def second():\n    return 2\n', 'app/c.py': 'def third():\n    return 3\n' })
    const dirty = await openQueryContext(repo.dir, { warn })
    assert.equal(dirty.freshness.overlayFiles, 2)
    assert.deepEqual(dirty.aggregates.symbols.byName('first'), [])
    assert.deepEqual(dirty.aggregates.symbols.byName('second').map((s) => s.path), ['app/a.py'])
    assert.deepEqual(dirty.aggregates.symbols.byName('third').map((s) => s.path), ['app/c.py'])
    assert.equal(dirty.files.get('app/a.py')!.dirty, true)
    assert.match(dirty.artifact('app/a.py')!.chunks[0]!.body, /def second/)
    assert.equal(dirty.manifest.treeHash, clean.manifest.treeHash, 'the committed tree is unchanged')
  })

  it('keeps decoded artifacts within a size bound, the most recently used first', () => {
    // Files of about 100 KB of text each, as Linux's are: a bound of 1 MB keeps about ten.
    const files = new Map<string, FileSource>(Array.from({ length: 40 }, (_, f) => [`f${f}.c`, { path: `f${f}.c`, blob: `b${f}`, language: 'c', dirty: false }]))
    const chunk = { body: 'x'.repeat(100_000), signature: '', docstring: '', imports: '', classContext: '', decorators: '' } as Chunk
    const reads: string[] = []
    const artifact = artifactCache((source) => {
      reads.push(source.path)
      return { language: 'c', chunks: [chunk], symbols: [], references: [], imports: [], parseErrors: 0, lineCount: 1 } satisfies FileArtifact
    }, files, 1 << 20)
    for (let f = 0; f < 40; f++) artifact(`f${f}.c`)
    artifact('f39.c')
    artifact('f35.c')
    assert.equal(reads.length, 40, 'the most recent ones are still there')
    artifact('f0.c')
    assert.equal(reads.length, 41, 'the oldest was let go')
    // Ten are kept: the nine most recent before f0, and f0.
    reads.length = 0
    for (const f of [0, 35, 39, 38, 37, 36, 34, 33, 32, 31]) artifact(`f${f}.c`)
    assert.deepEqual(reads, [])
    artifact('f30.c')
    assert.deepEqual(reads, ['f30.c'])
  })
})
