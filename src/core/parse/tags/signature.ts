const MAX_SIGNATURE = 200
/** Enough raw text to fill a collapsed signature even when it is indented heavily. */
const MAX_RAW = 1000
/** What can sit between a header and its body: Python's `:`, a brace, an initializer's `=`. */
const TRAILING_PUNCTUATION = /\s*[:{=]$/

/** A definition's header: its text up to the body, whitespace-collapsed and capped. */
export function signatureText(source: string, start: number, end: number): string {
  const raw = source.slice(start, Math.min(end, start + MAX_RAW))
  const collapsed = raw.replace(/\s+/g, ' ').trim().replace(TRAILING_PUNCTUATION, '')
  return collapsed.length > MAX_SIGNATURE ? collapsed.slice(0, MAX_SIGNATURE) : collapsed
}
