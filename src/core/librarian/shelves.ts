/**
 * Where the Librarian may write notes: the notes folders of the configuration that lie inside the
 * repository (`notes/` when none is set), never a user's vault elsewhere — its writes must be
 * working-tree changes the user reviews with git. Every path comes from a model, which may have
 * read anything a cloned repository holds, so a path is refused — not clamped — when it is
 * absolute, climbs with `..`, names `.git` or `.vlt` in any case, is not markdown, lies outside the
 * folders (compared exactly: `Notes/` is not `notes/`, whatever the file system folds), or reaches
 * its folder through a symbolic link. Threads are written only through the thread store, by name.
 */
import { lstatSync } from 'node:fs'
import { isAbsolute, join, posix } from 'node:path'
import { VltError } from '../errors.js'
import { staysInRepository } from '../notes/config.js'
import { confineTo } from '../store/index.js'

/** The folder notes go to when the configuration names none inside the repository. */
export const DEFAULT_SHELF = 'notes'

const MARKDOWN = /\.(md|markdown)$/i
const FORBIDDEN_SEGMENTS = new Set(['.git', '.vlt'])

/** A path the Librarian refuses: told to the model as the tool's error, never thrown past the tool. */
export class ShelfError extends VltError {}

/** The notes folders the Librarian writes to, repo-relative and '/'-separated. */
export function writableShelves(root: string, folderSettings: readonly string[]): string[] {
  const inside = folderSettings.filter(staysInRepository).map((folder) => normalise(folder)).filter((folder) => folder !== '' && !hasForbiddenSegment(folder))
  const shelves = inside.length > 0 ? [...new Set(inside)] : [DEFAULT_SHELF]
  // The store's atomic writes prove every folder below a registered root real (confine.ts); the way down to it is checked here.
  for (const shelf of shelves) confineTo(join(root, shelf))
  return shelves
}

/**
 * The repo-relative path of a note the Librarian may write, or a ShelfError saying why not. The
 * folders between the root and the file must be real directories (the missing ones are created
 * by the write), and the file itself, when it exists, a regular file.
 */
export function shelvedPath(root: string, shelves: readonly string[], input: string): string {
  const path = checkedRelative(input)
  const shelf = shelves.find((candidate) => path.startsWith(`${candidate}/`))
  if (!shelf) throw new ShelfError(`${JSON.stringify(input)} is outside the notes folders the Librarian writes to (${shelves.map((s) => `${s}/`).join(', ')})`)
  if (!MARKDOWN.test(path)) throw new ShelfError(`${JSON.stringify(input)} is not a markdown note (.md or .markdown)`)
  const segments = path.split('/')
  let probe = root
  for (const [i, segment] of segments.entries()) {
    probe = join(probe, segment)
    const info = lstatSync(probe, { throwIfNoEntry: false })
    if (!info) break
    if (info.isSymbolicLink()) throw new ShelfError(`${JSON.stringify(input)} goes through a symbolic link (${segments.slice(0, i + 1).join('/')}); the Librarian writes only to real files and folders`)
    const last = i === segments.length - 1
    if (!last && !info.isDirectory()) throw new ShelfError(`${JSON.stringify(input)}: ${segments.slice(0, i + 1).join('/')} is not a folder`)
    if (last && !info.isFile()) throw new ShelfError(`${JSON.stringify(input)} exists and is not a regular file`)
  }
  return path
}

/** `input` as a clean repo-relative path, or a ShelfError for anything that could leave the repository. */
function checkedRelative(input: string): string {
  if (input.includes('\0')) throw new ShelfError('a path contains a NUL byte')
  const slashed = input.replace(/\\/g, '/')
  if (isAbsolute(input) || slashed.startsWith('/') || slashed.startsWith('~') || /^[A-Za-z]:/.test(slashed)) {
    throw new ShelfError(`${JSON.stringify(input)} is absolute; give a path relative to the repository root`)
  }
  if (slashed.split('/').includes('..')) throw new ShelfError(`${JSON.stringify(input)} climbs with ".."; give a path inside the notes folders`)
  const path = normalise(slashed)
  if (hasForbiddenSegment(path)) throw new ShelfError(`${JSON.stringify(input)} names .git or .vlt; threads are written with append_thread`)
  return path
}

/** '/'-separated, without empty or `.` segments; a folder setting's `..` (which stays inside, staysInRepository says) resolved. */
function normalise(path: string): string {
  return posix
    .normalize(path.replace(/\\/g, '/'))
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/')
}

function hasForbiddenSegment(path: string): boolean {
  return path.split('/').some((segment) => FORBIDDEN_SEGMENTS.has(segment.toLowerCase()))
}
