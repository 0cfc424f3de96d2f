/**
 * The history of lines and symbols through simple-git: who last changed a range (blame), the
 * commits that touched a symbol (pickaxe), a range (`log -L`) or whose messages hold some words
 * (`--grep`), with their messages. Shared by the oracle's evidence and the git tools agents call.
 */
import { simpleGit, type SimpleGit } from 'simple-git'

export interface BlameLine {
  commit: string
  author: string
  date: string
  subject: string
  /** Lines of the range this commit last changed. */
  lines: number
  /**
   * A shallow clone's boundary commit (git/shallow.ts): history stops there, so git credits it with
   * every older line. The lines were written at or before it, by someone unknown: not its authorship.
   */
  boundary: boolean
}

export interface Commit {
  hash: string
  author: string
  date: string
  subject: string
  body: string
  files: string[]
  /** A shallow clone's boundary commit: its diff holds all the history before it (see BlameLine). */
  boundary: boolean
}

/** Git output that stops for this long is abandoned (a pickaxe over a huge history). */
const BLOCK_TIMEOUT_MS = 5000
const MAX_COMMITS = 10
const NOT_COMMITTED = /^0+$/

export function openGit(root: string): SimpleGit {
  return simpleGit({ baseDir: root, timeout: { block: BLOCK_TIMEOUT_MS } })
}

/**
 * The commits that last changed lines start..end of `path`, most lines first; `boundary` holds a
 * shallow clone's boundary commits (porcelain's own `boundary` mark also tags a complete
 * repository's root commit, whose authorship is real).
 */
export async function blameRange(git: SimpleGit, path: string, start: number, end: number, boundary: ReadonlySet<string>): Promise<BlameLine[]> {
  const output = await git.raw(['blame', '--porcelain', '-L', `${start},${end}`, '--', path])
  const commits = new Map<string, BlameLine>()
  let current: BlameLine | undefined
  for (const line of output.split('\n')) {
    const header = /^([0-9a-f]{40,64}) \d+ \d+/.exec(line)
    if (header) {
      const hash = header[1]!
      current = commits.get(hash)
      if (!current) commits.set(hash, (current = { commit: hash, author: '', date: '', subject: '', lines: 0, boundary: boundary.has(hash) }))
      current.lines++
    } else if (current && line.startsWith('author ')) current.author = line.slice(7)
    else if (current && line.startsWith('author-time ')) current.date = new Date(Number(line.slice(12)) * 1000).toISOString().slice(0, 10)
    else if (current && line.startsWith('summary ')) current.subject = line.slice(8)
  }
  return [...commits.values()].filter((c) => !NOT_COMMITTED.test(c.commit)).sort((a, b) => b.lines - a.lines)
}

const FORMAT = '--format=%x1e%H%x1f%an%x1f%aI%x1f%s%x1f%b%x1f'

function parseLog(output: string, boundary: ReadonlySet<string>): Commit[] {
  const commits: Commit[] = []
  for (const record of output.split('\x1e').slice(1)) {
    const [hash, author, date, subject, body, rest] = record.split('\x1f')
    if (!hash || !/^[0-9a-f]{40,64}$/.test(hash)) continue
    const files = (rest ?? '').split('\n').map((f) => f.trim()).filter((f) => f !== '' && !/^(diff|@@|[-+ ]|index )/.test(f))
    commits.push({ hash, author: author ?? '', date: (date ?? '').slice(0, 10), subject: subject ?? '', body: (body ?? '').trim(), files, boundary: boundary.has(hash) })
  }
  return commits
}

/**
 * Commits whose diff adds or removes a line mentioning `symbol` (git log -G), newest first: unlike
 * -S, this finds a change to the symbol's value, which leaves its count of occurrences unchanged.
 * The name as a whole word: `parse_config` is not mentioned by a line naming `parse_config_file`.
 */
export async function pickaxe(git: SimpleGit, symbol: string, boundary: ReadonlySet<string>): Promise<Commit[]> {
  return parseLog(await git.raw(['log', '--no-merges', `-G${wholeWord(symbol)}`, '--name-only', FORMAT, `-n${MAX_COMMITS}`]), boundary)
}

/**
 * Commits that added or removed `symbol` (git log -S, the name as a whole word), newest first: those
 * that changed how often the code names it — where it was introduced, a use added or dropped, where
 * it went — which is what "when was X added, why was X changed" asks, with the definition's own
 * lines (lineHistory). Not -G's every commit that edited a line mentioning it: a caller's argument
 * changed is not a change to X. Past MAX_COMMITS, the newest are kept and the oldest, which
 * introduced the name, with them.
 */
