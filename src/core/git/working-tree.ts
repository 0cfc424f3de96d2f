import { lstat, readFile, realpath } from 'node:fs/promises'
import { isAbsolute, join, relative, sep } from 'node:path'
import { UsageError } from '../errors.js'
import { GitError } from './command.js'
import { openRepo, runInRepo, type Repo } from './repo.js'
import { isFileMode } from './tree.js'

export interface WorkingChange {
  path: string
  /** Against HEAD: `added` is new in the index, `untracked` is new and neither added nor ignored. */
  status: 'modified' | 'added' | 'deleted' | 'untracked'
  /** `git hash-object` of the working-tree file (filters such as autocrlf applied); null when deleted. */
  contentHash: string | null
}

/** A path git status reported, before the content hashes that only git hash-object can tell. */
interface Candidate {
  path: string
  status: WorkingChange['status']
  /** The blob HEAD has at this path, null when HEAD has no file there. */
  headBlob: string | null
  /** Known without hashing when the index already matches the working tree. */
  contentHash: string | null
}

/** A repository opened, and, for a caller about to sync, its working tree being read (`workingTreeChanges`). */
export interface OpenedRepo {
  repo: Repo
  workingTree?: Promise<WorkingChange[]>
}

/**
 * Opens the repository at `cwd` (UsageError outside one) and, when `readWorkingTree`, starts
 * reading its changes. Light on imports, so that a query in process can call it before loading the
 * query modules, which then load while git reads the working tree (~0.3 s on Linux's 78k files).
 */
export async function openRepoReading(cwd: string, readWorkingTree: boolean, reading: StatusOptions = {}): Promise<OpenedRepo> {
  const repo = await openRepo(cwd)
  if (!readWorkingTree) return { repo }
  const workingTree = workingTreeChanges(repo, reading)
  // Read only if the sync gets that far: a failure before it must not surface as unhandled.
  workingTree.catch(() => {})
  return { repo, workingTree }
}

export interface StatusOptions {
  /**
   * Let git refresh .git/index's stat data while it reads (an optional lock; skipped when another
   * git holds the index): for `coderag init`, once. Entries a checkout left racily clean are read
   * again by every status until something refreshes them: fresh Linux clones here took 0.18-0.27 s
   * a status, one 0.56-0.61 s, and 0.16 s once refreshed.
   */
  refreshIndex?: boolean
}

/**
 * `git status` of the working tree, machine-readable, every untracked file, .vlt left out: excluding
 * it by pathspec keeps git from even walking it (measured: 86 ms -> 40 ms with 5k records). Like
 * every git we run, it takes no optional lock (gitEnv): .git/index is left as it is. For a
 * repository with a working tree.
 */
export function statusArgs(repo: Repo): string[] {
  const args = ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all']
  const vlt = relative(repo.root!, repo.vltDir)
  if (!vlt.startsWith('..')) args.push('--', `:(exclude,literal)${vlt}`)
  return args
}

/**
 * Files whose working-tree content differs from HEAD's tree: modified, added, deleted and untracked
 * (.gitignore respected). Symlinks and submodules are not files here, as in listTree. Bare: nothing.
 */
