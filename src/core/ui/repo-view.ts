/**
 * What the code viewer shows: a file of the working tree, the blame of a range, a commit's message
 * and diff. Every path comes from a browser, so from a page that may be hostile: it is resolved
 * inside the repository (no `..`, absolute path or symbolic link out), must be a file git shows
 * (tracked, or untracked and not ignored), never a credentials file by name, and its text passes
 * the index's own content check — binary and oversized files are refused, a private key or a file
 * made mostly of credentials is refused, any other credential is redacted in place.
 */
import { lstat, readFile, realpath } from 'node:fs/promises'
import { join, sep } from 'node:path'
import type { VltConfig } from '../config/index.js'
import { classifyContent, createFileSelector, redactSecrets, resolveInRepo } from '../files/index.js'
import { runInRepo, shallowBoundary, type Repo } from '../git/index.js'
import { blameRange, openGit, type BlameLine } from '../git/index.js'
import { languageForPath } from '../parse/languages.js'
import { UiRefusal } from './errors.js'

export interface FileView {
  path: string
  /** The parser's language id, or null for a file in none of them. */
  language: string | null
  text: string
}

export async function readRepoFile(repo: Repo, config: VltConfig, input: string): Promise<FileView> {
  const root = workingTree(repo)
  const path = resolveInRepo(root, input, 'path')
  if (path === '' || path === '.git' || path.startsWith('.git/')) throw new UiRefusal(404, `${JSON.stringify(input)} is not a file of the repository`)
  const selection = createFileSelector(config)(path)
  if (!selection.selected && selection.reason === 'secret') throw new UiRefusal(403, `${path} holds credentials by its name: never shown`)
  const absolute = join(root, path)
  const stat = await lstat(absolute).catch(() => null)
  if (!stat?.isFile()) throw new UiRefusal(404, `${path}: no such file in the working tree`)
  // resolveInRepo follows links in the folders; the file itself must be inside too once resolved.
  const realRoot = await realpath(root)
  if (!(await realpath(absolute)).startsWith(realRoot + sep)) throw new UiRefusal(403, `${path} resolves outside the repository`)
  if (!(await gitShows(repo, path))) throw new UiRefusal(404, `${path} is not tracked by git (or is ignored)`)
  const content = classifyContent(await readFile(absolute), config.index.maxFileBytes)
  if (!content.ok) throw new UiRefusal(content.reason === 'secret' ? 403 : 415, `${path} is not shown: ${SKIP_REASONS[content.reason]}`)
  return { path, language: languageForPath(path) ?? null, text: content.text }
}

const SKIP_REASONS = {
  binary: 'a binary file',
  tooLarge: 'larger than [index] max_file_bytes',
  minified: 'minified',
  invalidUtf8: 'not UTF-8 text',
  secret: 'it holds credentials',
} as const

async function gitShows(repo: Repo, path: string): Promise<boolean> {
  const listed = await runInRepo(repo, ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', `:(literal)${path}`])
  return listed.length > 0
}

export async function blameLines(repo: Repo, config: VltConfig, input: string, start: number, end: number): Promise<BlameLine[]> {
  // The same checks as showing the file: blame quotes nothing, but names what exists.
  const file = await readRepoFile(repo, config, input)
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start) throw new UiRefusal(400, `lines ${start}-${end} are not a range`)
  const last = file.text.split('\n').length
  try {
    return await blameRange(openGit(workingTree(repo)), file.path, Math.min(start, last), Math.min(end, last), shallowBoundary(repo))
  } catch {
    // A file not committed yet has no blame.
    return []
  }
}

export interface CommitView {
  hash: string
  author: string
  date: string
  message: string
  /** The patch, credentials redacted; cut at MAX_DIFF_CHARS. */
  diff: string
  truncated: boolean
  /** A shallow clone's boundary commit: its diff holds all the history before it. */
  boundary: boolean
}

const MAX_DIFF_CHARS = 400_000
const HASH = /^[0-9a-f]{4,64}$/

export async function readCommit(repo: Repo, input: string): Promise<CommitView> {
  if (!HASH.test(input)) throw new UiRefusal(400, `${JSON.stringify(input)} is not a commit hash`)
  let raw: string
  try {
    // %x00 between fields: a message may hold anything but NUL.
    const args = ['show', '--no-color', '--no-ext-diff', '--no-textconv', '--format=%H%x00%an%x00%aI%x00%B%x00', '--patch', '--stat', `${input}^{commit}`, '--']
    raw = (await runInRepo(repo, args)).toString('utf8')
  } catch {
    throw new UiRefusal(404, `no commit ${input} in this repository`)
  }
  const [hash = '', author = '', date = '', message = '', ...rest] = raw.split('\0')
  // --stat and --patch print the stat after a '---' line, then the patch.
  const patch = rest.join('\0').replace(/^\n?(?:---\n)?/, '')
  const truncated = patch.length > MAX_DIFF_CHARS
  return {
    hash,
    author,
    date,
    message: redactSecrets(message.trim()).text,
    diff: redactSecrets(truncated ? patch.slice(0, MAX_DIFF_CHARS) : patch).text,
    truncated,
    boundary: shallowBoundary(repo).has(hash),
  }
}

export function workingTree(repo: Repo): string {
  if (repo.root === null) throw new UiRefusal(400, 'a bare repository has no working tree to show')
  return repo.root
}
