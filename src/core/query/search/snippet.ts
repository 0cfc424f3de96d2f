import { analyzeQuery } from '../../search/index.js'
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
  let best = 0
  let bestWeight = -1
  for (let start = 0; start < lines.length; start++) {
    if (lines[start]!.trim() === '') continue
    let weight = 0
    for (let i = start; i < Math.min(lines.length, start + SNIPPET_LINES); i++) weight += weights[i]!
    if (weight > bestWeight) {
      best = start
      bestWeight = weight
    }
  }
  const window = lines.slice(best, best + SNIPPET_LINES)
  while (window.length > 0 && window[window.length - 1]!.trim() === '') window.pop()
  return window.map((line) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line.trimEnd())).join('\n')
}
