import { strict as assert } from 'node:assert'
import type { Diagnostic } from '../../src/core/lsp/index.js'
import { fitDiagnostics } from '../../src/core/mcp/oracle-tool.js'
import { countTokens } from '../../src/core/repomap/index.js'

const diagnostic = (line: number): Diagnostic => ({ path: 'src/many.ts', line, column: 4, severity: 'error', message: `Type 'string' is not assignable to type 'number'.\nmore detail ${line}`, source: 'typescript' })

describe("ask_oracle's diagnostics under the output cap", () => {
  it('lists them under the answer as compilers print them, all when they fit', () => {
    const fitted = fitDiagnostics([diagnostic(10), diagnostic(12)], 20_000)
    assert.equal(fitted.cut, 0)
    assert.equal(fitted.kept.length, 2)
    assert.deepEqual(fitted.lines, [
      '',
      'Diagnostics of the cited files:',
      "src/many.ts:10:5: error: Type 'string' is not assignable to type 'number'. (typescript)",
      "src/many.ts:12:5: error: Type 'string' is not assignable to type 'number'. (typescript)",
    ])
    assert.deepEqual(fitDiagnostics([], 20_000), { kept: [], lines: [], cut: 0 })
  })

  it('keeps to a quarter of the cap when a file has hundreds, and says how many were cut', () => {
    const many = Array.from({ length: 500 }, (_, i) => diagnostic(i + 1))
    const fitted = fitDiagnostics(many, 4_000)
    assert.ok(fitted.kept.length > 0 && fitted.kept.length < 500, String(fitted.kept.length))
    assert.equal(fitted.cut, 500 - fitted.kept.length)
    assert.deepEqual(fitted.kept, many.slice(0, fitted.kept.length))
    assert.ok(countTokens(JSON.stringify(fitted.kept)) <= 1_000 + 100, String(countTokens(JSON.stringify(fitted.kept))))
    assert.equal(fitted.lines.length, fitted.kept.length + 2)
  })
})
