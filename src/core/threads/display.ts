/**
 * An entry as `thread read` and MCP `thread_read` show it: our heading, then the entry's text.
 * The text is the repository's (anyone can commit a thread), so a line of it shaped like one of
 * our headings — `# title` or `## decision · alice · … [id]` — could pass for another entry or
 * another thread. Such lines are shown with the `#` escaped (`\##`, which markdown renders as the
 * literal text); deeper headings and everything else are left as written.
 */
import type { Entry } from './format.js'

/** `#` or `##` opening a line (up to three spaces of indent, as CommonMark allows). */
const OUR_HEADING = /^( {0,3})(#{1,2})(?=[ \t]|$)/gm

export function entryHeading(entry: Entry): string {
  return `## ${entry.type} · ${entry.author} · ${entry.timestamp}  [${entry.id}]`
}

export function displayEntryText(text: string): string {
  return text.replace(OUR_HEADING, '$1\\$2')
}

export function displayEntry(entry: Entry): string {
  return `${entryHeading(entry)}\n\n${displayEntryText(entry.text)}`
}
