/**
 * The thread file: markdown meant to be read, diffed and merged by people and by git.
 *
 *   # Auth redesign
 *
 *   Moving sessions to JWT.
 *
 *   <!-- vlt:thread created=2024-05-01T10:00:00.000Z -->
 *
 *   ### decision · claude · 2024-05-01T10:02:11.000Z <!-- vlt:entry 0lvn3k2a8-5f0c1e9a -->
 *   We keep refresh tokens server-side.
 *
 *   <!-- vlt:end 0lvn3k2a8-5f0c1e9a 3b1f09ac -->
 *
 * Merging: `.vlt/threads/.gitattributes` sets `merge=union`, so when two branches append entries
 * git keeps both sides' lines instead of conflicting. Union output is not a clean concatenation:
 * git first trims the lines both sides' additions share at their start and end (a blank line, a
 * closing code fence) and emits them once. Each entry therefore begins and ends with a line no
 * other entry has (its heading and end marker both carry its id), so that trimming can only ever
 * touch the blank separator lines between entries, which the parser ignores. Git also factors out
 * runs of four or more identical lines shared by the two sides (a closing fence, a blank line and
 * a common sentence suffice), splicing bodies together. A splice always leaves an entry whose
 * heading is followed by another heading or end marker before its own end marker; such entries
 * are recovered from the commit that added them (see recover.ts), verified by the end marker's
 * hash, and the next push rewrites the file cleanly. Entries are sorted by id on read, so the
 * order in which the merge left the blocks does not matter.
 */
import { createHash } from 'node:crypto'
import { UsageError } from '../errors.js'

export const ENTRY_TYPES = ['thought', 'decision', 'research', 'insight'] as const
export type EntryType = (typeof ENTRY_TYPES)[number]

/** Authors with a role of their own; anything else must look like a git user name or e-mail. */
export const KNOWN_AUTHORS = ['user', 'claude', 'oracle', 'librarian'] as const

export interface Entry {
  /** Time-sortable and unique: see newEntryId. */
  id: string
  /** ISO 8601, UTC. */
  timestamp: string
  author: string
  type: EntryType
  /** Markdown body, without leading or trailing blank lines. */
  text: string
}

export interface ThreadHeader {
  title: string
  /** ISO 8601, UTC. */
  created: string
  /** '' when none was given. */
  description: string
}

export interface ParsedThread extends ThreadHeader {
  /** Sorted by id (= creation time), whatever order merges left the blocks in. */
  entries: Entry[]
  /** Text outside entries, and entries damaged beyond recovery. */
  problems: string[]
}

const NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/

export function isThreadName(name: string): boolean {
  return NAME.test(name)
}

/** The oracle's daily threads are `oracle-session-YYYY-MM-DD` (src/core/oracle/session-log.ts). */
export const ORACLE_SESSION_PREFIX = 'oracle-session-'

/** One of the oracle's session threads: long logs of questions and answers, read through their summary first. */
export function isOracleSessionThread(name: string): boolean {
  return /^oracle-session-\d{4}-\d{2}-\d{2}$/.test(name)
}

/** A thread name is a lowercase slug: it becomes a file name and must never leave the folder. */
export function validateThreadName(name: string): string {
  if (!isThreadName(name)) {
    throw new UsageError(
      `invalid thread name ${JSON.stringify(name)}: use lowercase letters, digits and dashes (at most 64, no leading or trailing dash), e.g. auth-redesign`,
    )
  }
  return name
}