export async function workingTreeChanges(repo: Repo, { refreshIndex = false }: StatusOptions = {}): Promise<WorkingChange[]> {
  if (repo.root === null) return []
  const out = await runInRepo(repo, statusArgs(repo), { optionalLocks: refreshIndex })
  const { candidates, untracked } = parseStatus(out.toString('utf8'))
  const regular = await Promise.all(untracked.map((path) => isRegularFile(join(repo.root!, path))))
  untracked.forEach((path, i) => {
    if (regular[i]) candidates.push({ path, status: 'untracked', headBlob: null, contentHash: null })
  })

  const toHash = candidates.filter((c) => c.status !== 'deleted' && c.contentHash === null)
  const hashes = await hashWorkingFiles(repo, toHash.map((c) => c.path))
  toHash.forEach((candidate, i) => (candidate.contentHash = hashes[i]!))

  const changes: WorkingChange[] = []
  for (const { path, status, headBlob, contentHash } of candidates) {
    if (status !== 'deleted' && contentHash === null) {
      // Vanished since git status looked.
      if (headBlob !== null) changes.push({ path, status: 'deleted', contentHash: null })
    } else if (contentHash !== headBlob) changes.push({ path, status, contentHash })
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** Reads a working-tree file by repository-relative path; refuses anything that would leave the working tree. */
export async function readWorkingFile(repo: Repo, path: string): Promise<Buffer> {
  if (repo.root === null) throw new UsageError(`a bare repository has no working tree to read ${path} from`)
  if (path === '' || path.includes('\0') || isAbsolute(path) || path.split('/').includes('..')) {
    throw new UsageError(`path must stay inside the working tree: ${JSON.stringify(path)}`)
  }
  const root = await realpath(repo.root)
  const file = await realpath(join(root, path))
  if (!file.startsWith(root + sep)) throw new UsageError(`path resolves outside the working tree: ${path} -> ${file}`)
  return readFile(file)
}

/**
 * Reads `git status --porcelain=v2 -z` records. Ordinary ("1") and unmerged ("u") entries give HEAD's
 * mode and blob; the index blob is the working-tree content whenever the working tree matches the index.
 */
function parseStatus(text: string): { candidates: Candidate[]; untracked: string[] } {
  const candidates: Candidate[] = []
  const untracked: string[] = []
  for (const record of text.split('\0')) {
    const kind = record[0]
    if (kind === '?') {
      // A trailing slash marks a nested repository, not a file.
      if (!record.endsWith('/')) untracked.push(record.slice(2))
    } else if (kind === '1') {
      // 1 XY sub mH mI mW hH hI path
      const [, xy, , headMode, , workMode, headBlob, indexBlob, path] = split(record, 8)
      const knownHash = xy![1] === '.' ? indexBlob! : null
      addCandidate(candidates, path!, headMode!, workMode!, headBlob!, knownHash)
    } else if (kind === 'u') {
      // u XY sub m1 m2 m3 mW h1 h2 h3 path; stage 2 ("ours") is HEAD.
      const [, , , , oursMode, , workMode, , oursBlob, , path] = split(record, 10)
      addCandidate(candidates, path!, oursMode!, workMode!, oursBlob!, null)
    } else if (kind !== undefined) {
      throw new Error(`unexpected git status record: ${record}`)
    }
  }
  return { candidates, untracked }
}

function addCandidate(candidates: Candidate[], path: string, headMode: string, workMode: string, headBlob: string, contentHash: string | null): void {
  const inHead = isFileMode(headMode)
  const inWork = isFileMode(workMode)
  if (!inHead && !inWork) return
  candidates.push({
    path,
    status: !inWork ? 'deleted' : inHead ? 'modified' : 'added',
    headBlob: inHead ? headBlob : null,
    // A file removed from the index too (`git rm`, XY "D.") has the null blob as its index blob.
    contentHash: inWork ? contentHash : null,
  })
}

/** The first `count` space-separated fields, then the rest (a path may hold spaces). */
function split(record: string, count: number): string[] {
  const fields: string[] = []
  let start = 0
  for (let i = 0; i < count; i++) {
    const space = record.indexOf(' ', start)
    fields.push(record.slice(start, space))
    start = space + 1
  }
  fields.push(record.slice(start))
  return fields
}

/** Content hashes in one git process, null for files that vanished meanwhile. */
async function hashWorkingFiles(repo: Repo, paths: string[]): Promise<Array<string | null>> {
  if (paths.length === 0) return []
  try {
    return await hashObjects(repo, paths)
  } catch (error) {
    // hash-object dies on the first unreadable path: a file deleted since git status. Retry without those.
    if (!(error instanceof GitError)) throw error
    const present = await Promise.all(paths.map((path) => isRegularFile(join(repo.root!, path))))
    const hashes = await hashObjects(repo, paths.filter((_, i) => present[i]))
    let next = 0
    return present.map((there) => (there ? hashes[next++]! : null))
  }
}

async function hashObjects(repo: Repo, paths: string[]): Promise<string[]> {
  if (paths.length === 0) return []
  const input = paths.map(stdinPath).join('\n') + '\n'
  const out = await runInRepo(repo, ['hash-object', '--stdin-paths'], { input })
  return out.toString('latin1').split('\n', paths.length)
}

/** hash-object reads one path per line and C-unquotes lines starting with a double quote. */
function stdinPath(path: string): string {
  if (!/^"|[\n\r]/.test(path)) return path
  return `"${path.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`
}

async function isRegularFile(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined)
  return info?.isFile() ?? false
}
