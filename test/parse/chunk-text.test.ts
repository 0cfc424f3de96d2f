import assert from 'node:assert/strict'
import { createExtractor, type Chunk } from '../../src/core/parse/index.js'
import { MAX_CHUNK_CHARS } from '../../src/core/parse/chunk/index.js'
import { TEXT_OVERLAP_LINES, TEXT_WINDOW_LINES } from '../../src/core/parse/text-chunks.js'

async function textChunks(source: string): Promise<Chunk[]> {
  const extractor = await createExtractor()
  await extractor.prepare('text')
  const artifact = extractor.extract(source, 'text')
  assert.deepEqual([artifact.symbols, artifact.references, artifact.imports, artifact.parseErrors], [[], [], [], 0])
  return artifact.chunks
}

const spans = (chunks: Chunk[]) => chunks.map((c) => [c.startLine, c.endLine])

describe('chunks: text windows', () => {
  it('keeps a short file in one block chunk without symbols', async () => {
    const source = '# Title\n\nSome prose.\n'
    assert.deepEqual(await textChunks(source), [{
      kind: 'block', name: '', qualifiedName: '', language: 'text', startLine: 1, endLine: 3,
      imports: '', classContext: '', signature: '', decorators: '', docstring: '',
      body: '# Title\n\nSome prose.', tokenCount: Math.ceil('# Title\n\nSome prose.'.length / 4),
    }])
  })

  it('ends windows at paragraph breaks, without overlap', async () => {
    // 10 paragraphs of 8 lines of 30 characters, 249 characters per paragraph and blank line.
    const paragraph = (p: number) => Array.from({ length: 8 }, (_, i) => `paragraph ${p} line ${i} `.padEnd(30, '.'))
    const source = Array.from({ length: 10 }, (_, p) => paragraph(p).join('\n')).join('\n\n') + '\n'
    const chunks = await textChunks(source)
    // 1,500 characters reach into line 55; the window ends at the blank line 54 after paragraph 6.
    assert.deepEqual(spans(chunks), [[1, 53], [55, 89]])
    for (const chunk of chunks) assert.ok(chunk.body.length <= MAX_CHUNK_CHARS)
  })

  it('overlaps windows cut inside a paragraph, and bounds their lines', async () => {
    const source = Array.from({ length: 150 }, (_, i) => `l${i}`).join('\n')
    const chunks = await textChunks(source)
    const step = TEXT_WINDOW_LINES - TEXT_OVERLAP_LINES
    assert.deepEqual(spans(chunks), [[1, 60], [1 + step, 60 + step], [1 + 2 * step, 150]])
  })

  it('never splits a line, skips blank lines and reads CRLF', async () => {
    const long = 'x'.repeat(MAX_CHUNK_CHARS * 2)
    const chunks = await textChunks(`\r\n\r\nshort\r\n${long}\r\nend\r\n`)
    assert.deepEqual(spans(chunks), [[3, 3], [4, 4], [5, 5]])
    assert.deepEqual(chunks.map((c) => c.body), ['short', long, 'end'])
  })

  it('has no chunk for an empty or blank file', async () => {
    assert.deepEqual(await textChunks(''), [])
    assert.deepEqual(await textChunks('\n  \n\t\n'), [])
  })
})
