/**
 * Text from a repository (file names, snippets, notes, commit messages, transcripts) printed to a
 * terminal must not act on it: an ESC sequence can recolour or hide lines, set the window title or
 * write the clipboard (OSC 52), a bare carriage return can overwrite what came before, a bidi
 * override can reorder a line, and a line break in a file name can forge a line of our own output.
 * These helpers make such characters visible as escapes; ordinary UTF-8 and tabs pass unchanged.
 */

/**
 * C0 controls but tab and line feed, DEL, C1 controls (terminals read U+009B as CSI), and the bidi
 * embedding, override and isolate controls.
 */
const ACTIVE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g
const ACTIVE_OR_NEWLINE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g
const NEEDS_QUOTES = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"\\]/

/** `\r`, `\n`, `\t` by name, anything else as `\xNN` or `\u{NNNN}`. */
function escapeChar(char: string): string {
  if (char === '\n') return '\\n'
  if (char === '\r') return '\\r'
  if (char === '\t') return '\\t'
  const code = char.codePointAt(0)!
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`
}

/** Multi-line text (a snippet, a note): line breaks stay, as does a CR that ends a line (CRLF files). */
export function visibleText(text: string): string {
  return text.replace(ACTIVE, (char, offset: number) => (char === '\r' && text[offset + 1] === '\n' ? char : escapeChar(char)))
}

/** Text that must stay on one line (a heading, a title, a signature): line breaks are escaped too. */
export function visibleLine(text: string): string {
  return text.replace(ACTIVE_OR_NEWLINE, escapeChar)
}

/**
 * A file name as text output shows it: unchanged when it is plain, else C-quoted the way git quotes
 * paths (`"a\nb"`, backslash and double quote escaped too), so that a quoted name is always
 * unambiguous and can never span lines.
 */
export function quotedName(name: string): string {
  if (!NEEDS_QUOTES.test(name)) return name
  return `"${name.replace(/["\\]/g, '\\$&').replace(/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, escapeChar)}"`
}

/**
 * JSON text (as JSON.stringify writes it) with the active characters JSON leaves raw — DEL, C1 and
 * bidi controls — written as \u escapes: the same JSON value, safe to print to a terminal.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(/[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
