import { readFileSync } from 'node:fs'
import { Query, type Language } from 'web-tree-sitter'
import type { ParsedLanguageId } from '../languages.js'

const QUERY_DIR = new URL('./queries/', import.meta.url)

/** `; inherits: a, b` on a query file's first line prepends those files (shared ECMAScript patterns). */
const INHERITS = /^;+\s*inherits:\s*([\w, -]+)/

function querySource(file: string): string {
  const text = readFileSync(new URL(`${file}.scm`, QUERY_DIR), 'utf8')
  const inherits = INHERITS.exec(text)
  if (!inherits) return text
  const parents = inherits[1]!.split(',').map((name) => name.trim()).filter(Boolean)
  return [...parents.map(querySource), text].join('\n')
}

/**
 * Keyed by the grammar object itself: a query is only valid for the Language it was compiled
 * against, and each worker thread loads its own.
 */
const compiled = new WeakMap<Language, Query>()

/** The tags query for a tree's grammar, compiled on first use in this thread. */
export function tagsQuery(language: Language, id: ParsedLanguageId): Query {
  let query = compiled.get(language)
  if (!query) {
    query = new Query(language, querySource(id))
    compiled.set(language, query)
  }
  return query
}
