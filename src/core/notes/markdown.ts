/**
 * One pass over a markdown note: front matter, headings (ATX and setext), code fences, links and
 * inline tags, then heading-aware sections. Everything here depends on the note's text alone, so
 * the result is stored per content hash and reused wherever the same text appears (renames, other
 * branches, a vault shared by two repositories).
 */
import { parseFrontMatter, stringList, type FrontMatterValue } from './front-matter.js'
import { linkSites, scanLinks, type RawLink } from './links.js'

export interface Heading {
  level: number
  text: string
  /** 1-based line of the heading text (the text line of a setext heading). */
  line: number
}

/** A chunk of a note: one heading's section, or part of it when the section is long. */
export interface Section {
  /** Heading path, "Title > Section > Subsection"; the note's title for text before any heading. */
  heading: string
  /** The innermost heading's text. */
  name: string
  /** 1-based, inclusive, trailing blank lines left out. */
  startLine: number
  endLine: number
}

export interface ParsedNote {
  /** Front-matter title, else the first level-1 heading; null when neither exists (callers fall back to the file name). */
  title: string | null
  frontMatter: Record<string, FrontMatterValue>
  /** Front-matter tags then inline #tags, without '#', in order of appearance, each once. */
  tags: string[]
  aliases: string[]
  headings: Heading[]
  sections: Section[]
  links: RawLink[]
  /** Front matter this parser could not read. */
  problems: string[]
}

/**
 * Sections longer than this are cut at paragraph boundaries: long enough to keep a section's
 * argument together, short enough for an embedding model and a reader's context budget.
 */
export const MAX_SECTION_CHARS = 2000

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/
/** Obsidian-style tags: a letter or '_' first, so issue numbers (#123) and anchors are not tags. */
const INLINE_TAG = /(?:^|[\s(])#([\p{L}_][\p{L}\p{N}_/-]*)/gu
/** Inline code can hold anything that looks like a link or a tag. */
const CODE_SPAN = /(`+)[^`]+?\1/g

export function parseNote(text: string): ParsedNote {
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) if (lines[i]!.endsWith('\r')) lines[i] = lines[i]!.slice(0, -1)
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
  const front = parseFrontMatter(lines)
  const tags = new Set(stringList(front.data.tags ?? front.data.tag, true).map(stripHash))
  const aliases = stringList(front.data.aliases ?? front.data.alias, false)

  const headings: Heading[] = []
  const links: RawLink[] = []
  /** 1 where the boundary after the line (0-based) is inside a code fence: opening and inner lines. */
  const fenced = new Uint8Array(lines.length)
  let fence = ''
  let paragraph = false
  for (let i = front.endLine; i < lines.length; i++) {
    const line = lines[i]!
    if (fence) {
      if (closesFence(line, fence)) fence = ''
      else fenced[i] = 1
      continue
    }
    fence = opensFence(line)
    if (fence) {
      fenced[i] = 1
      paragraph = false
      continue
    }
    const atx = ATX.exec(line)
    if (atx) {
      headings.push({ level: atx[1]!.length, text: cleanHeading(atx[2] ?? ''), line: i + 1 })
      paragraph = false
      scanLine(line, i + 1, links, tags)
      continue
    }
    const setext = paragraph ? SETEXT.exec(line) : null
    if (setext) {
      headings.push({ level: setext[1]![0] === '=' ? 1 : 2, text: cleanHeading(lines[i - 1]!.trim()), line: i })
      paragraph = false
      continue
    }
    const blank = line.trim() === ''
    // Only a plain paragraph line can become a setext heading's text.
    paragraph = !blank && !/^ {0,3}(?:[-*+>|]|\d+[.)])\s/.test(line) && !line.startsWith('    ')
    if (!blank) scanLine(line, i + 1, links, tags)
  }

  const h1 = headings.find((heading) => heading.level === 1)
  const fmTitle = front.data.title
  const title = typeof fmTitle === 'string' && fmTitle.trim() !== '' ? fmTitle.trim() : typeof fmTitle === 'number' ? String(fmTitle) : h1?.text ?? null
  return {
    title,
    frontMatter: front.data,
    tags: [...tags],
    aliases,
    headings,
    sections: buildSections(lines, front.endLine, headings, fenced, title),
    links,
    problems: front.problems,
  }
}

/**
 * The note with link targets replaced: `replace` gets each link outside front matter, code fences
 * and code spans (as parseNote reads them) with its target as written (`raw`), and returns the new
 * target as written, or undefined to keep it. Every other byte stays as it was.
 */
