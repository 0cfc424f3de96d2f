/**
 * Python references resolved as pyright resolves them (issue 19), on small repositories shaped
 * like the real cases: flask's helpers re-exported by a src-layout package, click's annotated
 * `ctx: Context` parameters, `sys.exit` beside `Context.exit`, module attribute chains, typed
 * and inherited attributes.
 */
import { strict as assert } from 'node:assert'
import { findReferences, type RefsResult } from '../../src/core/query/refs.js'
import { indexedRepo } from '../helpers/indexed-repo.js'

const lines = (...text: string[]): string => `${text.join('\n')}\n`
const at = (refs: RefsResult['references'] | undefined): string[] => (refs ?? []).map((r) => `${r.path}:${r.line}`).sort()

describe('refs (Python)', function () {
  this.timeout(60_000)

  describe('a src-layout package re-exporting its helpers', () => {
    const fx = indexedRepo({
      'pyproject.toml': lines('[project]', 'name = "flask"'),
      'src/flask/__init__.py': lines('from .app import Flask as Flask', 'from .helpers import url_for as url_for'),
      'src/flask/helpers.py': lines('def url_for(endpoint):', '    return endpoint'),
      'src/flask/app.py': lines('class Flask:', '    def url_for(self, endpoint):', '        return endpoint', '', '', 'class Blueprint:', '    def url_for(self, endpoint):', '        return endpoint'),
      'src/flask/views.py': lines('def render(flask):', '    return flask.url_for("x")'),
      // A module named like the package deep in the tests (flask's own cli test app has one).
      'tests/test_apps/cliapp/inner1/inner2/flask.py': lines('app = None'),
      'tests/test_helpers.py': lines(
        'import flask',
        'from flask import url_for',
        '',
        '',
        'def test_url(app):',
        '    url_for("index")',
        '    flask.url_for("index")',
        '    app.url_for("index")',
      ),
    })

    it('finds the uses of a helper imported from the package and called through it', () => {
      const result = findReferences(fx.qctx, 'src/flask/helpers.py:url_for')
      assert.deepEqual(at(result.references), ['src/flask/__init__.py:2', 'tests/test_helpers.py:2', 'tests/test_helpers.py:6', 'tests/test_helpers.py:7'])
      assert.deepEqual(at(result.ambiguous), [])
    })

    it('never takes the module flask for the class Flask', () => {
      const result = findReferences(fx.qctx, 'Flask.url_for')
      assert.ok(!at(result.references).includes('tests/test_helpers.py:7'), at(result.references).join(' '))
      assert.ok(!at(result.ambiguous).includes('tests/test_helpers.py:7'))
      // A parameter named flask is of no known class: Flask's or Blueprint's, undecided.
      assert.ok(!at(result.references).includes('src/flask/views.py:2'))
      assert.ok(at(result.ambiguous).includes('src/flask/views.py:2'))
    })
  })
})
