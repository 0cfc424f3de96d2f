/**
 * One note with its parsed parts and the notes linking to it. A path given by the user must stay
 * inside the repository or a configured notes folder: `..` segments, absolute paths elsewhere and
 * symbolic links leading out are refused (UsageError, exit 2) before anything is read.
 */
import { realpath } from 'node:fs/promises'
import { homedir } from 'node:os'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { UsageError } from '../errors.js'
import type { FrontMatterValue } from './front-matter.js'
import { openNotes, type Backlink, type NotesFreshness, type NotesIndex, type NotesOptions } from './build.js'
import type { RawLink } from './links.js'
import type { Heading } from './markdown.js'
import { isInside } from './sources.js'

export interface NoteLink extends RawLink {
  /** The note the link points at, null when it leads outside the notes or nowhere. */
  resolved: string | null
}

export interface NoteView {
  path: string
  title: string
  tags: string[]
  aliases: string[]
  frontMatter: Record<string, FrontMatterValue>
  headings: Heading[]
  links: NoteLink[]
  backlinks: Backlink[]
  content: string
  freshness: NotesFreshness
}

export async function readNote(cwd: string, requested: string, options: NotesOptions = {}): Promise<NoteView> {
  const notes = await openNotes(cwd, options)
  const path = await locateNote(notes, requested)
  const note = notes.note(path)!
  const artifact = await notes.artifact(path)
  return {
    path,
    title: note.title,
    tags: note.tags,
    aliases: note.aliases,
    frontMatter: artifact.frontMatter,
    headings: artifact.headings,
    links: note.links.map((link, i) => ({ ...link, resolved: note.resolved[i] ?? null })),
    backlinks: notes.backlinks(path),
    content: artifact.text,
    freshness: notes.freshness,
  }
}

/** A root a requested path may lie in: the repository, or a configured folder. */
interface Root {
  /** Prefix of the note paths under it ('' for the repository). */
  prefix: string
  dir: string
}

/**
 * The indexed note a user's path names: an indexed path as listed by search, a repository-relative
 * path, a configured folder's prefix plus a relative path, or an absolute (or `~/`) path inside
 * one of those roots.
 */
export async function locateNote(notes: NotesIndex, requested: string): Promise<string> {
  if (notes.note(requested)) return requested
  if (requested === '' || requested.includes('\0')) throw new UsageError(`not a note path: ${JSON.stringify(requested)}`)
  const roots: Root[] = [...notes.folders].map(([prefix, dir]) => ({ prefix, dir }))
  if (notes.repo.root !== null) roots.push({ prefix: '', dir: notes.repo.root })
  const expanded = requested === '~' || requested.startsWith('~/') ? join(homedir(), requested.slice(1)) : requested

  let root: Root | undefined
  let inRoot: string
  if (isAbsolute(expanded)) {
    const absolute = resolve(expanded)
    // The innermost root wins: a folder inside the repository keys its notes repository-relatively, as listing does.
    root = roots.filter((candidate) => isInside(candidate.dir, absolute)).sort((a, b) => b.dir.length - a.dir.length)[0]
    if (!root) throw new UsageError(`${requested} is outside the repository and the notes folders: refusing to read it`)
    inRoot = relative(root.dir, absolute).split(sep).join('/')
  } else {
    if (requested.split(/[\\/]/).includes('..')) throw new UsageError(`${requested}: '..' is not allowed — note paths stay inside the repository or a notes folder`)
    root = roots.find((candidate) => candidate.prefix !== '' && requested.startsWith(`${candidate.prefix}/`)) ?? roots.find((candidate) => candidate.prefix === '')
    if (!root) throw new UsageError(`no note at ${requested}: a bare repository only has the notes of HEAD, named by their paths`)
    inRoot = root.prefix === '' ? requested.replace(/^\.\//, '') : requested.slice(root.prefix.length + 1)
  }

  await refuseSymlinkEscape(root.dir, inRoot, requested)
  const inRepo = root.prefix === '' || (notes.repo.root !== null && isInside(notes.repo.root, root.dir))
  const path = inRepo && notes.repo.root !== null ? relative(notes.repo.root, join(root.dir, inRoot)).split(sep).join('/') : `${root.prefix}/${inRoot}`
  if (!notes.note(path)) {
    throw new UsageError(`no note at ${requested}: notes are the repository's markdown files (*.md, *.markdown, *.mdx) and those of the configured notes folders`)
  }
  return path
}

/** The file, once symbolic links are followed, must still be inside its root. */
async function refuseSymlinkEscape(rootDir: string, inRoot: string, requested: string): Promise<void> {
  const realRoot = await realpath(rootDir).catch(() => rootDir)
  const real = await realpath(join(rootDir, inRoot)).catch(() => undefined)
  if (real !== undefined && !isInside(realRoot, real)) {
    throw new UsageError(`${requested} leads outside ${rootDir} through a symbolic link (to ${real}): refusing to read it`)
  }
}
