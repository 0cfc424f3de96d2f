/**
 * Links kept pointing at a note the Librarian moved, as a user who moves a file in Obsidian
 * expects: links to it from the notes of its folders (wikilinks by the shortest name that still
 * finds it, markdown links by path, their anchors, aliases and `<…>` form kept) and the moved
 * note's own relative links. Links are found and resolved as the notes index does
 * (notes/links.ts); nothing else in a note changes.
 */
import { posix } from 'node:path'
import { LinkResolver, NOTE_EXTENSION, parseNote, rewriteNoteLinks, type RawLink } from '../notes/index.js'

export interface NoteText {
  /** Repo-relative, '/'-separated. */
  path: string
  text: string
}

/**
 * The notes whose text changes when `from` has moved to `to`, with their new text and how many
 * links changed. `notes` are the notes as they are after the move (the moved one under `to`).
 */
export function relinked(notes: readonly NoteText[], from: string, to: string): Array<NoteText & { links: number }> {
  const aliases = new Map(notes.map((note) => [note.path, parseNote(note.text).aliases]))
  const targets = (moved: string) => notes.map((note) => ({ path: note.path === to ? moved : note.path, root: '', aliases: aliases.get(note.path) ?? [] }))
  const before = new LinkResolver(targets(from))
  const after = new LinkResolver(targets(to))
  const changed: Array<NoteText & { links: number }> = []
  for (const note of notes) {
    const was = note.path === to ? from : note.path
    const { text, rewritten } = rewriteNoteLinks(note.text, (link, raw) => {
      if (link.kind === 'wiki') {
        if (before.resolve(link, was, '') !== from || after.resolve(link, note.path, '') === to) return undefined
        return wikiName(to, note.path, link, after)
      }
      return markdownTarget(link, raw, { was, now: note.path, from, to, pointsAtMoved: before.resolve(link, was, '') === from })
    })
    if (rewritten > 0 && text !== note.text) changed.push({ path: note.path, text, links: rewritten })
  }
  return changed
}

/** The shortest name (file name, then longer path suffixes) by which a wikilink in `linking` finds `to`. */
function wikiName(to: string, linking: string, link: RawLink, after: LinkResolver): string {
  const segments = to.replace(NOTE_EXTENSION, '').split('/')
  for (let take = 1; take <= segments.length; take++) {
    const name = segments.slice(-take).join('/')
    if (after.resolve({ ...link, target: name }, linking, '') === to) return name
  }
  return segments.join('/')
}

interface Move {
  /** Where the linking note was, and is. */
  was: string
  now: string
  from: string
  to: string
  /** The link resolved to the moved note before the move. */
  pointsAtMoved: boolean
}

/** A markdown link's new destination as written, or undefined when it needs none. */
function markdownTarget(link: RawLink, raw: string, move: Move): string | undefined {
  if (link.target === '') return undefined
  const rooted = link.target.startsWith('/')
  const oldPath = rooted ? posix.normalize(link.target.slice(1)) : posix.join(posix.dirname(move.was), link.target)
  if (oldPath === '..' || oldPath.startsWith('../')) return undefined
  let newPath: string
  if (move.pointsAtMoved) newPath = NOTE_EXTENSION.test(link.target) ? move.to : move.to.replace(NOTE_EXTENSION, '')
  // The moved note's own relative links: the same files, from its new folder.
  else if (move.now === move.to && !rooted && posix.dirname(move.was) !== posix.dirname(move.now)) newPath = oldPath
  else return undefined
  const relative = rooted ? `/${newPath}` : posix.relative(posix.dirname(move.now), newPath) || posix.basename(newPath)
  const angled = raw.startsWith('<')
  const inner = angled ? raw.slice(1, -1) : raw
  const cut = inner.search(/[#?]/)
  const rest = cut >= 0 ? inner.slice(cut) : ''
  const written = angled ? `<${relative}${rest}>` : `${relative.split('/').map(encodeURIComponent).join('/')}${rest}`
  return written === raw ? undefined : written
}
