/**
 * Which notes exist right now and what their content hashes are, without reading unchanged
 * content: repository notes come from HEAD's tree (blob ids) plus the working tree's changes
 * (git's own content hashes); folder notes are hashed from disk, except that a file whose size,
 * mtime and inode match the previous listing keeps its previous hash (git's stat cache trick).
 */
import { createHash } from 'node:crypto'
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises'
import { isAbsolute, join, relative, sep } from 'node:path'
import { isExcludedDir } from '../files/builtin-excludes.js'
import { compileGlobList } from '../files/globs.js'
import { listTree, workingTreeChanges, type Repo } from '../git/index.js'
import { resolveFolder, type NotesConfig } from './config.js'

/** Where a note's bytes are read from. */
export type NoteLocation =
  | { kind: 'blob'; blob: string }
  | { kind: 'file'; file: string; size: number; mtimeMs: number; ino: number }

export interface NoteFile {
  /** Repo-relative for notes inside the repository, `<folder as configured>/<relative>` otherwise. */
  path: string
  /** Content hash: the git blob id (for folder files, computed the way git would, SHA-1). */
  hash: string
  /** Prefix of `path` that markdown links cannot climb above: '' in the repository, the folder setting otherwise. */
  root: string
  location: NoteLocation
}

export interface NoteListing {
  notes: NoteFile[]
  /** HEAD's tree. */
  treeHash: string
  /** Repository notes whose working-tree content differs from HEAD. */
  dirty: number
  /** Absolute directories of the configured folders that exist, by setting. */
  folders: Map<string, string>
  warnings: string[]
  /** Bytes already read while hashing, so that parsing does not read them again. */
  contents: Map<string, Buffer>
}

/** Folder files known from the previous listing, by path. */
export type StatCache = ReadonlyMap<string, NoteFile>

export async function listNotes(repo: Repo, config: NotesConfig, previous: StatCache): Promise<NoteListing> {
  const included = compileGlobList(config.include)
  const outsideIncluded = compileGlobList(config.outsideInclude)
  const isNote = (path: string): boolean => included(path) && !isExcludedDir(path.slice(0, path.lastIndexOf('/') + 1))
  const [tree, changes] = await Promise.all([listTree(repo, repo.head.tree), workingTreeChanges(repo)])
  const byPath = new Map<string, NoteFile>()
  for (const entry of tree) if (isNote(entry.path)) byPath.set(entry.path, { path: entry.path, hash: entry.blob, root: '', location: { kind: 'blob', blob: entry.blob } })
  let dirty = 0
  for (const change of changes) {
    if (!isNote(change.path)) continue
    if (change.contentHash === null) {
      byPath.delete(change.path)
      continue
    }
    dirty++
    const file = join(repo.root!, change.path)
    const info = await lstat(file)
    byPath.set(change.path, { path: change.path, hash: change.contentHash, root: '', location: { kind: 'file', file, size: info.size, mtimeMs: info.mtimeMs, ino: info.ino } })
  }

  const warnings: string[] = []
  const folders = new Map<string, string>()
  const contents = new Map<string, Buffer>()
  const repoRoot = repo.root ?? repo.gitDir
  const realRepoRoot = repo.root === null ? null : await realpath(repo.root).catch(() => repo.root!)
  for (const spec of config.folders) {
    const dir = resolveFolder(spec, repoRoot)
    const real = await realpath(dir).catch(() => undefined)
    const info = real === undefined ? undefined : await stat(real).catch(() => undefined)
    if (!info?.isDirectory()) {
      warnings.push(`notes folder ${spec} (${dir}) is not a directory: skipped`)
      continue
    }
    const inRepo = repo.root !== null && isInside(repo.root, dir)
    // A folder inside the repository is the repository's content, whoever named it: a committed
    // symbolic link on its way must not lead the walk out.
    if (inRepo && !isInside(realRepoRoot!, real!)) {
      warnings.push(`notes folder ${spec} leads outside the repository through a symbolic link (to ${real}): skipped`)
      continue
    }
    folders.set(spec, dir)
    for (const found of await walkMarkdown(dir, inRepo ? included : outsideIncluded)) {
      const path = inRepo ? relative(repo.root!, found.file).split(sep).join('/') : `${spec}/${found.relative}`
      // A tracked note listed by git wins over the same file found by walking.
      if (byPath.has(path)) continue
      const cached = previous.get(path)
      const location: NoteLocation = { kind: 'file', file: found.file, size: found.size, mtimeMs: found.mtimeMs, ino: found.ino }
      let hash: string
      if (cached && cached.location.kind === 'file' && cached.location.size === found.size && cached.location.mtimeMs === found.mtimeMs && cached.location.ino === found.ino) {
        hash = cached.hash
      } else {
        const bytes = await readFile(found.file)
        hash = gitBlobHash(bytes)
        contents.set(path, bytes)
      }
      byPath.set(path, { path, hash, root: inRepo ? '' : spec, location })
    }
  }
  const notes = [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return { notes, treeHash: repo.head.tree, dirty, folders, warnings, contents }
}

interface FoundFile {
  file: string
  /** '/'-separated, relative to the folder. */
  relative: string
  size: number
  mtimeMs: number
  ino: number
}

/**
 * Markdown files under `dir`. Hidden folders (.git, .obsidian, .trash) and the built-in excluded
 * ones (node_modules …) are skipped, and symbolic links are never followed, so a walk cannot
 * leave the folder or loop.
 */
async function walkMarkdown(dir: string, included: (path: string) => boolean): Promise<FoundFile[]> {
  const found: FoundFile[] = []
  const pending = ['']
  while (pending.length > 0) {
    const sub = pending.pop()!
    const entries = await readdir(join(dir, sub), { withFileTypes: true }).catch(() => [])
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue
      const rel = sub === '' ? entry.name : `${sub}/${entry.name}`
      if (entry.isDirectory()) {
        if (!isExcludedDir(`${rel}/`)) pending.push(rel)
      } else if (entry.isFile() && included(rel)) {
        const file = join(dir, rel)
        const info = await lstat(file).catch(() => undefined)
        if (info?.isFile()) found.push({ file, relative: rel, size: info.size, mtimeMs: info.mtimeMs, ino: info.ino })
      }
    }
  }
  return found
}

/** `git hash-object` for SHA-1: the same bytes get the same key inside and outside the repository. */
export function gitBlobHash(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}

export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}
