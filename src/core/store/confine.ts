/**
 * Confinement: everything git-vlt writes, deletes or reads under a `.vlt` directory stays inside
 * it. A cloned repository is untrusted input and can commit `.vlt` itself, or any path under it,
 * as a symlink aimed anywhere (`/home/me/.ssh`, `../..`), or put a FIFO or a link to `/dev/zero`
 * where a record is read. So every folder on the way from the `.vlt` directory (the *root*) down
 * to a file we touch must be a real directory, never a link; a file we read must be a regular
 * file, opened without following a link; and anything else is refused with a ConfinementError: one
 * line naming the path and what to do. Nothing above the root is checked: where the repository
 * itself lives is the user's choice, not the repository's.
 *
 * Roots are registered per thread (`confineTo`, called where a `.vlt` path is born: opening the
 * repository, `vltPaths`, taking a lock); a working tree's `.vlt` is also recognised by name. A
 * path under no root is a programming error and fails closed, so a new write site cannot silently
 * skip the check.
 *
 * Cost: a folder once proven stays proven for PROVEN_MS, so a build writing thousands of records
 * into a few hundred folders pays about one lstat per folder, and a record read or write on a warm
 * path pays a map lookup. The proof expires because long-lived processes (the MCP server, the
 * query daemon) outlive checkouts, and a checkout can turn a proven folder into a link; a second
 * bounds that window to a moment in which the checkout races our write anyway. (Node has no
 * openat(2), so a check-then-use window of microseconds always remains; it only matters against a
 * concurrent local attacker, who already has the user's rights.)
 *
 * Atomic writes rename a temp file over the target: rename(2) replaces a link at the target
 * itself and never writes through it, so the target's own name needs no check, only its folder.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, readSync, rmSync, type Stats } from 'node:fs'
import { open, readdir, rm, type FileHandle } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { VltError } from '../errors.js'
import { faultOr } from './fault.js'

/** Something inside `.vlt/` that git-vlt will not follow or use (a link, a FIFO, a file where a folder belongs). */
export class ConfinementError extends VltError {
  constructor(readonly path: string, message: string) {
    super(message)
    this.name = 'ConfinementError'
  }
}

const PROVEN_MS = 1_000
/** A working tree's `.vlt` (see rootOf). */
const VLT_NAME = '.vlt'
const roots = new Set<string>()
/** Real directories (absolute) and until when their proof holds. */
const proven = new Map<string, number>()

/** O_NOFOLLOW refuses a link as the last component; O_NONBLOCK keeps opening a FIFO from hanging (it is then refused as not regular). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0
const READ_FLAGS = constants.O_RDONLY | NO_FOLLOW | (constants.O_NONBLOCK ?? 0)
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW | (constants.O_NONBLOCK ?? 0)

/** Declares `vltDir` a root: paths under it may be written, deleted and read through this module's checks. */
export function confineTo(vltDir: string): void {
  roots.add(resolve(vltDir))
}

/** Every root this thread knows, for a worker thread that writes on its behalf. */
export function confinedRoots(): string[] {
  return [...roots]
}

/** `mkdir -p` inside a root: creates what is missing, refuses a link or a file on the way. */
export function ensureDirSync(dir: string): void {
  proveDir(dir, true)
}

/**
 * Whether `dir` exists, reached from its root through real directories only (false: something on
 * the way is missing). Readers and deleters use it before listing or opening anything in `dir`.
 */
export function dirExistsSync(dir: string): boolean {
  return proveDir(dir, false)
}

/**
 * Forgets the proofs of `dir`, of everything below it and of its ancestors: a caller that removed
 * a folder, or found one gone that was proven (someone removed part of `.vlt/` meanwhile).
 */
export function forgetDir(dir: string): void {
  const absolute = resolve(dir)
  for (const known of proven.keys()) {
    if (known === absolute || known.startsWith(absolute + sep) || absolute.startsWith(known + sep)) proven.delete(known)
  }
}

/** The bytes of the regular file at `path`, or undefined when it (or a folder on the way) is absent. */
export async function readFileConfined(path: string): Promise<Buffer | undefined> {
  const handle = await openConfined(path)
  if (!handle) return undefined
  try {
    return await handle.readFile()
  } finally {
    await handle.close()
  }
}

/**
 * readFileConfined for hot loops over thousands of small records. A missing file is answered by an
 * lstat rather than by a failed open: an exception per miss cost a fifth of a cold build's reads.
 */
