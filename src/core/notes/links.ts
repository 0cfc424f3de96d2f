/**
 * Links between notes: wikilinks (`[[Note]]`, `[[Note|alias]]`, `[[Note#Heading]]`, `![[embed]]`),
 * markdown links (`[text](path.md#anchor)`, `[text](<a b.md>)`) and reference definitions
 * (`[id]: path.md`). Scanning depends on the text alone; resolution to note paths needs the whole
 * set of notes, so it runs per index build over the stored raw links.
 */
import { posix } from 'node:path'

export interface RawLink {
  kind: 'wiki' | 'markdown'
  /** The target as written, without the anchor; '' for a link to a heading of the same note. */
  target: string
  /** Heading or block after '#', '' when none. */
  anchor: string
  /** The alias of a wikilink or the text of a markdown link. */
  text: string
  /** 1-based. */
  line: number
}

const WIKILINK = /!?\[\[([^[\]|#\n]*)(?:#([^[\]|\n]*))?(?:\|([^[\]\n]*))?\]\]/dg
const MARKDOWN_LINK = /!?\[((?:[^[\]]|\[[^[\]]*\])*)\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/dg
const REFERENCE = /^ {0,3}\[([^\]]+)\]:\s*(<[^>]*>|\S+)/d
/** `http:`, `mailto:`, `obsidian:` …, but not a Windows drive letter. */
const SCHEME = /^[a-z][a-z0-9+.-]+:/i

/** A link and where its target is written in the line: a wikilink's name, a markdown link's destination as written. */
export interface LinkSite {
  link: RawLink
  /** [start, end) of the target as written (`<…>`, anchor and query included for a markdown link). */
  start: number
  end: number
}

/** Appends the links of one line (code spans already blanked out). */
export function scanLinks(text: string, line: number, links: RawLink[]): void {
  for (const site of linkSites(text, line)) links.push(site.link)
}

/** The links of one line (code spans already blanked out), in reading order, whatever their syntax. */
export function linkSites(text: string, line: number): LinkSite[] {
  const found: LinkSite[] = []
  if (text.includes('[[')) {
    for (const match of text.matchAll(WIKILINK)) {
      const [start, end] = match.indices![1]!
      found.push({ start, end, link: { kind: 'wiki', target: match[1]!.trim(), anchor: (match[2] ?? '').trim(), text: (match[3] ?? '').trim(), line } })
    }
  }
  if (text.includes('](')) {
    for (const match of text.matchAll(MARKDOWN_LINK)) {
      const link = markdownLink(match[2]!, match[1]!, line)
      if (link) found.push({ start: match.indices![2]![0], end: match.indices![2]![1], link })
    }
  }
  const reference = REFERENCE.exec(text)
  const link = reference && markdownLink(reference[2]!, reference[1]!, line)
  if (link) found.push({ start: reference.indices![2]![0], end: reference.indices![2]![1], link })
  if (found.length > 1) found.sort((a, b) => a.start - b.start)
  return found
}

function markdownLink(destination: string, text: string, line: number): RawLink | undefined {
  let target = destination.startsWith('<') ? destination.slice(1, -1) : destination
  if (target === '' || SCHEME.test(target) || target.startsWith('//')) return undefined
  const hash = target.indexOf('#')
  const anchor = hash >= 0 ? target.slice(hash + 1) : ''
  target = hash >= 0 ? target.slice(0, hash) : target
  const query = target.indexOf('?')
  if (query >= 0) target = target.slice(0, query)
  return { kind: 'markdown', target: decode(target), anchor: decode(anchor), text: text.trim(), line }
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** What resolution needs to know of each note. */
export interface LinkTarget {
  path: string
  /** The prefix of the note's source root ('' for repository notes, e.g. '~/vault' for a folder). */
  root: string
  aliases: readonly string[]
}

/** The extensions a note's path may have (a link may leave them out). */
export const NOTE_EXTENSION = /\.(?:md|markdown|mdx)$/i

/**
 * Resolves links the way Obsidian and GitHub do: a markdown link is a path relative to the
 * linking note (or to its root when it starts with '/'), with or without the `.md`; a wikilink
 * names a note by file name, by a path suffix (`Folder/Note`) or by an alias, case-insensitively,
 * preferring the linking note's folder, then the shortest path.
 */
export class LinkResolver {
  private readonly byPath = new Map<string, string>()
  private readonly byName = new Map<string, string[]>()

  constructor(notes: readonly LinkTarget[]) {
    for (const note of notes) {
      const lower = note.path.toLowerCase()
      this.byPath.set(lower, note.path)
      this.byPath.set(lower.replace(NOTE_EXTENSION, ''), note.path)
      add(this.byName, posix.basename(lower).replace(NOTE_EXTENSION, ''), note.path)
      for (const alias of note.aliases) add(this.byName, alias.toLowerCase(), note.path)
    }
    for (const paths of this.byName.values()) paths.sort(byLength)
  }

  /** The note a link from `from` (rooted at `root`) points at, or null. */
  resolve(link: RawLink, from: string, root: string): string | null {
    if (link.target === '') return null
    return link.kind === 'markdown' ? this.resolvePath(link.target, from, root) : this.resolveName(link.target, from)
  }

  private resolvePath(target: string, from: string, root: string): string | null {
    const inRoot = root === '' ? from : from.slice(root.length + 1)
    const joined = target.startsWith('/') ? posix.normalize(target.slice(1)) : posix.join(posix.dirname(inRoot), target)
    if (joined === '..' || joined.startsWith('../')) return null
    const full = (root === '' ? joined : `${root}/${joined}`).toLowerCase()
    return this.byPath.get(full) ?? null
  }

  private resolveName(target: string, from: string): string | null {
    const wanted = target.toLowerCase().replace(NOTE_EXTENSION, '')
    const candidates = this.byName.get(posix.basename(wanted))
    if (!candidates) return null
    const matching = wanted.includes('/') ? candidates.filter((path) => path.toLowerCase().replace(NOTE_EXTENSION, '').endsWith(`/${wanted}`) || path.toLowerCase().replace(NOTE_EXTENSION, '') === wanted) : candidates
    if (matching.length === 0) return null
    const folder = posix.dirname(from)
    return matching.find((path) => posix.dirname(path) === folder) ?? matching[0]!
  }
}

function add(map: Map<string, string[]>, key: string, path: string): void {
  const list = map.get(key)
  if (!list) map.set(key, [path])
  else if (!list.includes(path)) list.push(path)
}

function byLength(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)
}
