import { findSecrets, replaceSecrets } from './secrets.js'

/** Why a file's bytes are not indexed. */
export type ContentSkip = 'binary' | 'tooLarge' | 'minified' | 'invalidUtf8' | 'secret'

/** `redacted`: credentials were found and replaced in `text`. */
export type ContentClass = { ok: true; text: string; redacted: boolean } | { ok: false; reason: ContentSkip }

/** Git's own heuristic: a NUL byte near the start means binary. */
const BINARY_SNIFF_BYTES = 8 * 1024
/** Line-length limits apply from this size on; short files with a long line are just files. */
const MINIFIED_MIN_BYTES = 2 * 1024
/**
 * Hand-written code stays far below these on average (all of Linux 6.1's .c/.h: longest line
 * 1,377 chars, highest file average 145; Django 3.2's .py: 136 and 61); bundles and data dumps go
 * far above. A single very long line is not enough: a test with one huge expression (sympy's
 * test_complex.py: a 6,833-char line, 61 % of the file in long lines) is still code, whereas a
 * bundle is long lines almost entirely.
 */
const MINIFIED_AVERAGE_LINE = 300
const MINIFIED_LONGEST_LINE = 5_000
const LONG_LINE = 1_000
const MINIFIED_LONG_LINE_SHARE = 0.9
/** A file whose credentials make up this share of its non-blank characters is a credentials file. */
const SECRET_SHARE = 1 / 3

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * Decides whether a file's bytes are indexed and decodes them. The text comes back with any
 * credentials redacted, each replaced by a marker of its own length (see redactSecrets), so no
 * key reaches the index even in an indexed file while every line and column of the rest stays
 * where it is in the file (definitions, references and snippets point at the right place).
 * A private key, or credentials making up a large share of the file, skip the whole file.
 */
export function classifyContent(bytes: Buffer, maxBytes: number): ContentClass {
  if (bytes.length > maxBytes) return { ok: false, reason: 'tooLarge' }
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { ok: false, reason: 'binary' }
  const text = decodeUtf8(bytes)
  if (text === undefined) return { ok: false, reason: 'invalidUtf8' }
  if (bytes.length >= MINIFIED_MIN_BYTES && isMinified(text)) return { ok: false, reason: 'minified' }
  const secrets = findSecrets(text)
  if (secrets.length === 0) return { ok: true, text, redacted: false }
  const length = secrets.reduce((sum, { start, end }) => sum + end - start, 0)
  if (secrets.some(({ kind }) => kind === 'private-key') || length >= nonBlankLength(text) * SECRET_SHARE) return { ok: false, reason: 'secret' }
  return { ok: true, text: replaceSecrets(text, secrets, { keepColumns: true }), redacted: true }
}

/** The bytes as UTF-8 text, a leading byte order mark dropped (as classifyContent decodes them); undefined when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    // ignoreBOM: false makes the decoder drop a leading UTF-8 byte order mark.
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

function isMinified(text: string): boolean {
  let lines = 0
  let longest = 0
  let inLongLines = 0
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    const length = end - start
    if (length > longest) longest = length
    if (length > LONG_LINE) inLongLines += length
    lines++
    start = end + 1
  }
  if (text.length / lines > MINIFIED_AVERAGE_LINE) return true
  return longest > MINIFIED_LONGEST_LINE && inLongLines >= text.length * MINIFIED_LONG_LINE_SHARE
}

function nonBlankLength(text: string): number {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code !== 32 && code !== 10 && code !== 13 && code !== 9) count++
  }
  return count
}
