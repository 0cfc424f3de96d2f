import type { Node } from 'web-tree-sitter'
import type { ParsedLanguageId } from '../languages.js'
import type { ImportRef } from '../types.js'
import { readCInclude } from './imports/c.js'
import { readEcmaImport } from './imports/ecma.js'
import { readGoImport } from './imports/go.js'
import { readJavaImport } from './imports/java.js'
import { readPythonImport } from './imports/python.js'
import { readRubyRequire } from './imports/ruby.js'
import { readRustUse } from './imports/rust.js'

/**
 * Reads one `@import` capture (a whole import statement) into ImportRefs. `importedName` is
 * called for each name node the statement binds, so that the statement also counts as a
 * reference of kind 'import' to what it imports.
 */
export type ImportReader = (node: Node, source: string, imports: ImportRef[], importedName: (node: Node) => void) => void

export const IMPORT_READERS: Record<ParsedLanguageId, ImportReader> = {
  python: readPythonImport,
  javascript: readEcmaImport,
  typescript: readEcmaImport,
  tsx: readEcmaImport,
  ruby: readRubyRequire,
  go: readGoImport,
  rust: readRustUse,
  java: readJavaImport,
  c: readCInclude,
  cpp: readCInclude,
}
