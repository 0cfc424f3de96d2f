/** What the per-language tags tests share: parsing a fixture and flattening the tags for exact assertions. */
import { Parser } from 'web-tree-sitter'
import { loadLanguage } from '../../src/core/parse/grammars.js'
import type { ParsedLanguageId } from '../../src/core/parse/languages.js'
import { extractTags, type Tags } from '../../src/core/parse/tags/index.js'

export type { Tags }

export async function tagsOf(language: ParsedLanguageId, source: string): Promise<Tags> {
  const grammar = await loadLanguage(language)
  const parser = new Parser()
  parser.setLanguage(grammar)
  try {
    return extractTags(parser.parse(source)!, language, source)
  } finally {
    parser.delete()
  }
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
