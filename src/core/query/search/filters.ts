import { UsageError } from '../../errors.js'
import { compileGlobList, globProblem } from '../../files/globs.js'
import type { Chunk } from '../../parse/types.js'
import type { QueryContext } from '../context.js'
import type { SearchOptions } from './types.js'

/** Directories and file names that hold tests in the ecosystems we parse. */
const TEST_PATH = new RegExp(
  [
    '(^|/)(tests?|__tests__|spec|specs|testing|testdata|test_utils)/',
    '(^|/)test_[^/]*$',
    '_test\\.[a-z]+$',
    '_tests\\.[a-z]+$',
    '\\.(test|spec)\\.[a-z]+$',
    '(^|/)[A-Z]\\w*Tests?\\.java$',
    '(^|/)conftest\\.py$',
  ].join('|'),
)

export function isTestPath(path: string): boolean {
  return TEST_PATH.test(path)
}

export interface SearchFilters {
  /** Whether a file may appear at all (language, path glob, test policy). */
  file(path: string): boolean
  /** Whether a chunk of an admitted file may appear (kind). */
  chunk(chunk: Chunk): boolean
}

/** Throws UsageError for a glob that cannot be compiled. */
export function compileFilters(qctx: QueryContext, options: SearchOptions): SearchFilters {
  let glob: ((path: string) => boolean) | undefined
  if (options.path !== undefined) {
    const problem = globProblem(options.path)
    if (problem) throw new UsageError(`--path ${JSON.stringify(options.path)}: ${problem}`)
    glob = compileGlobList([options.path])
  }
  const { language, noTests, kind } = options
  return {
    file(path) {
      if (language !== undefined && qctx.files.get(path)?.language !== language) return false
      if (glob && !glob(path)) return false
      return !(noTests && isTestPath(path))
    },
    chunk: (chunk) => kind === undefined || chunk.kind === kind,
  }
}
