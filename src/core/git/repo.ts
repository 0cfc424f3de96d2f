import { stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { UsageError } from '../errors.js'
import { confineTo } from '../store/confine.js'
import { GitError, runGit, streamGit, type GitRun } from './command.js'

export type ObjectFormat = 'sha1' | 'sha256'

export interface Head {
  /** null in a repository without any commit yet. */
  commit: string | null
  /** HEAD's tree; the empty tree when there is no commit, so a first index has something to diff against. */
  tree: string
  /** Short branch name (`main`); null when detached. */
  branch: string | null
  detached: boolean
}

export interface Repo {
  /** Working tree top level; null for a bare repository. */
  root: string | null
  /** This worktree's git dir (`.git`, or `.git/worktrees/<name>` for a linked worktree). */
  gitDir: string
  /** Shared object/ref store; equals gitDir except in linked worktrees. */
  commonDir: string
  isBare: boolean
  /** A worktree made by `git worktree add` (not the main one). */
  isWorktree: boolean
  /**
   * Where `.vlt/` lives: `<root>/.vlt` in every working tree, linked ones included, because the index
   * follows that worktree's HEAD and uncommitted files and two worktrees must not race on one manifest;
   * `<gitDir>/vlt` for a bare repository, which has no working tree to hold it.
   */
  vltDir: string
  head: Head
  objectFormat: ObjectFormat
}

/** Finds the repository containing `cwd` (any subdirectory, bare, empty, detached, linked worktree, $GIT_DIR). */
export async function openRepo(cwd: string): Promise<Repo> {
  const dir = resolve(cwd)
  await requireDirectory(dir)
  // Layout and HEAD are independent questions: ask them concurrently, judge failures by the layout.
  const branch = readBranch(dir)
  const head = readHeadObjects(dir)
  branch.catch(() => {})
  head.catch(() => {})
  const location = locationOf(await readLayout(dir))
  const [ref, objects] = await Promise.all([branch, head])
  const commit = objects?.commit ?? null
  const tree = objects?.tree ?? (await emptyTree(dir))
  return { ...location, head: { commit, tree, branch: ref === null ? null : ref.replace(/^refs\/heads\//, ''), detached: ref === null } }
}

/** A repository's folders, without its HEAD. */
export type RepoLocation = Omit<Repo, 'head'>

/**
 * Where the repository containing `cwd` lives, as openRepo finds it, without asking git about
 * HEAD: one git process instead of three, for a caller that needs only its folders (the query
 * daemon's client, on every query).
 */
export async function locateRepo(cwd: string): Promise<RepoLocation> {
  const dir = resolve(cwd)
  await requireDirectory(dir)
  return locationOf(await readLayout(dir))
}

function locationOf(layout: Layout): RepoLocation {
  const { root } = layout
  const vltDir = root === null ? join(layout.gitDir, 'vlt') : join(root, '.vlt')
  // Whatever is done under it later is confined to it (see store/confine.ts).
  confineTo(vltDir)
  return { root, gitDir: layout.gitDir, commonDir: layout.commonDir, isBare: layout.isBare, isWorktree: layout.gitDir !== layout.commonDir, vltDir, objectFormat: layout.objectFormat }
}

/** Runs git bound to this repository, whatever the process's cwd or $GIT_DIR. */
export function runInRepo(repo: Repo, args: readonly string[], run: Omit<GitRun, 'cwd'> = {}): Promise<Buffer> {
  return runGit([...repoOptions(repo), ...args], { ...run, cwd: repo.root ?? repo.gitDir })
}

/** streamGit bound to this repository. */
export function streamInRepo(repo: Repo, args: readonly string[], onData: (chunk: Buffer) => void, run: Omit<GitRun, 'cwd'> = {}): Promise<void> {
  return streamGit([...repoOptions(repo), ...args], { ...run, cwd: repo.root ?? repo.gitDir }, onData)
}

export function repoOptions(repo: Repo): string[] {
  return repo.root === null ? [`--git-dir=${repo.gitDir}`] : [`--git-dir=${repo.gitDir}`, `--work-tree=${repo.root}`]
}

interface Layout {
  root: string | null
  gitDir: string
  commonDir: string
  isBare: boolean
  objectFormat: ObjectFormat
}

const LAYOUT = ['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir', '--is-bare-repository', '--show-object-format']

async function readLayout(dir: string): Promise<Layout> {
  let lines: string[]
  try {
    lines = await revParse([...LAYOUT, '--show-toplevel'], dir)
  } catch (error) {
    // Bare repositories (and the inside of .git) have no top level: ask again without it.
    if (!(error instanceof GitError) || !/must be run in a work tree/.test(error.stderr)) throw error
    lines = await revParse(LAYOUT, dir)
  }
  const [gitDir, commonDir, bare, format, root] = lines
  if (!gitDir?.startsWith('/') || !commonDir?.startsWith('/')) throw new UsageError('git vlt needs git 2.31 or newer (rev-parse --path-format)')
  if (format !== 'sha1' && format !== 'sha256') throw new UsageError(`unsupported git object format: ${format}`)
  const isBare = bare === 'true'
  if (!isBare && !root) throw new UsageError(`${dir} is inside a git directory — run git vlt in the working tree`)
  return { root: isBare ? null : root!, gitDir, commonDir, isBare, objectFormat: format }
}

async function revParse(args: string[], dir: string): Promise<string[]> {
  try {
    return (await runGit(args, { cwd: dir })).toString('utf8').split('\n')
  } catch (error) {
    if (error instanceof GitError && /not a git repository/.test(error.stderr)) throw notARepository(dir)
    throw error
  }
}

function notARepository(dir: string): UsageError {
  const gitDir = process.env.GIT_DIR
  if (gitDir) return new UsageError(`not a git repository: GIT_DIR=${gitDir} (from the environment) — unset it or point it at a repository`)
  return new UsageError(`not a git repository (or any parent up to /): ${dir} — run git vlt inside a git repository`)
}

async function requireDirectory(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined)
  if (!info?.isDirectory()) throw new UsageError(`not a directory: ${dir}`)
}

/** The full ref HEAD points at, or null when detached. */
async function readBranch(dir: string): Promise<string | null> {
  try {
    return (await runGit(['symbolic-ref', '-q', 'HEAD'], { cwd: dir })).toString('utf8').trim()
  } catch (error) {
    if (error instanceof GitError && error.status === 1) return null
    throw error
  }
}

/** HEAD's commit and tree in one process; undefined when HEAD is unborn. */
async function readHeadObjects(dir: string): Promise<{ commit: string; tree: string } | undefined> {
  const out = await runGit(['cat-file', '--batch-check=%(objectname)'], { cwd: dir, input: 'HEAD^{commit}\nHEAD^{tree}\n' })
  const [commit, tree] = out.toString('utf8').split('\n')
  if (!commit || !tree || commit.endsWith(' missing') || tree.endsWith(' missing')) return undefined
  return { commit, tree }
}

/** Asked of git rather than hard-coded so SHA-256 repositories get their own empty tree. */
async function emptyTree(dir: string): Promise<string> {
  return (await runGit(['hash-object', '-t', 'tree', '--stdin'], { cwd: dir, input: '' })).toString('utf8').trim()
}