export function readFileConfinedSync(path: string): Buffer | undefined {
  if (!dirExistsSync(dirname(path))) return undefined
  const info = lstatSync(path, { throwIfNoEntry: false })
  if (!info) return undefined
  if (info.isSymbolicLink()) throw linked(path)
  let fd: number
  try {
    fd = openSync(path, READ_FLAGS)
  } catch (error) {
    return refuseOpen(path, error)
  }
  try {
    // Read to the size fstat gave (readFileSync(fd) would fstat again: a third of the syscalls here).
    const opened = fstatSync(fd)
    requireRegular(path, opened)
    const bytes = Buffer.allocUnsafe(opened.size)
    let filled = 0
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, filled)
      if (read === 0) break
      filled += read
    }
    return filled === bytes.length ? bytes : bytes.subarray(0, filled)
  } finally {
    closeSync(fd)
  }
}

/** An open handle on the regular file at `path` (the caller closes it), or undefined when absent. */
export async function openConfined(path: string): Promise<FileHandle | undefined> {
  if (!dirExistsSync(dirname(path))) return undefined
  refuseLinkWithoutNoFollow(path)
  let handle: FileHandle
  try {
    handle = await open(path, READ_FLAGS)
  } catch (error) {
    return refuseOpen(path, error)
  }
  try {
    requireRegular(path, await handle.stat())
    return handle
  } catch (error) {
    await handle.close()
    throw error
  }
}

/** A descriptor on the regular file at `path`, for reading at offsets (packs), or undefined when absent. */
export function openConfinedSync(path: string): number | undefined {
  if (!dirExistsSync(dirname(path))) return undefined
  return openRegularSync(path, READ_FLAGS)
}

/**
 * Up to `length` bytes of the open file at `position`: fewer only where the file ends (a reader of
 * records checks lengths itself), as many reads as the kernel needs.
 */
export function readAtSync(fd: number, position: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length)
  const filled = readIntoSync(fd, bytes, position)
  return filled === length ? bytes : bytes.subarray(0, filled)
}

/** Fills `bytes` from the open file at `position` (as readAtSync reads); returns how many were read. */
export function readIntoSync(fd: number, bytes: Uint8Array, position: number): number {
  let filled = 0
  while (filled < bytes.length) {
    const read = readSync(fd, bytes, filled, bytes.length - filled, position + filled)
    if (read === 0) break
    filled += read
  }
  return filled
}

/** A descriptor appending to the regular file at `path` (created, with its folders, if missing): logs. */
export function openForAppendSync(path: string): number {
  ensureDirSync(dirname(path))
  try {
    return openRegularSync(path, APPEND_FLAGS)!
  } catch (error) {
    throw faultOr(error, path)
  }
}

/** The names in `dir`, or [] when it does not exist. */
export async function listDirConfined(dir: string): Promise<string[]> {
  if (!dirExistsSync(dir)) return []
  return readdirOrNone(() => readdir(dir))
}

