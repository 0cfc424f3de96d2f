import { strict as assert } from 'node:assert'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { decodeBlobRecord, encodeBlobRecord, type BlobRecord } from '../../src/core/index/blob-task.js'
import { openIndexContext } from '../../src/core/index/context.js'
import { initIndex, syncIndex } from '../../src/core/index/index.js'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import { openQueryContext } from '../../src/core/query/context.js'
import { analyzeChunks } from '../../src/core/search/analyze.js'
import { textArtifact } from '../../src/core/parse/text-chunks.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const A = 'def alpha():\n    """The first."""\n    return 1   \n\n\nclass Beta:\n    def gamma(self):\n        return alpha()\n'

function collect(): { warn: (message: string) => void; lines: string[] } {
  const lines: string[] = []
  return { warn: (message) => lines.push(message), lines }
}

describe('chunk text: served by git, not stored', function () {
  this.timeout(60_000)
  let repo: GitFixture
  afterEach(() => repo?.cleanup())

  it("stores a committed file's chunks without their text, and a query reads the text from git as extraction saw it", async () => {
    repo = createGitRepo({ files: { 'app/a.py': A } })
    await initIndex(repo.dir, { warn: () => {} })
    const index = await openIndexContext(repo.dir)
    const record = index.blobs.read({ blob: repo.git('rev-parse', 'HEAD:app/a.py'), language: 'python' })
    assert.ok(record && !record.skipped && record.artifact.chunks.length > 0)
    assert.ok(record.artifact.chunks.every((chunk) => chunk.body === undefined))

    const { warn, lines } = collect()
    const qctx = await openQueryContext(repo.dir, { warn, noSync: true })
    const chunks = qctx.artifact('app/a.py')!.chunks
    const sourceLines = A.split('\n')
    for (const chunk of chunks) assert.equal(chunk.body, sourceLines.slice(chunk.startLine - 1, chunk.endLine).join('\n').trimEnd())
    assert.ok(chunks.some((chunk) => chunk.body.includes('return alpha()')))
    // An object spread copies the text.
    assert.equal({ ...chunks[0]! }.body, chunks[0]!.body)
    assert.deepEqual(lines, [])
  })

  it('redacts the text git serves again only for a file whose extraction redacted credentials', async () => {
    const token = 'ghp_' + 'R4nd0mT0k3nV4lu3sXq9Zp2Lm7Kw8Jd5Hf1Y'
    const secret = `${A}\ndef delta():\n    return "${token}"\n`
    repo = createGitRepo({ files: { 'app/a.py': A, 'app/s.py': secret } })
    await initIndex(repo.dir, { warn: () => {} })
    const index = await openIndexContext(repo.dir)
    const recordOf = (path: string): BlobRecord | undefined => index.blobs.read({ blob: repo.git('rev-parse', `HEAD:${path}`), language: 'python' })
    const clean = recordOf('app/a.py')
    const redacted = recordOf('app/s.py')
    assert.ok(clean && !clean.skipped && clean.redacted === undefined)
    assert.ok(redacted && !redacted.skipped && redacted.redacted === true)
    const qctx = await openQueryContext(repo.dir, { warn: () => {}, noSync: true })
    const body = qctx.artifact('app/s.py')!.chunks.map((chunk) => chunk.body).join('\n')
    assert.ok(body.includes('def delta()') && !body.includes(token), body)
    // Redacted in place, every column where it was.
    const line = secret.split('\n').findIndex((text) => text.includes(token))
    assert.equal(body.split('\n').find((text) => text.includes('return "'))!.length, secret.split('\n')[line]!.trimEnd().length)
  })

  it("keeps an uncommitted file's chunk text in its record: git has no copy of it", async () => {
    repo = createGitRepo({ files: { 'app/a.py': A } })
    await initIndex(repo.dir, { warn: () => {} })
    repo.write({ 'app/a.py': A.replace('return 1', 'return 2') })
    await syncIndex(repo.dir, { warn: () => {} })
    const index = await openIndexContext(repo.dir)
    const record = index.blobs.read({ blob: repo.git('hash-object', 'app/a.py'), language: 'python' })
    assert.ok(record && !record.skipped && record.artifact.chunks.every((chunk) => typeof chunk.body === 'string'))
    const qctx = await openQueryContext(repo.dir, { warn: () => {}, noSync: true })
    assert.ok(qctx.artifact('app/a.py')!.chunks.some((chunk) => chunk.body.includes('return 2')))
  })

  it('says in one line that chunk text is unavailable when git lost the blob, and answers without it', async () => {
    repo = createGitRepo({ files: { 'app/a.py': A } })
    await initIndex(repo.dir, { warn: () => {} })
    const blob = repo.git('rev-parse', 'HEAD:app/a.py')
    rmSync(join(repo.dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)))
    const { warn, lines } = collect()
    const qctx = await openQueryContext(repo.dir, { warn, noSync: true })
    const artifact = qctx.artifact('app/a.py')!
    assert.ok(artifact.symbols.some((symbol) => symbol.name === 'alpha'))
    assert.deepEqual(artifact.chunks.map((chunk) => chunk.body), artifact.chunks.map(() => ''))
    assert.deepEqual(lines, [`warning: chunk text unavailable: git has no blob ${blob.slice(0, 12)}`])
  })

  it('stores analysed docs and reference columns compactly, and reads them back as they were', () => {
    const artifact = textArtifact('alpha beta\ngamma alpha delta\n'.repeat(40), 'text')
    const references = toReferenceColumns([
      { name: 'alpha', line: 70_000, column: 3, kind: 'call', enclosing: '' },
      { name: 'beta', line: 12, column: 70_000, kind: 'reference', enclosing: 'f', receiver: 'self' },
      { name: 'alpha', line: 13, column: 0, kind: 'type', enclosing: 'f' },
    ])
    const record: BlobRecord = { artifact: { ...artifact, chunks: artifact.chunks.map(({ body: _text, ...chunk }) => chunk), references }, analyzed: analyzeChunks(artifact.chunks) }
    for (const doc of record.analyzed.docs) assert.deepEqual(doc.terms, [...doc.terms].sort((a, b) => a - b))
    assert.deepEqual(decodeBlobRecord(encodeBlobRecord(record), 'test'), record)
  })
})