export function validateEntryType(type: string): EntryType {
  if (!(ENTRY_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(`invalid entry type ${JSON.stringify(type)}: expected one of ${ENTRY_TYPES.join(', ')}`)
  }
  return type as EntryType
}

/** The heading line holds the author between ` · ` separators, so those and line breaks are out. */
export function validateAuthor(author: string): string {
  const trimmed = author.trim()
  if (trimmed === '' || trimmed.length > 100 || /[\r\n·<>]/.test(trimmed)) {
    throw new UsageError(
      `invalid author ${JSON.stringify(author)}: use ${KNOWN_AUTHORS.join(', ')} or a git user name or e-mail (one line, at most 100 characters)`,
    )
  }
  return trimmed
}

const ENTRY_HEADING = /^### (thought|decision|research|insight) · (.+) · (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) <!-- vlt:entry ([0-9a-z]{9}-[0-9a-f]{8}) -->$/
const ENTRY_END = /^<!-- vlt:end ([0-9a-z]{9}-[0-9a-f]{8}) ([0-9a-f]{8}) -->$/
const THREAD_META = /^<!-- vlt:thread created=(\S+) -->$/
/** Anything shaped like our markers, even slightly off, is refused in entry bodies. */
const MARKER_LIKE = /^(?:### .*)?<!-- vlt:/

/** Trims blank lines around the text and trailing spaces on each line, which diffs would show as noise. */
export function normalizeText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n').map((line) => line.replace(/[ \t]+$/, ''))
  let start = 0
  let end = lines.length
  while (start < end && lines[start] === '') start++
  while (end > start && lines[end - 1] === '') end--
  return lines.slice(start, end).join('\n')
}

export function validateEntryText(text: string): string {
  const normalized = normalizeText(text)
  if (normalized === '') throw new UsageError('the entry text is empty')
  const marker = normalized.split('\n').find((line) => MARKER_LIKE.test(line))
  if (marker !== undefined) throw new UsageError(`the entry text contains a line reserved for thread markers: ${JSON.stringify(marker)}`)
  return normalized
}

/** The description sits in the header, where a marker-shaped line would be read as an entry. */
export function validateDescription(description: string): string {
  const normalized = normalizeText(description)
  if (normalized.split('\n').some((line) => MARKER_LIKE.test(line) || line.startsWith('# '))) {
    throw new UsageError('the thread description must not contain "# " headings or lines reserved for thread markers')
  }
  return normalized
}

function bodyHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8)
}

export function renderHeader(header: ThreadHeader): string {
  const description = header.description === '' ? '' : `${header.description}\n\n`
  return `# ${header.title}\n\n${description}<!-- vlt:thread created=${header.created} -->\n`
}

/** One self-delimiting block, preceded by the blank line that separates it from what comes before. */
export function renderEntry(entry: Entry): string {
  return (
    `\n### ${entry.type} · ${entry.author} · ${entry.timestamp} <!-- vlt:entry ${entry.id} -->\n` +
    `${entry.text}\n\n` +
    `<!-- vlt:end ${entry.id} ${bodyHash(entry.text)} -->\n`
  )
}

export interface BrokenEntry {
  id: string
  /** From the entry's end marker, wherever it ended up; undefined if it is gone. */
  hash?: string
}

export function parseThread(source: string, file: string): ParsedThread & { broken: BrokenEntry[] } {
  const lines = source.replace(/\r\n?/g, '\n').split('\n')
  let i = 0
  while (i < lines.length && lines[i].trim() === '') i++
  const titleLine = lines[i] ?? ''
  if (!titleLine.startsWith('# ')) throw new UsageError(`${file}: not a thread file (its first line should be "# <title>")`)
  const title = titleLine.slice(2).trim()
  i++
  let created = ''
  const description: string[] = []
  for (; i < lines.length && !ENTRY_HEADING.test(lines[i]); i++) {
    const meta = THREAD_META.exec(lines[i])
    if (meta) created = meta[1]
    else description.push(lines[i])
  }
  // A splice can move an end marker away from its entry; its hash still verifies a recovered text.
  const endHashes = new Map<string, string>()
  for (let k = i; k < lines.length; k++) {
    const end = ENTRY_END.exec(lines[k])
    if (end) endHashes.set(end[1], end[2])
  }
  const entries: Entry[] = []
  const broken: BrokenEntry[] = []
  const problems: string[] = []
  const seen = new Set<string>()
  while (i < lines.length) {
    const heading = ENTRY_HEADING.exec(lines[i])
    if (!heading) {
      if (lines[i].trim() !== '' && !ENTRY_END.test(lines[i])) problems.push(`${file}:${i + 1}: text outside any entry ignored: ${JSON.stringify(lines[i].slice(0, 80))}`)
      i++
      continue
    }
    const [, type, author, timestamp, id] = heading
    const start = ++i
    while (i < lines.length && !ENTRY_HEADING.test(lines[i]) && !ENTRY_END.test(lines[i])) i++
    // Sound: the body runs to the entry's own end marker. Hand edits keep that shape; splices never do.
    const sound = i < lines.length && ENTRY_END.exec(lines[i])?.[1] === id
    const text = normalizeText(lines.slice(start, i).join('\n'))
    if (sound) i++
    // The same entry on both sides of a merge (a cherry-pick) is one entry.
    if (seen.has(id)) continue
    seen.add(id)
    if (!sound) broken.push({ id, hash: endHashes.get(id) })
    entries.push({ id, timestamp, author, type: type as EntryType, text })
  }
  entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return { title, created, description: normalizeText(description.join('\n')), entries, problems, broken }
}

/** Whether `text` is the body an end marker's hash was computed from. */
export function matchesHash(text: string, hash: string): boolean {
  return bodyHash(text) === hash
}
