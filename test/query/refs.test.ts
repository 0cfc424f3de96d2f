import { strict as assert } from 'node:assert'
import { findReferences, type RefsResult } from '../../src/core/query/refs.js'
import { indexedRepo } from '../helpers/indexed-repo.js'

const FILES = {
  'app/storage.py': ['def load(path):', '    return open(path)', '', 'class Cache:', '    def get(self, key):', '        return load(key)', ''].join('\n'),
  'app/config.py': ['def load(name):', '    return name', '', 'def reload():', '    return load("x")', ''].join('\n'),
  'app/service.py': [
    'from app.storage import load, Cache',
    'from app import config',
    '',
    'def run(items):',
    '    data = load("a")',
    '    config.load("b")',
    '    items.load()',
    '    return Cache().get(data)',
    '',
  ].join('\n'),
  'app/__init__.py': '',
  'app/other.py': ['from app.config import load', '', 'def start():', '    return load("c")', ''].join('\n'),
  'app/mystery.py': ['from vendor.thing import load', '', 'def go():', '    return load("d")', ''].join('\n'),
}

describe('refs', function () {
  this.timeout(60_000)
  const fx = indexedRepo(FILES)

  const at = (refs: RefsResult['references'] | undefined): string[] => (refs ?? []).map((r) => `${r.path}:${r.line}`)

  it('keeps uses reached through imports and the defining file, drops the same-named function of another module', () => {
    const result = findReferences(fx.qctx, 'app/storage.py:load')
    assert.deepEqual(result.definitions.map((d) => `${d.path}:${d.line}`), ['app/storage.py:1'])
    // storage.py:6 (same file), service.py:1 (the import) and :5 (the call); config.load, items.load and other.py are another load.
    assert.deepEqual(at(result.references), ['app/storage.py:6', 'app/service.py:1', 'app/service.py:5'])
    assert.deepEqual(at(result.ambiguous), ['app/mystery.py:1', 'app/mystery.py:4'])
  })

  it('follows a module alias receiver to the other definition', () => {
    const result = findReferences(fx.qctx, 'app/config.py:load')
    assert.deepEqual(at(result.references), ['app/config.py:5', 'app/other.py:1', 'app/other.py:4', 'app/service.py:6'])
  })

  it('resolves a method through its receiver', () => {
    const result = findReferences(fx.qctx, 'Cache.get')
    assert.deepEqual(result.references.map((r) => ({ ...r })), [
      { path: 'app/service.py', line: 8, column: 19, context: 'return Cache().get(data)', enclosing: 'run', precision: 'syntactic' },
    ])
  })

  it('pages with a cursor', () => {
    const first = findReferences(fx.qctx, 'app/config.py:load', { limit: 2 })
    assert.deepEqual(at(first.references), ['app/config.py:5', 'app/other.py:1'])
    assert.ok(first.cursor)
    const second = findReferences(fx.qctx, 'app/config.py:load', { limit: 2, cursor: first.cursor })
    assert.deepEqual(at(second.references), ['app/other.py:4', 'app/service.py:6'])
    assert.equal(second.cursor, undefined)
  })

  it('rejects a blank symbol as a usage error, as search rejects a blank query', () => {
    for (const blank of ['', '   ', '\t\n']) assert.throws(() => findReferences(fx.qctx, blank), { name: 'UsageError', message: 'the symbol is empty' })
  })

  it('suggests names for an unknown symbol', () => {
    const result = findReferences(fx.qctx, 'lod')
    assert.deepEqual(result.references, [])
    assert.deepEqual(result.suggestions, ['load'])
  })
})
