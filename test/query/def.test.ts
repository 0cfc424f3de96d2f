import { strict as assert } from 'node:assert'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import { openQueryContext } from '../../src/core/query/context.js'
import { findDefinitions } from '../../src/core/query/def.js'
import { boundedLevenshtein, suggestNames } from '../../src/core/query/symbols/suggest.js'
import { SymbolTable } from '../../src/core/graph/index.js'
import type { SymbolDef } from '../../src/core/parse/types.js'
import { indexedRepo } from '../helpers/indexed-repo.js'

const warn = (): void => {}

const FILES = {
  'app/models.py': [
    'class User:',
    '    def save(self):',
    '        return 1',
    '',
    'class Order:',
    '    def save(self):',
    '        return 2',
    '',
    'def authenticate_user(name):',
    '    return User()',
    '',
  ].join('\n'),
  'app/views.py': ['from app.models import authenticate_user', '', 'def login(request):', '    return authenticate_user(request)', ''].join('\n'),
  'tests/test_models.py': ['def authenticate_user(name):', '    return None', ''].join('\n'),
  'lib/util.c': ['int helper(int x);', '', 'int helper(int x) {', '  return x + 1;', '}', ''].join('\n'),
  'lib/proto.c': ['int helper(int x);', 'int use(void) { return helper(2); }', ''].join('\n'),
  'app/temp.py': ['class Temp:', '    @property', '    def celsius(self):', '        return self._c', '', '    @celsius.setter', '    def celsius(self, value):', '        self._c = value', ''].join('\n'),
}

describe('def', function () {
  this.timeout(60_000)
  const fx = indexedRepo(FILES)

  const where = (symbol: string): string[] => findDefinitions(fx.qctx, symbol).definitions.map((d) => `${d.path}:${d.line}:${d.qualifiedName}`)

  it('puts code before tests for a bare name', () => {
    assert.deepEqual(where('authenticate_user'), ['app/models.py:9:authenticate_user', 'tests/test_models.py:1:authenticate_user'])
  })

  it('resolves Class.method, module.name and path:name exactly', () => {
    assert.deepEqual(where('Order.save'), ['app/models.py:6:Order.save'])
    assert.deepEqual(where('app.models.User.save'), ['app/models.py:2:User.save'])
    assert.deepEqual(where('models.authenticate_user'), ['app/models.py:9:authenticate_user'])
    assert.deepEqual(where('tests/test_models.py:authenticate_user'), ['tests/test_models.py:1:authenticate_user'])
  })

  it('ranks a qualified match above bare-name matches', () => {
    assert.deepEqual(where('User.save').slice(0, 1), ['app/models.py:2:User.save'])
    assert.deepEqual(where('save'), ['app/models.py:2:User.save', 'app/models.py:6:Order.save'])
  })

  it('lists each definition of a name a file defines twice, in file order', () => {
    assert.deepEqual(where('Temp.celsius'), ['app/temp.py:2:Temp.celsius', 'app/temp.py:6:Temp.celsius'])
  })

  it('ranks a definition above a prototype in another file', () => {
    assert.deepEqual(where('helper'), ['lib/util.c:3:helper', 'lib/proto.c:1:helper'])
  })

  it('returns the full contract shape', () => {
    const result = findDefinitions(fx.qctx, 'Order.save')
    assert.deepEqual(result.definitions, [{ name: 'save', qualifiedName: 'Order.save', kind: 'method', path: 'app/models.py', line: 6, endLine: 7, signature: 'def save(self)', precision: 'syntactic' }])
    assert.equal(result.total, 1)
    assert.equal(result.suggestions, undefined)
    assert.equal(result.freshness.treeHash, fx.repo.git('rev-parse', 'HEAD^{tree}'))
  })

  it('rejects a blank symbol as a usage error, as search rejects a blank query', () => {
    for (const blank of ['', '   ', '\t\n']) assert.throws(() => findDefinitions(fx.qctx, blank), { name: 'UsageError', message: 'the symbol is empty' })
  })

  it('suggests close names for an unknown symbol', () => {
    const result = findDefinitions(fx.qctx, 'authenticate_usr')
    assert.deepEqual(result.definitions, [])
    assert.deepEqual(result.suggestions, ['authenticate_user'])
    assert.deepEqual(findDefinitions(fx.qctx, 'Authenticate').suggestions, ['authenticate_user'])
  })

  it('sees uncommitted edits', async () => {
    fx.repo.write({ 'app/extra.py': 'def fresh_thing():\n    pass\n' })
    const dirty = await openQueryContext(fx.repo.dir, { warn })
    assert.deepEqual(findDefinitions(dirty, 'fresh_thing').definitions.map((d) => d.path), ['app/extra.py'])
  })
})