export async function symbolChanges(git: SimpleGit, symbol: string, boundary: ReadonlySet<string>): Promise<Commit[]> {
  // A fixed string is searched many times faster than an expression (1 s against 27 s on click's
  // history): -S finds the commits that changed the name's count as text, and the whole-word test
  // runs on those alone — the newest and the oldest, which are all this returns.
  const text = (await git.raw(['log', '--no-merges', `-S${symbol}`, '--format=%H'])).split('\n').filter(Boolean)
  if (text.length === 0) return []
  const checked = text.length > VERIFIED ? [...text.slice(0, VERIFIED - OLDEST_VERIFIED), ...text.slice(-OLDEST_VERIFIED)] : text
  const commits = parseLog(await git.raw(['log', '--no-walk', `-S${wholeWord(symbol)}`, '--pickaxe-regex', '--name-only', FORMAT, ...checked]), boundary)
  return commits.length > MAX_COMMITS ? [...commits.slice(0, MAX_COMMITS - 1), commits.at(-1)!] : commits
}
/** Commits of a name's -S list checked as a whole word: the newest ones and the oldest few (where it was introduced). */
const VERIFIED = 40
const OLDEST_VERIFIED = 5

/** `symbol` as a POSIX extended expression matching it as a whole word (-G and -S compile no \b). */
function wholeWord(symbol: string): string {
  const name = symbol.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return `(^|[^A-Za-z0-9_$])${name}([^A-Za-z0-9_$]|$)`
}

/** Commits that changed lines start..end of `path`, following them back through history (and renames). */
export async function lineHistory(git: SimpleGit, path: string, start: number, end: number, boundary: ReadonlySet<string>): Promise<Commit[]> {
  const commits = parseLog(await git.raw(['log', '-L', `${start},${end}:${path}`, '--no-patch', FORMAT, `-n${MAX_COMMITS}`]), boundary)
  for (const commit of commits) if (commit.files.length === 0) commit.files = [path]
  return commits
}

/** Commits whose message mentions any of the words. */
export async function messageSearch(git: SimpleGit, words: readonly string[], boundary: ReadonlySet<string>): Promise<Commit[]> {
  if (words.length === 0) return []
  return parseLog(await git.raw(['log', '--no-merges', '-i', ...words.map((w) => `--grep=${w}`), '--name-only', FORMAT, '-n50']), boundary)
}

/** The newest `limit` commits, or those that changed `path` (followed through renames). */
export async function pathLog(git: SimpleGit, path: string | null, limit: number, boundary: ReadonlySet<string>): Promise<Commit[]> {
  const scope = path === null ? [] : ['--follow', '--', path]
  return parseLog(await git.raw(['log', '--no-merges', '--name-only', FORMAT, `-n${limit}`, ...scope]), boundary)
}

/**
 * One commit: its message and changed files, and the patch (of `path` only, when given). `rev` is
 * checked to name a commit first, so it can never be read as an option.
 */
export async function showCommit(git: SimpleGit, rev: string, path: string | null, boundary: ReadonlySet<string>): Promise<{ commit: Commit; patch: string } | null> {
  const hash = (await git.raw(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]).catch(() => '')).trim()
  if (!/^[0-9a-f]{40,64}$/.test(hash)) return null
  const [commit] = parseLog(await git.raw(['show', '-s', FORMAT, hash]), boundary)
  const files = await git.raw(['show', '--format=', '--name-only', hash])
  const patch = await git.raw(['show', '--format=', '--patch', '--no-color', hash, ...(path === null ? [] : ['--', path])])
  return { commit: { ...commit!, files: files.split('\n').filter(Boolean) }, patch }
}

export function commitText(commit: Commit): string {
  const files = commit.files.length > 0 ? `\nFiles: ${commit.files.slice(0, 20).join(', ')}${commit.files.length > 20 ? ', …' : ''}` : ''
  const shallow = commit.boundary ? `\n\n${BOUNDARY_NOTE}` : ''
  return `commit ${commit.hash}\nAuthor: ${commit.author}\nDate: ${commit.date}\n\n${commit.subject}${commit.body ? `\n\n${commit.body}` : ''}${shallow}${files}`
}

export const BOUNDARY_NOTE =
  '(A shallow clone boundary: history stops at this commit, so its diff holds all the history before it; it did not necessarily make this change.)'
