import { UsageError } from '../errors.js'
import { runInRepo, type Repo } from './repo.js'

/** A regular or executable file of a tree: the only entries that carry indexable content. */
export interface TreeEntry {
  path: string
  /** '100644' or '100755'. */
  mode: string
  blob: string
  /** Bytes, from the object header (no content read). */
  size: number
}

export interface TreeChange {
  /** A added, M modified, D deleted, T type changed (file <-> symlink/submodule: look at the modes). */
  status: 'A' | 'M' | 'D' | 'T'
  path: string
  /** null on the side where the path does not exist. */
  oldBlob: string | null
  newBlob: string | null
  oldMode: string | null
  newMode: string | null
}

export interface LineCounts {
  path: string
  /** null for binary files, which git does not count in lines. */
  added: number | null
  deleted: number | null
}

const NUL = 0
const TAB = 9

/** Regular file (100644) or executable (100755): not a symlink (120000), gitlink (160000) or tree. */
export function isFileMode(mode: string | null): boolean {
  return mode !== null && mode.startsWith('100')
}

/**
 * Every file of a tree, recursively, with blob hashes and sizes. Symlinks are left out (their content is a
 * path, not code) and so are submodules (their content lives in another repository).
 */
export async function listTree(repo: Repo, treeish: string): Promise<TreeEntry[]> {
  return (await listTreeAndSubmodules(repo, treeish)).files
}

/** listTree, and the paths of the tree's submodules (gitlinks, mode 160000), which the index reports as skipped. */
export async function listTreeAndSubmodules(repo: Repo, treeish: string): Promise<{ files: TreeEntry[]; submodules: string[] }> {
  const out = await runInRepo(repo, ['ls-tree', '-r', '-l', '-z', '--full-tree', revision(treeish)])
  const files: TreeEntry[] = []
  const submodules: string[] = []
  let start = 0
  while (start < out.length) {
    const end = out.indexOf(NUL, start)
    const tab = out.indexOf(TAB, start)
    // "<mode> SP <type> SP <object> SP+ <size> TAB <path>"; '1','0','0' opens every file mode, '1','6' a gitlink.
    if (out[start] === 0x31 && out[start + 1] === 0x30 && out[start + 2] === 0x30) {
      const header = out.toString('latin1', start, tab)
      const blobStart = header.indexOf(' ', 7) + 1
      const blobEnd = header.indexOf(' ', blobStart)
      files.push({
        path: out.toString('utf8', tab + 1, end),
        mode: header.slice(0, 6),
        blob: header.slice(blobStart, blobEnd),
        size: Number(header.slice(blobEnd + 1)),
      })
    } else if (out[start] === 0x31 && out[start + 1] === 0x36) {
      submodules.push(out.toString('utf8', tab + 1, end))
    }
    start = end + 1
  }
  return { files, submodules }
}

/**
 * What changed between two trees, recursively. Renames are a delete plus an add because everything is keyed
 * by blob; changes where neither side is a file (symlink edits, submodule bumps) are left out.
 */
export async function diffTrees(repo: Repo, oldTree: string, newTree: string): Promise<TreeChange[]> {
  const out = await runInRepo(repo, ['diff-tree', '-r', '-z', '--no-renames', '--no-commit-id', revision(oldTree), revision(newTree)])
  const changes: TreeChange[] = []
  let start = 0
  while (start < out.length) {
    // ":<old mode> <new mode> <old oid> <new oid> <status>" NUL "<path>" NUL
    const headerEnd = out.indexOf(NUL, start)
    const pathEnd = out.indexOf(NUL, headerEnd + 1)
    const [oldMode, newMode, oldBlob, newBlob, status] = out.toString('latin1', start + 1, headerEnd).split(' ') as [string, string, string, string, string]
    start = pathEnd + 1
    if (!isFileMode(oldMode) && !isFileMode(newMode)) continue
    if (status !== 'A' && status !== 'M' && status !== 'D' && status !== 'T') throw new Error(`unexpected diff-tree status ${status}`)
    const added = status === 'A'
    const deleted = status === 'D'
    changes.push({
      status,
      path: out.toString('utf8', headerEnd + 1, pathEnd),
      oldBlob: added ? null : oldBlob,
      newBlob: deleted ? null : newBlob,
      oldMode: added ? null : oldMode,
      newMode: deleted ? null : newMode,
    })
  }
  return changes
}

/**
 * Lines added and deleted per changed path. Apart from diffTrees because it reads and diffs every changed
 * blob: ask only when line counts matter.
 */
export async function diffNumstat(repo: Repo, oldTree: string, newTree: string): Promise<LineCounts[]> {
  const out = await runInRepo(repo, ['diff-tree', '-r', '-z', '--no-renames', '--no-commit-id', '--numstat', revision(oldTree), revision(newTree)])
  const counts: LineCounts[] = []
  let start = 0
  while (start < out.length) {
    // "<added> TAB <deleted> TAB <path>" NUL, '-' for binary
    const end = out.indexOf(NUL, start)
    const firstTab = out.indexOf(TAB, start)
    const secondTab = out.indexOf(TAB, firstTab + 1)
    const added = out.toString('latin1', start, firstTab)
    const deleted = out.toString('latin1', firstTab + 1, secondTab)
    counts.push({
      path: out.toString('utf8', secondTab + 1, end),
      added: added === '-' ? null : Number(added),
      deleted: deleted === '-' ? null : Number(deleted),
    })
    start = end + 1
  }
  return counts
}

/** Keeps a caller's revision from being read as an option. */
function revision(treeish: string): string {
  if (treeish === '' || treeish.startsWith('-')) throw new UsageError(`not a revision: ${JSON.stringify(treeish)}`)
  return treeish
}
