import assert from 'node:assert/strict'
import { createExtractor, EXTRACTOR_VERSION, type Extractor } from '../../src/core/parse/index.js'

let extractor: Extractor

before(async () => {
  extractor = await createExtractor()
  await extractor.prepare('python')
})

const PYTHON = [
  'import os',
  '',
  '',
  'def resolve(root, name):',
  '    """Absolute path of `name` under `root`, with symlinks resolved on the way."""',
  '    joined = os.path.join(root, name)',
  '    resolved = os.path.realpath(joined)',
  '    return resolved if os.path.exists(resolved) else joined',
  '',
  '',
  'class Registry:',
  '    def __init__(self):',
  '        self.entries = {}',
  '        self.order = []',
  '        self.frozen = False',
  '',
  '    def add(self, name, value):',
  '        self.entries[name] = value',
  '        self.order.append(name)',
  '',
].join('\n')

describe('extract', () => {
  it('has a positive integer version for the artifact cache key', () => {
    assert.ok(Number.isInteger(EXTRACTOR_VERSION) && EXTRACTOR_VERSION > 0)
  })

  it('refuses a language that was not prepared', async () => {
    const fresh = await createExtractor()
    assert.throws(() => fresh.extract('package main\n', 'go'), /prepare\('go'\)/)
  })

  it('returns symbols, imports and chunks from one parse', () => {
    const artifact = extractor.extract(PYTHON, 'python')
    assert.equal(artifact.language, 'python')
    assert.equal(artifact.lineCount, 19)
    assert.equal(artifact.parseErrors, 0)
    assert.deepEqual(
      artifact.symbols.map((s) => [s.qualifiedName, s.kind, s.line, s.endLine]),
      [
        ['resolve', 'function', 4, 8], ['Registry', 'class', 11, 19],
        ['Registry.__init__', 'method', 12, 15], ['Registry.add', 'method', 17, 19],
      ],
    )
    assert.deepEqual(artifact.imports, [{ module: 'os', names: [], line: 1, relative: false }])
    assert.deepEqual(
      artifact.chunks.map((c) => [c.startLine, c.endLine, c.kind, c.qualifiedName, c.imports]),
      [[1, 1, 'module', '', ''], [4, 8, 'function', 'resolve', 'import os'], [11, 19, 'class', 'Registry', '']],
    )
  })

  it('handles an empty file', () => {
    assert.deepEqual(extractor.extract('', 'python'), {
      language: 'python', chunks: [], symbols: [], references: [], imports: [], parseErrors: 0, lineCount: 0,
    })
  })

  it('still chunks a file with syntax errors, and counts them', async () => {
    const source = 'def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Fine:\n    x = 1\n'
    const artifact = extractor.extract(source, 'python')
    assert.equal(artifact.parseErrors, 1)
    assert.deepEqual(artifact.chunks.map((c) => [c.startLine, c.endLine]), [[1, 8]])
    assert.equal(artifact.chunks[0]!.body, source.trimEnd())
    assert.deepEqual(artifact.symbols.map((s) => s.name), ['ok', 'broken', 'Fine', 'x'])

    await extractor.prepare('c')
    // A missing `;` is a MISSING node, not an ERROR.
    const missing = extractor.extract('int main(void) {\n  return 0\n}\n', 'c')
    assert.equal(missing.parseErrors, 1)
    assert.deepEqual(missing.chunks.map((c) => [c.startLine, c.endLine, c.kind, c.name]), [[1, 3, 'function', 'main']])
  })

  it('reads CRLF files with the same lines as LF ones, and bodies free of a trailing CR', () => {
    const crlf = PYTHON.replace(/\n/g, '\r\n')
    const lf = extractor.extract(PYTHON, 'python')
    const artifact = extractor.extract(crlf, 'python')
    assert.equal(artifact.lineCount, 19)
    assert.deepEqual(artifact.symbols.map((s) => [s.line, s.endLine, s.column]), lf.symbols.map((s) => [s.line, s.endLine, s.column]))
    assert.deepEqual(
      artifact.chunks.map((c) => [c.startLine, c.endLine, c.kind, c.qualifiedName, c.docstring]),
      lf.chunks.map((c) => [c.startLine, c.endLine, c.kind, c.qualifiedName, c.docstring]),
    )
    const resolve = artifact.chunks[1]!
    assert.equal(resolve.body, crlf.split('\r\n').slice(3, 8).join('\r\n'))
    assert.equal(resolve.signature, 'def resolve(root, name)')
  })

  it('keeps lines and columns right after multi-byte characters (indexes are UTF-16 string indexes)', async () => {
    await extractor.prepare('typescript')
    const source = [
      '// café ☕ — naïve résumé, 😀',
      "const smile = '😀'; export function greet(name: string): string {",
      "  const parts = ['¡hola', name, '😀', 'señor', 'über', 'straße', 'ελληνικά', '日本語']",
      "  return parts.join(' ') + ' — ' + smile + ' — ' + name.toUpperCase() + ' — ' + parts.length",
      '}',
      '',
    ].join('\n')
    const artifact = extractor.extract(source, 'typescript')
    const greet = artifact.symbols.find((s) => s.name === 'greet')!
    const line = source.split('\n')[1]!
    assert.deepEqual([greet.line, greet.endLine, greet.column], [2, 5, line.indexOf('greet')])
    assert.deepEqual(
      artifact.chunks.map((c) => [c.startLine, c.endLine, c.kind, c.qualifiedName]),
      [[1, 1, 'module', ''], [2, 5, 'function', 'greet']],
    )
    assert.equal(artifact.chunks[1]!.body, source.split('\n').slice(1, 5).join('\n'))
    assert.equal(artifact.chunks[1]!.signature, 'function greet(name: string): string')
  })

  it('frees every syntax tree (no wasm memory growth over 2,000 files)', () => {
    const source = PYTHON.repeat(2)
    for (let i = 0; i < 50; i++) extractor.extract(source, 'python')
    const before = process.memoryUsage().external
    for (let i = 0; i < 2000; i++) extractor.extract(source, 'python')
    const growth = process.memoryUsage().external - before
    // A leaked tree of this file is ~40 KB: 2,000 of them would add ~80 MB of wasm memory.
    assert.ok(growth < 16 * 1024 * 1024, `wasm memory grew by ${(growth / 1048576).toFixed(1)} MB`)
  })
})
