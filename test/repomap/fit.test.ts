import { strict as assert } from 'node:assert'
import { fitToBudget } from '../../src/core/repomap/fit.js'
import { renderMap, type MapLine, type Placed } from '../../src/core/repomap/render.js'
import { countTokens } from '../../src/core/repomap/tokens.js'

const line = (path: string, name: string, lineNo: number, depth: number, text: string): MapLine => ({ key: `${path}#${name}`, line: lineNo, depth, text })
const placed = (path: string, name: string, lineNo: number, text: string, ancestors: MapLine[] = []): Placed => ({
  ...line(path, name, lineNo, ancestors.length, text),
  path,
  ancestors,
})

describe('repo map rendering and fitting', () => {
  const cls = line('a.py', 'A', 1, 0, 'class A')
  const ranked = [
    placed('a.py', 'A.run', 5, 'def run(self)', [cls]),
    placed('b.py', 'helper', 1, 'def helper(x)'),
    placed('a.py', 'A', 1, 'class A'),
    placed('a.py', 'setup', 20, 'def setup()'),
  ]

  it('groups by file in rank order, lines in source order, with enclosing definitions as context', () => {
    const rendered = renderMap(ranked)
    assert.equal(rendered.text, 'a.py:\n  class A\n    def run(self)\n  def setup()\nb.py:\n  def helper(x)')
    assert.deepEqual([rendered.files, rendered.symbols], [2, 4])
  })

  it('finds the longest prefix that fits, then tops up with later entries that still fit', () => {
    // 'a.py:\n  class A\n    def run(self)' is 35 chars = 9 tokens; helper's file and line make 57 = 15.
    const long = placed('c.py', 'very_long', 1, `def ${'x'.repeat(60)}()`)
    const fitted = fitToBudget([ranked[0]!, long, ranked[3]!], 12)
    assert.equal(fitted.text, 'a.py:\n  class A\n    def run(self)\n  def setup()')
    assert.equal(fitted.tokens, countTokens(fitted.text))
    assert.equal(fitted.tokens, 12)
  })

  it('fits nothing when the first entry alone is over budget', () => {
    assert.deepEqual(fitToBudget(ranked, 2), { text: '', files: 0, symbols: 0, tokens: 0 })
  })

  it('is never over budget by its own count', () => {
    const many = Array.from({ length: 200 }, (_, i) => placed(`dir${i % 7}/file${i % 13}.py`, `f${i}`, i + 1, `def f${i}(${'a, '.repeat(i % 9)}b)`))
    for (let budget = 1; budget <= 600; budget += 7) {
      const fitted = fitToBudget(many, budget)
      assert.ok(fitted.tokens <= budget, `budget ${budget}`)
      assert.equal(fitted.tokens, countTokens(fitted.text))
    }
  })
})
