import { fileURLToPath } from 'node:url'
import type { LanguageId } from './types.js'

/**
 * Each parsed language's grammar wasm and the package it comes from. The grammar packages are
 * dev dependencies (they also carry native sources and prebuilt binaries for six platforms,
 * ~170 MB, and an install script): `npm run build` copies just their wasm and licence into
 * `grammars/` at the package root (scripts/grammars.ts), which is what ships.
 */
export const GRAMMARS: Record<Exclude<LanguageId, 'text'>, { pkg: string; wasm: string }> = {
  python: { pkg: 'tree-sitter-python', wasm: 'tree-sitter-python.wasm' },
  typescript: { pkg: 'tree-sitter-typescript', wasm: 'tree-sitter-typescript.wasm' },
  tsx: { pkg: 'tree-sitter-typescript', wasm: 'tree-sitter-tsx.wasm' },
  javascript: { pkg: 'tree-sitter-javascript', wasm: 'tree-sitter-javascript.wasm' },
  go: { pkg: 'tree-sitter-go', wasm: 'tree-sitter-go.wasm' },
  rust: { pkg: 'tree-sitter-rust', wasm: 'tree-sitter-rust.wasm' },
  java: { pkg: 'tree-sitter-java', wasm: 'tree-sitter-java.wasm' },
  c: { pkg: 'tree-sitter-c', wasm: 'tree-sitter-c.wasm' },
  cpp: { pkg: 'tree-sitter-cpp', wasm: 'tree-sitter-cpp.wasm' },
  ruby: { pkg: 'tree-sitter-ruby', wasm: 'tree-sitter-ruby.wasm' },
}

export type ParsedLanguageId = keyof typeof GRAMMARS
export const PARSED_LANGUAGES = Object.keys(GRAMMARS) as ParsedLanguageId[]

const EXTENSIONS: Record<string, ParsedLanguageId> = {
  '.py': 'python', '.pyi': 'python',
  '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript', '.jsx': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.c': 'c', '.h': 'c',
  '.cc': 'cpp', '.cpp': 'cpp', '.cxx': 'cpp', '.c++': 'cpp', '.hh': 'cpp', '.hpp': 'cpp', '.hxx': 'cpp', '.h++': 'cpp', '.ipp': 'cpp',
  '.rb': 'ruby', '.rake': 'ruby', '.gemspec': 'ruby',
}

const FILENAMES: Record<string, ParsedLanguageId> = {
  Rakefile: 'ruby', Gemfile: 'ruby',
}

/** The paths languageForPath names a language for, as gitattributes patterns (`*.py`, `Rakefile`). */
export function languagePatterns(): Array<[pattern: string, language: ParsedLanguageId]> {
  return [...Object.entries(EXTENSIONS).map(([extension, language]): [string, ParsedLanguageId] => [`*${extension}`, language]), ...Object.entries(FILENAMES)]
}

/** The parsed language for a repo path, or undefined for anything else (which may still be indexed as text). */
export function languageForPath(path: string): ParsedLanguageId | undefined {
  const base = path.slice(path.lastIndexOf('/') + 1)
  const named = FILENAMES[base]
  if (named) return named
  const dot = base.lastIndexOf('.')
  if (dot <= 0) return undefined
  return EXTENSIONS[base.slice(dot).toLowerCase()]
}

/** `grammars/` at the package root: this file sits three levels down, as src/core/parse or dist/core/parse. */
export const GRAMMAR_DIR = fileURLToPath(new URL('../../../grammars/', import.meta.url))

/** Absolute path of a language's grammar wasm. */
export function grammarWasmPath(language: ParsedLanguageId): string {
  return GRAMMAR_DIR + GRAMMARS[language].wasm
}
