/** What the per-language tags tests share: parsing a fixture and flattening the tags for exact assertions. */
import { Parser, type Language, type Tree } from 'web-tree-sitter'
import { parserInput } from '../../src/core/parse/extract.js'
import { loadLanguage } from '../../src/core/parse/grammars.js'
import type { ParsedLanguageId } from '../../src/core/parse/languages.js'
import { extractTags, type Tags } from '../../src/core/parse/tags/index.js'

export type { Tags }

/** Parses `source`, hands the tree to `use`, then frees the tree and parser (wasm memory is never collected). */
export async function withTree<T>(language: ParsedLanguageId, source: string, use: (tree: Tree, grammar: Language) => T): Promise<T> {
  const grammar = await loadLanguage(language)
  const parser = new Parser()
  parser.setLanguage(grammar)
  const tree = parser.parse(parserInput(source, language))!
  try {
    return use(tree, grammar)
  } finally {
    tree.delete()
    parser.delete()
  }
}

export function tagsOf(language: ParsedLanguageId, source: string): Promise<Tags> {
  return withTree(language, source, (tree) => extractTags(tree, language, source))
}

/** Definitions as [name, qualifiedName, kind, line, endLine, scope]. */
export function definitions(tags: Tags): Array<[string, string, string, number, number, string]> {
  return tags.symbols.map((s) => [s.name, s.qualifiedName, s.kind, s.line, s.endLine, s.scope])
}

/** References made inside one definition, as [name, line, kind, receiver]. */
export function referencesIn(tags: Tags, enclosing: string): Array<[string, number, string, string | undefined]> {
  return tags.references.filter((r) => r.enclosing === enclosing).map((r) => [r.name, r.line, r.kind, r.receiver])
}

export function signatureOf(tags: Tags, qualifiedName: string): string | undefined {
  return tags.symbols.find((s) => s.qualifiedName === qualifiedName)?.signature
}