export function listDirConfinedSync(dir: string): string[] {
  if (!dirExistsSync(dir)) return []
  try {
    return readdirSync(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
}

/**
 * Every regular file under `dir` (absolute paths), at any depth, never descending into a link. A
 * recursive readdir without file types follows links to folders (Node 20), so it is not used.
 */
export async function listFilesConfined(dir: string): Promise<string[]> {
  if (!dirExistsSync(dir)) return []
  const entries = await readdirOrNone(() => readdir(dir, { recursive: true, withFileTypes: true }))
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
}

/**
 * Removes `path` (a folder with `recursive`) if it exists. Only its folder needs proving: rm
 * removes a link itself, never what it points to, and does not follow links below a folder.
 */
export async function removeConfined(path: string, opts: { recursive?: boolean } = {}): Promise<void> {
  if (!dirExistsSync(dirname(path))) return
  try {
    await rm(path, { force: true, recursive: opts.recursive ?? false })
  } catch (error) {
    throw faultOr(error, path)
  }
  if (opts.recursive) forgetDir(path)
}

export function removeConfinedSync(path: string, opts: { recursive?: boolean } = {}): void {
  if (!dirExistsSync(dirname(path))) return
  try {
    rmSync(path, { force: true, recursive: opts.recursive ?? false })
  } catch (error) {
    throw faultOr(error, path)
  }
  if (opts.recursive) forgetDir(path)
}

/** True: `dir` exists and is proven; false: missing (only when not creating). */
function proveDir(dir: string, create: boolean): boolean {
  const now = Date.now()
  if ((proven.get(dir) ?? 0) > now) return true
  const absolute = resolve(dir)
  return proveFrom(rootOf(absolute), absolute, create, now)
}

function proveFrom(root: string, dir: string, create: boolean, now: number): boolean {
  if ((proven.get(dir) ?? 0) > now) return true
  if (dir !== root && !proveFrom(root, dirname(dir), create, now)) return false
  let info = lstatSync(dir, { throwIfNoEntry: false })
  if (!info) {
    if (!create) return false
    try {
      // Above the root is the user's own ground (the repository, its git dir): created as needed.
      mkdirSync(dir, { recursive: dir === root })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw faultOr(error, dir)
    }
    info = lstatSync(dir)
  }
  if (info.isSymbolicLink()) throw linked(dir, root)
  if (!info.isDirectory()) throw new ConfinementError(dir, `${shown(dir, root)} is not a directory; git-vlt keeps its own files there: move it away and run again`)
  proven.set(dir, now + PROVEN_MS)
  return true
}

/**
 * The registered root holding `path`, else the outermost `.vlt` folder on it (a working tree's,
 * found by name: tests and tools that inspect one without opening the repository). The outermost
 * wins: it checks the most folders. A bare repository's `vlt` has no telling name and must be
 * registered, as opening the repository does.
 */
function rootOf(path: string): string {
  let found: string | undefined
  for (const root of roots) {
    if ((path === root || path.startsWith(root + sep)) && (found === undefined || root.length < found.length)) found = root
  }
  const named = path.indexOf(`${sep}${VLT_NAME}${sep}`)
  const byName = named >= 0 ? path.slice(0, named + VLT_NAME.length + 1) : path.endsWith(sep + VLT_NAME) ? path : undefined
  if (byName !== undefined && (found === undefined || byName.length < found.length)) found = byName
  if (found === undefined) throw new Error(`internal error: ${path} is under no .vlt directory known to this thread (confineTo was not called for it)`)
  return found
}

function openRegularSync(path: string, flags: number): number | undefined {
  refuseLinkWithoutNoFollow(path)
  let fd: number
  try {
    fd = openSync(path, flags, 0o666)
  } catch (error) {
    return refuseOpen(path, error)
  }
  try {
    requireRegular(path, fstatSync(fd))
    return fd
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/** Where the platform has no O_NOFOLLOW (Windows), an lstat stands in for it. */
function refuseLinkWithoutNoFollow(path: string): void {
  if (NO_FOLLOW === 0 && lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) throw linked(path)
}

/** ENOENT: absent. ELOOP: O_NOFOLLOW met a link. ENXIO: a FIFO with no reader, opened for writing without blocking. */
function refuseOpen(path: string, error: unknown): undefined {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return undefined
  if (code === 'ELOOP') throw linked(path)
  if (code === 'ENXIO') throw notRegular(path, 'a FIFO or socket')
  throw error
}

function requireRegular(path: string, info: Stats): void {
  if (info.isFile()) return
  throw notRegular(path, info.isDirectory() ? 'a directory' : info.isFIFO() ? 'a FIFO' : info.isCharacterDevice() || info.isBlockDevice() ? 'a device' : info.isSocket() ? 'a socket' : 'not a file')
}

function notRegular(path: string, kind: string): ConfinementError {
  const root = rootOf(resolve(path))
  return new ConfinementError(path, `${shown(path, root)} is not a regular file (${kind}); git-vlt reads and writes only regular files inside ${shown(root, root)}/: remove it and run again`)
}

function linked(path: string, root = rootOf(resolve(path))): ConfinementError {
  let target = '?'
  try {
    target = printable(readlinkSync(path))
  } catch {
    // Gone meanwhile: the message still names the path.
  }
  return new ConfinementError(
    path,
    `${shown(path, root)} is a symbolic link (to ${target}); git-vlt follows no link at or under ${shown(root, root)}/, since a cloned repository could aim one anywhere: remove it (with \`git rm\` if it is committed) and run again`,
  )
}

/** The path as the user knows it: from the folder holding the root (`.vlt/threads`, `vlt/locks` in a bare repository). */
function shown(path: string, root = rootOf(resolve(path))): string {
  return printable(relative(dirname(root), resolve(path)))
}

/** One line whatever a committed name holds: control characters (newlines, terminal escapes) are escaped. */
function printable(text: string): string {
  const escaped = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
  return escaped.length > 200 ? `${escaped.slice(0, 199)}…` : escaped
}

async function readdirOrNone<T>(list: () => Promise<T[]>): Promise<T[]> {
  try {
    return await list()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
}
