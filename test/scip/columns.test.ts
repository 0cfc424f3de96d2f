/**
 * SCIP columns against ours on lines holding non-ASCII text before a name: our rows count UTF-16
 * code units, a SCIP document counts what its position_encoding says.
 */
import { strict as assert } from 'node:assert'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { POSITION_ENCODING, toUtf16Columns } from '../../src/core/scip/columns.js'
import { decodeScip } from '../../src/core/scip/decode.js'
import { vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { scipDocument, scipIndex } from './scip-encode.js'

// `é` is 2 bytes, 1 code unit, 1 code point; `😀` 4 bytes, 2 code units, 1 code point.
const ACCENTS = ['/* é😀 */ export function greet(): string { return "hi" }', '/* é😀 */ export const said = greet()', ''].join('\n')
const [DEF_LINE, USE_LINE] = ACCENTS.split('\n') as [string, string]
const utf16 = (line: string): number => line.indexOf('greet')
const utf8 = (line: string): number => Buffer.byteLength(line.slice(0, line.indexOf('greet')))
const utf32 = (line: string): number => [...line.slice(0, line.indexOf('greet'))].length

describe('SCIP columns (position_encoding)', function () {
  this.timeout(180_000)

  it('converts UTF-8 byte and code point columns to UTF-16 code units, ASCII lines as they are', () => {
    const rows = [0, utf8(DEF_LINE), 0, utf8(DEF_LINE) + 5, 7, 1, 2, 3, 2, 4, 7, 0]
    const text = `${DEF_LINE}\n${USE_LINE}\nplain`
    assert.deepEqual(toUtf16Columns(rows, text, POSITION_ENCODING.utf8), [0, utf16(DEF_LINE), 0, utf16(DEF_LINE) + 5, 7, 1, 2, 3, 2, 4, 7, 0])
    const points = [1, utf32(USE_LINE), 1, utf32(USE_LINE) + 5, 7, 0]
    assert.deepEqual(toUtf16Columns(points, text, POSITION_ENCODING.utf32), [1, utf16(USE_LINE), 1, utf16(USE_LINE) + 5, 7, 0])
  })

  it("reads each document's position_encoding", () => {
    const index = scipIndex('hand', [scipDocument('a.ts', [{ range: [0, 1, 2], symbol: 's' }], {}, POSITION_ENCODING.utf8), scipDocument('b.ts', [{ range: [0, 1, 2], symbol: 's' }])])
    assert.deepEqual(decodeScip(index).documents.map((d) => [d.path, d.encoding]), [['a.ts', 1], ['b.ts', 0]])
  })

  describe('def and refs from an index of a file with non-ASCII text before its names', () => {
    let repo: GitFixture
    before(() => {
      repo = createGitRepo({ files: { 'tsconfig.json': '{"compilerOptions":{"strict":true,"target":"es2020"},"include":["src"]}\n', 'src/accents.ts': ACCENTS } })
      repo.commit('accents')
    })
    after(() => repo.cleanup())

    const answers = (): { def: string[]; refs: string[] } => ({
      def: vltJson(repo.dir, ['coderag', 'def', 'greet']).definitions.map((d: { line: number; precision: string }) => `${d.line}:${d.precision}`),
      refs: vltJson(repo.dir, ['coderag', 'refs', 'greet']).references.map((r: { line: number; column: number; precision: string }) => `${r.line}:${r.column}:${r.precision}`),
    })

    it("agrees with scip-typescript's index (UTF-16 columns, encoding unspecified)", () => {
      const built = join(repo.dir, '..', `${repo.dir.split('/').pop()}-accents.scip`)
      vltJson(repo.dir, ['coderag', 'scip', 'build', '--output', built])
      assert.deepEqual(answers(), { def: ['1:scip'], refs: [`2:${utf16(USE_LINE)}:scip`] })
    })

    it('converts an index counting UTF-8 bytes, and one counting code points', () => {
      for (const [encoding, column] of [[POSITION_ENCODING.utf8, utf8], [POSITION_ENCODING.utf32, utf32]] as const) {
        const file = join(repo.dir, '..', `${repo.dir.split('/').pop()}-hand-${encoding}.scip`)
        const symbol = 'hand npm . . `accents.ts`/greet().'
        writeFileSync(file, scipIndex('hand', [scipDocument('src/accents.ts', [
          { range: [0, column(DEF_LINE), column(DEF_LINE) + 5], symbol, definition: true },
          { range: [1, column(USE_LINE), column(USE_LINE) + 5], symbol },
        ], {}, encoding)]))
        vltJson(repo.dir, ['coderag', 'scip', 'import', file])
        assert.deepEqual(answers(), { def: ['1:scip'], refs: [`2:${utf16(USE_LINE)}:scip`] }, `position_encoding ${encoding}`)
      }
    })
  })
})
