/**
 * Retrieved text quoted inside markdown we write (oracle answers, session logs, MCP answers): it
 * must not be able to end its quotation and continue as our own text (a fake "## Answer"). CommonMark
 * closes a fenced block only with a run of the fence character at least as long as the opening, so
 * the fence is one backtick longer than any run of backticks inside; inline code works the same way.
 */
import { visibleLine, visibleText } from './escape.js'

function longestRun(text: string, char: string): number {
  let longest = 0
  let run = 0
  for (const c of text) {
    run = c === char ? run + 1 : 0
    if (run > longest) longest = run
  }
  return longest
}

/**
 * `text` as a fenced code block, each line prefixed with `indent` (for a list item). The info string
 * (a language name) is reduced to characters that cannot end or extend it. Terminal controls inside
 * are made visible (escape.ts).
 */
export function fencedBlock(text: string, info = '', indent = ''): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1))
  const lines = visibleText(text).split('\n').map((line) => `${indent}${line}`)
  return [`${indent}${fence}${info.replace(/[^\w+.#-]/g, '')}`, ...lines, `${indent}${fence}`].join('\n')
}

/** `text` as inline code on one line: a longer backtick string than any run inside, line breaks escaped. */
export function codeSpan(text: string): string {
  const line = visibleLine(text)
  const ticks = '`'.repeat(longestRun(line, '`') + 1)
  // CommonMark strips one space from each end when both are spaces (and not all of it is): pad then,
  // and when a backtick at an end would join the delimiter.
  const pad = line.startsWith('`') || line.endsWith('`') || (line.startsWith(' ') && line.endsWith(' ') && line.trim() !== '') ? ' ' : ''
  return `${ticks}${pad}${line}${pad}${ticks}`
}