export function rewriteNoteLinks(text: string, replace: (link: RawLink, raw: string) => string | undefined): { text: string; rewritten: number } {
  const lines = text.split('\n')
  const front = parseFrontMatter(lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line)))
  let fence = ''
  let rewritten = 0
  for (let i = front.endLine; i < lines.length; i++) {
    const line = lines[i]!
    if (fence) {
      if (closesFence(line, fence)) fence = ''
      continue
    }
    fence = opensFence(line)
    if (fence || !line.includes('[')) continue
    const blanked = blankCodeSpans(line)
    let out = ''
    let from = 0
    for (const site of linkSites(blanked, i + 1)) {
      const target = replace(site.link, line.slice(site.start, site.end))
      if (target === undefined) continue
      out += line.slice(from, site.start) + target
      from = site.end
      rewritten++
    }
    if (from > 0) lines[i] = out + line.slice(from)
  }
  return { text: lines.join('\n'), rewritten }
}

/** The fence a line opens (its backticks or tildes), or '' when it opens none. */
function opensFence(line: string): string {
  const open = FENCE.exec(line)
  return open && !(open[1]![0] === '`' && open[2]!.includes('`')) ? open[1]! : ''
}

/** Whether `line` closes the fence `fence` opened. */
function closesFence(line: string, fence: string): boolean {
  const close = FENCE.exec(line)
  return close !== null && close[1]![0] === fence[0] && close[1]!.length >= fence.length && close[2]!.trim() === ''
}

/** The line with its code spans blanked (same length, so columns hold). */
function blankCodeSpans(line: string): string {
  return line.includes('`') ? line.replace(CODE_SPAN, (span) => ' '.repeat(span.length)) : line
}

function scanLine(line: string, lineNumber: number, links: RawLink[], tags: Set<string>): void {
  const text = blankCodeSpans(line)
  if (text.includes('[')) scanLinks(text, lineNumber, links)
  if (text.includes('#')) for (const match of text.matchAll(INLINE_TAG)) tags.add(match[1]!)
}

function stripHash(tag: string): string {
  return tag.startsWith('#') ? tag.slice(1) : tag
}

/** Drops an ATX closing sequence and inline markup that is not part of the words. */
function cleanHeading(text: string): string {
  return text
    .replace(/(?:^|[ \t]+)#+[ \t]*$/, '')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[\[(?:[^\]|]*\|)?([^\]]*)\]\]/g, '$1')
    .trim()
}

/**
 * Sections from the heading list: the text before the first heading (when not blank), then one
 * per heading up to the next heading at any level. The path holds the enclosing headings; when
 * the outermost is not a level-1 heading the title leads it, so every path starts at the note.
 */
function buildSections(lines: string[], bodyStart: number, headings: Heading[], fenced: Uint8Array, title: string | null): Section[] {
  const sections: Section[] = []
  const root = title ?? ''
  const firstHeading = headings.length > 0 ? headings[0]!.line - 1 : lines.length
  pushBounded(sections, lines, fenced, root, root, bodyStart + 1, firstHeading)
  const stack: Heading[] = []
  for (let k = 0; k < headings.length; k++) {
    const heading = headings[k]!
    while (stack.length > 0 && stack[stack.length - 1]!.level >= heading.level) stack.pop()
    stack.push(heading)
    const names = stack.map((h) => h.text)
    if (stack[0]!.level !== 1 && root !== '' && names[0] !== root) names.unshift(root)
    const end = k + 1 < headings.length ? headings[k + 1]!.line - 1 : lines.length
    pushBounded(sections, lines, fenced, names.join(' > '), heading.text, heading.line, end)
  }
  return sections
}

/**
 * Adds lines [start, end] (1-based, inclusive) as one section or, past MAX_SECTION_CHARS, as
 * several: cut after a blank line when possible, else at any line end, never inside a code fence
 * (a fence longer than the limit stays whole).
 */
function pushBounded(sections: Section[], lines: string[], fenced: Uint8Array, heading: string, name: string, start: number, end: number): void {
  /** Adds [from, to] without its leading and trailing blank lines. */
  const push = (from: number, to: number): void => {
    while (from <= to && lines[from - 1]!.trim() === '') from++
    while (to >= from && lines[to - 1]!.trim() === '') to--
    if (from <= to) sections.push({ heading, name, startLine: from, endLine: to })
  }
  let pieceStart = start
  let size = 0
  let blankCut = 0
  let lineCut = 0
  for (let line = start; line <= end; line++) {
    const length = lines[line - 1]!.length + 1
    if (size + length > MAX_SECTION_CHARS && line > pieceStart) {
      const cut = blankCut > pieceStart ? blankCut : lineCut > pieceStart ? lineCut : 0
      if (cut > 0) {
        push(pieceStart, cut - 1)
        pieceStart = cut
        size = 0
        for (let k = pieceStart; k < line; k++) size += lines[k - 1]!.length + 1
        blankCut = 0
        lineCut = 0
      }
    }
    size += length
    // A cut after this line starts the next piece on the following one.
    if (!fenced[line - 1]) {
      lineCut = line + 1
      if (lines[line - 1]!.trim() === '') blankCut = line + 1
    }
  }
  push(pieceStart, end)
}