describe('suggestNames', () => {
  function tableOf(names: string[][]): SymbolTable {
    const table = new SymbolTable()
    names.forEach((defs, f) => {
      const symbols: SymbolDef[] = defs.map((qualifiedName, line) => {
        const name = qualifiedName.slice(qualifiedName.lastIndexOf('.') + 1)
        return { name, qualifiedName, kind: 'function', line: line + 1, endLine: line + 1, column: 0, signature: '', scope: '' }
      })
      table.addFile(`f${f}.py`, { language: 'python', symbols, references: toReferenceColumns([]), imports: [] })
    })
    return table
  }

  /** The suggestions as first specified: every distinct name scored in turn. */
  function reference(table: SymbolTable, query: string, limit = 5): string[] {
    const wanted = query.toLowerCase()
    const budget = Math.max(1, Math.min(3, Math.floor(wanted.length / 4)))
    const names = new Set(table.sortedFiles().flatMap((file) => table.definitions(file.path).flatMap((d) => [d.name, d.qualifiedName])))
    const scored: Array<{ name: string; score: number }> = []
    for (const name of names) {
      if (name.length < wanted.length - budget || (name.length > wanted.length + budget && wanted.length < 3)) continue
      const near = Math.abs(name.length - wanted.length) <= budget
      if (!near && (wanted.length < 3 || name.slice(0, wanted.length).toLowerCase() !== wanted)) continue
      const lower = name.toLowerCase()
      let score: number | null
      if (lower === wanted) score = 0
      else if (lower.startsWith(wanted) && wanted.length >= 3) score = 1 + (name.length - wanted.length) / 1000
      else if (!near) score = null
      else {
        const distance = boundedLevenshtein(lower, wanted, budget)
        score = distance === null ? null : 2 + distance
      }
      if (score !== null) scored.push({ name, score })
    }
    scored.sort((a, b) => a.score - b.score || a.name.length - b.name.length || (a.name < b.name ? -1 : 1))
    return scored.slice(0, limit).map((s) => s.name)
  }

  it('suggests what scoring every name would, from its catalogue of names', () => {
    let seed = 7
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const alphabet = 'aabcdeeiklmnoprstu_0XYZ'
    const word = (): string => Array.from({ length: 2 + random(12) }, () => alphabet[random(alphabet.length)]).join('')
    const files = Array.from({ length: 40 }, () => Array.from({ length: 30 }, () => (random(5) === 0 ? `${word()}.${word()}` : word())))
    files.push(['kmalloc', 'kmalloc_node', 'KMALLOC_MAX', 'kmalloc_array_node_with_a_long_name', 'café', 'Straße', 'ａｂｃ', 'x'])
    const table = tableOf(files)
    const queries = ['kmalloc', 'kmaloc', 'KMalloc', 'km', 'k', 'kmalloc_arr', 'cafe', 'café', 'strasse', 'ab', 'abc', ...files.slice(0, 5).flatMap((names) => names.slice(0, 6).map((name) => name.slice(0, 2 + random(name.length))))]
    let answered = 0
    for (const query of queries) {
      const suggestions = suggestNames(table, query)
      assert.deepEqual(suggestions, reference(table, query), query)
      if (suggestions.length > 0) answered++
    }
    assert.ok(answered > queries.length / 2, `only ${answered} of ${queries.length} queries had suggestions`)
    // A changed table is catalogued afresh.
    table.addFile('late.py', { language: 'python', symbols: [{ name: 'kmalloc_late', qualifiedName: 'kmalloc_late', kind: 'function', line: 1, endLine: 1, column: 0, signature: '', scope: '' }], references: toReferenceColumns([]), imports: [] })
    assert.deepEqual(suggestNames(table, 'kmalloc_lat'), reference(table, 'kmalloc_lat'))
    assert.ok(suggestNames(table, 'kmalloc_lat').includes('kmalloc_late'))
  })
})
