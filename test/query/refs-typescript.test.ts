import { strict as assert } from 'node:assert'
import { findReferences, type RefsResult } from '../../src/core/query/refs.js'
import { indexedRepo } from '../helpers/indexed-repo.js'

// Two `zip`s (a creation function and an operator importing it under an alias), a class member
// `zip` in a module everyone imports, an interface and a constant sharing a name, a barrel.
const FILES = {
  'src/observable/zip.ts': ['export function zip(...sources: unknown[]): unknown[] {', '  return sources', '}', ''].join('\n'),
  'src/operators/zip.ts': [
    "import { zip as zipStatic } from '../observable/zip'",
    '',
    '/** Like {@link zipStatic}, as an operator. */',
    'export function zip(...others: unknown[]): unknown[] {',
    '  return zipStatic(...others)',
    '}',
    '',
  ].join('\n'),
  'src/util.ts': ['export class Registry {', '  static zip = 0', '}', ''].join('\n'),
  'src/errors.ts': [
    'export interface EmptyError extends Error {}',
    'export interface EmptyErrorCtor {',
    '  new (): EmptyError',
    '}',
    'export const EmptyError: EmptyErrorCtor = class extends Error {} as any',
    '',
  ].join('\n'),
  'src/app.ts': [
    "import { Registry } from './util'",
    "import { zip } from './observable/zip'",
    "import { EmptyError } from './errors'",
    '',
    '/**',
    ' * Zips with {@link zip}.',
    ' * @throws {EmptyError} when there is nothing to zip',
    ' */',
    'export function run(): unknown {',
    '  if (Registry.zip === 0) throw new EmptyError()',
    '  return zip(1, 2)',
    '}',
    '',
    'export type Zipper = typeof zip',
    'export function fail(error: EmptyError): never {',
    '  throw error',
    '}',
    '',
  ].join('\n'),
  'src/index.ts': ["export { zip } from './observable/zip'", "export { zip as zipWith } from './operators/zip'", "export * from './errors'", ''].join('\n'),
}

describe('refs: TypeScript', function () {
  this.timeout(60_000)
  const fx = indexedRepo(FILES)

  const at = (refs: RefsResult['references'] | undefined): string[] => (refs ?? []).map((r) => `${r.path}:${r.line}`).sort()

  it('resolves each use through the import that binds it: aliases, doc links, typeof, re-exports', () => {
    const result = findReferences(fx.qctx, 'src/observable/zip.ts:zip')
    assert.deepEqual(at(result.references), [
      // the import, a doc link and a call, though app.ts also imports a module with a member `zip`
      'src/app.ts:11', 'src/app.ts:14', 'src/app.ts:2', 'src/app.ts:6',
      'src/index.ts:1',
      // `zipStatic` is this zip under another name; the file's own zip is the operator
      'src/operators/zip.ts:1', 'src/operators/zip.ts:3', 'src/operators/zip.ts:5',
    ])
    assert.equal(result.ambiguous, undefined)
  })

  it("keeps the other definition's re-export under another name apart", () => {
    const result = findReferences(fx.qctx, 'src/operators/zip.ts:zip')
    assert.deepEqual(at(result.references), ['src/index.ts:2'])
  })

  it('finds only type-space uses of an interface that shares its name with a constant', () => {
    const result = findReferences(fx.qctx, 'src/errors.ts:EmptyError')
    assert.deepEqual(result.definitions.map((d) => `${d.path}:${d.line}`), ['src/errors.ts:1'])
    // Not `new EmptyError()` (app.ts:10): that is the constant.
    assert.deepEqual(at(result.references), ['src/app.ts:15', 'src/app.ts:3', 'src/app.ts:7', 'src/errors.ts:3'])
  })
})
