import { analyzeQuery } from '../../search/index.js'
import { bestWindow } from '../../search/window.js'
import type { Chunk } from '../../parse/types.js'

export const SNIPPET_LINES = 5
/** Minified or generated lines would swamp the output. */
const MAX_LINE_CHARS = 240

/**
 * The chunk's most relevant lines: the window of up to SNIPPET_LINES lines matching the most
 * query terms (an identifier's definition line counts most), the chunk's first lines when
 * nothing matches.
 */
export function snippetOf(chunk: Chunk, terms: readonly string[], identifiers: readonly string[]): string {
  const lines = chunk.body.split('\n')
  const wanted = new Set(terms)
  const names = identifiers.map((identifier) => identifier.split(/\.|::/).pop()!)
  const weights = lines.map((line) => {
    let weight = 0
    for (const term of analyzeQuery(line)) if (wanted.has(term)) weight++
    for (const name of names) if (line.includes(name)) weight += 3
    return weight
  })
  return bestWindow(lines, weights, SNIPPET_LINES, MAX_LINE_CHARS + 1, (line) => line.trim() !== '')
}
