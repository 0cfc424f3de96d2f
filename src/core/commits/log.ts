/**
 * Reading commits out of git: one `git log` process for any number of commits, streamed and
 * parsed as it comes. Each commit arrives as its header (hash, author date, author, message), its
 * raw changes (`--raw -M -z`: status and paths, renames detected) and its patch with zero context
 * (`-p -U0`), of which only the hunk headers are kept: git writes there the function each hunk
 * falls in, found with its language-aware patterns (selected for our languages through an
 * attributes file, see DIFF_ATTRIBUTES). The patch's content lines are skipped by the line counts
 * of their hunk header, never interpreted.
 *
 * One process measured cheaper than two (raw changes and hunks apart, in parallel): on scrapy's
 * 9,300 non-merge commits 3.5-4.1 CPU-s against 4.2-4.7.
 *
 * Only a patch that can carry a function name is asked for. git names the function from the lines
 * before a hunk in the old file, and an added or deleted file's one hunk starts at its first line
 * (`@@ -0,0 +1,N @@`, `@@ -1,N +0,0 @@`): nothing precedes it. So a deleted file's patch is left out
 * (`--irreversible-delete`: its header stays, so sections still pair with raw changes, and its blob
 * is not even read), and a root commit, every file of which is added, is read without a patch: one
 * commit adding Linux 10k's 10,000 files was 150 MB of patch, 1.3 CPU-s of git and 0.5 of parsing.
 */
import { streamInRepo, type Repo } from '../git/index.js'
import { readFileConfined, writeFileAtomic } from '../store/index.js'
import { languageForPath, languagePatterns, type ParsedLanguageId } from '../parse/languages.js'
import { MAX_BODY_CHARS, MAX_SYMBOLS_PER_FILE, type CommitFile, type ParsedCommit } from './types.js'

/**
 * git's function-pattern driver (userdiff) for each of our languages: git's own where its pattern
 * finds what a hunk is in, ours for JavaScript and TypeScript, which git has none for, and git's
 * default (a line that starts with a letter, `_` or `$`) for C and C++, whose definitions start at
 * the first column: the cpp driver's regular expression, run on every line back to the function,
 * cost 3.6 of redis's 13 CPU-s of `git log` and named the same function in 98.6 % of hunks (it
 * differs at goto labels).
 */
const DIFF_DRIVERS: Record<ParsedLanguageId, string | undefined> = {
  python: 'python',
  typescript: 'vltecma',
  tsx: 'vltecma',
  javascript: 'vltecma',
  go: 'golang',
  rust: 'rust',
  java: 'java',
  ruby: 'ruby',
  c: undefined,
  cpp: undefined,
}

/**
 * The attributes file: no patch for any file we read no hunk names of (`-diff`: git prints
 * "Binary files differ" without reading the blobs, 1.8 of redis's 13 CPU-s went to its tests and
 * documents), each of our languages with its driver. A repository's own .gitattributes still takes
 * precedence.
 */
export const DIFF_ATTRIBUTES = [
  "# Written by git-vlt: which files' hunk headers the commit index reads, with git's function patterns.",
  '* -diff',
  ...languagePatterns().map(([pattern, language]) => `${pattern} ${DIFF_DRIVERS[language] ? `diff=${DIFF_DRIVERS[language]}` : 'diff'}`),
  '',
].join('\n')

/** Top-level declarations and class members at one indentation step (the usual formatting). */
export const ECMA_FUNCNAME = [
  '^((export[ \t]+)?(default[ \t]+)?(declare[ \t]+)?(abstract[ \t]+)?(async[ \t]+)?(function[ \t*]|class[ \t]|interface[ \t]|enum[ \t]|namespace[ \t]|type[ \t]|const[ \t]|let[ \t]).*)$',
  '^[ \t]{1,4}((public|private|protected|static|readonly|async|override|get|set)[ \t]+)*[A-Za-z_$#][A-Za-z0-9_$]*[ \t]*(<[^>]*>)?\\(.*$',
].join('\n')

export interface LogOptions {
  /** Where the attributes file lives (written when missing or different). */
  attributesFile: string
  /** Called for every commit, in git's output order. */
  onCommit: (commit: ParsedCommit) => void
}

/**
 * What one read brings in: the commits a walk of `revisions` reaches (`HEAD`, `B ^A`), in git's
 * order; or the commits `listed`, in that order, of which `roots` have no parent (a root commit,
 * or a shallow clone's boundary).
 */
export type CommitSelection = { revisions: readonly string[] } | { listed: readonly string[]; roots: ReadonlySet<string> }

/**
 * Streams the selected commits through onCommit. Merges are left out: their change is their
 * branch's commits, which are indexed themselves.
 */
export async function readCommits(repo: Repo, selection: CommitSelection, opts: LogOptions): Promise<void> {
  await ensureAttributesFile(opts.attributesFile)
  if ('revisions' in selection) return runLog(repo, opts, { patch: true, revisions: selection.revisions })
  const { listed, roots } = selection
  const parentless = listed.filter((hash) => roots.has(hash))
  if (parentless.length === 0) return runLog(repo, opts, { patch: true, listed })
  // Roots first (no patch: a small read), then the rest, each root handed over at its place in the list.
  const rootCommits = new Map<string, ParsedCommit>()
  await runLog(repo, { ...opts, onCommit: (commit) => rootCommits.set(commit.hash, commit) }, { patch: false, listed: parentless })
  let next = 0
  const handOverUpTo = (hash: string | undefined): void => {
    for (; next < listed.length && listed[next] !== hash; next++) {
      const root = rootCommits.get(listed[next]!)
      if (root) opts.onCommit(root)
    }
    next++
  }
  const afterItsRoots = (commit: ParsedCommit): void => {
    handOverUpTo(commit.hash)
    opts.onCommit(commit)
  }
  const others = listed.filter((hash) => !roots.has(hash))
  if (others.length > 0) await runLog(repo, { ...opts, onCommit: afterItsRoots }, { patch: true, listed: others })
  handOverUpTo(undefined)
}

/** One `git log` over a walk or a list of commits (read with --no-walk from stdin), with or without the patch. */
async function runLog(repo: Repo, opts: LogOptions, read: { patch: boolean } & ({ revisions: readonly string[] } | { listed: readonly string[] })): Promise<void> {
  const args = [
    '-c', `core.attributesFile=${opts.attributesFile}`,
    '-c', `diff.vltecma.xfuncname=${ECMA_FUNCNAME}`,
    '-c', 'core.quotePath=false',
    'log', '--no-merges', '-z', '--no-color', '--no-textconv', '--no-ext-diff', '--no-abbrev',
    // %x1e opens a commit; the message comes last since it may hold any character but NUL.
    '--format=%x1e%H%x1f%at%x1f%an%x1f%B',
    '--raw', '-M',
    ...(read.patch ? ['-p', '-U0', '--irreversible-delete'] : []),
  ]
  let input: string | undefined
  if ('listed' in read) {
    args.push('--no-walk=unsorted', '--stdin')
    input = `${read.listed.join('\n')}\n`
  } else {
    args.push(...read.revisions)
  }
  args.push('--')
  const parser = new LogParser(opts.onCommit)
  await streamInRepo(repo, args, (chunk) => parser.push(chunk), input === undefined ? {} : { input })
  parser.end()
}

/** Written when missing or different (not durably: a torn file only costs hunk names until the next run rewrites it). */
async function ensureAttributesFile(path: string): Promise<void> {
  if ((await readFileConfined(path))?.toString('utf8') === DIFF_ATTRIBUTES) return
  await writeFileAtomic(path, Buffer.from(DIFF_ATTRIBUTES), { durable: false })
}

const NUL = 0
const LF = 10
const RS = 0x1e
const COLON = 0x3a
const PLUS = 0x2b
const MINUS = 0x2d
const BACKSLASH = 0x5c

/** What the parser is in the middle of. */
const enum State {
  /** Between units: a header (RS), a raw change (':'), a patch line, or separators. */
  Start,
  /** A commit header, up to NUL. */
  Header,
  /** A raw change's "modes blobs status", up to NUL, then its path(s). */
  RawMeta,
  RawPath,
  /** A patch line worth reading (diff --git, @@), up to LF. */
  PatchLine,
  /** A patch content line (or any line not worth reading), skipped up to LF. */
  SkipLine,
}

interface Pending {
  commit: ParsedCommit
  /** The patch section the parser is in. */
  section: number
  /**
   * The file (index in commit.files) of each patch section: raw changes and sections come in the
   * same order, one section each, but two for a file that changes type (a symlink that becomes a
   * file: git shows its deletion, then its creation).
   */
  sectionFiles: number[]
  /** By file index. */
  symbols: Array<Set<string> | undefined>
}

/**
 * The parser of the stream readCommits asks for. Header and raw parts are NUL-delimited, the patch
 * LF-delimited; a part split across chunks is collected in `parts` until its delimiter arrives.
 */
class LogParser {
  private state = State.Start
  private parts: Buffer[] = []
  private pending: Pending | undefined
  private inPatch = false
  /** Raw change waiting for its paths: status, how many paths it has, and how many patch sections. */
  private raw: { status: CommitFile['status']; paths: string[]; want: number; sections: number } | undefined
  /** Content lines left in the current hunk. */
  private contentLeft = 0

  constructor(private readonly onCommit: (commit: ParsedCommit) => void) {}

  push(chunk: Buffer): void {
    let at = 0
    const n = chunk.length
    while (at < n) {
      switch (this.state) {
        case State.Start: {
          const byte = chunk[at]!
          if (byte === LF || byte === NUL) {
            at++
          } else if (byte === RS) {
            this.state = State.Header
            at++
          } else if (byte === COLON && !this.inPatch) {
            this.state = State.RawMeta
            at++
          } else {
            this.inPatch = true
            if (this.contentLeft > 0 && (byte === PLUS || byte === MINUS)) {
              this.contentLeft--
              this.state = State.SkipLine
            } else if (byte === BACKSLASH) {
              // "\ No newline at end of file" inside a hunk.
              this.state = State.SkipLine
            } else {
              this.contentLeft = 0
              this.state = byte === 0x64 /* d */ || byte === 0x40 /* @ */ ? State.PatchLine : State.SkipLine
            }
          }
          break
        }
        case State.SkipLine: {
          const end = chunk.indexOf(LF, at)
          if (end < 0) return
          at = end + 1
          this.state = State.Start
          break
        }
        default: {
          const delimiter = this.state === State.PatchLine ? LF : NUL
          const end = chunk.indexOf(delimiter, at)
          if (end < 0) {
            this.parts.push(chunk.subarray(at))
            return
          }
          let part = chunk.subarray(at, end)
          if (this.parts.length > 0) {
            this.parts.push(part)
            part = Buffer.concat(this.parts)
            this.parts = []
          }
          at = end + 1
          const state = this.state
          this.state = State.Start
          this.take(state, part)
        }
      }
    }
  }

  /** Hands over the last commit. */
  end(): void {
    this.flush()
  }

  private take(state: State, part: Buffer): void {
    if (state === State.Header) this.header(part.toString('utf8'))
    else if (state === State.RawMeta) this.rawMeta(part.toString('latin1'))
    else if (state === State.RawPath) this.rawPath(part.toString('utf8'))
    else this.patchLine(part.toString('utf8'))
  }

  private header(text: string): void {
    this.flush()
    const fields: string[] = []
    let from = 0
    for (let i = 0; i < 3; i++) {
      const sep = text.indexOf('\x1f', from)
      if (sep < 0) return
      fields.push(text.slice(from, sep))
      from = sep + 1
    }
    const [hash, time, author] = fields as [string, string, string]
    const { subject, body } = splitMessage(text.slice(from))
    this.pending = { commit: { hash, time: Number(time) || 0, author, subject, body, files: [] }, section: -1, sectionFiles: [], symbols: [] }
    this.inPatch = false
    this.contentLeft = 0
  }

  /** ":100644 100644 <blob> <blob> R087": the modes come first, the status letter follows the last space. */
  private rawMeta(meta: string): void {
    const letter = meta.slice(meta.lastIndexOf(' ') + 1, meta.lastIndexOf(' ') + 2)
    const status = (STATUSES.has(letter) ? letter : 'M') as CommitFile['status']
    const [before = 0, after = 0] = meta.split(' ', 2).map((mode) => Number.parseInt(mode, 8) & S_IFMT)
    // git splits a pair whose file type changed (both sides present) into a deletion and a creation.
    const sections = before !== 0 && after !== 0 && before !== after ? 2 : 1
    this.raw = { status, paths: [], want: status === 'R' || status === 'C' ? 2 : 1, sections }
    this.state = State.RawPath
  }

  private rawPath(path: string): void {
    const raw = this.raw
    if (!raw) return
    raw.paths.push(path)
    if (raw.paths.length < raw.want) {
      this.state = State.RawPath
      return
    }
    this.raw = undefined
    const file: CommitFile = raw.want === 2 ? { status: raw.status, path: raw.paths[1]!, from: raw.paths[0]! } : { status: raw.status, path: raw.paths[0]! }
    const pending = this.pending
    if (!pending) return
    const index = pending.commit.files.push(file) - 1
    for (let i = 0; i < raw.sections; i++) pending.sectionFiles.push(index)
  }

  private patchLine(line: string): void {
    const pending = this.pending
    if (!pending) return
    if (line.startsWith('diff --git ')) {
      pending.section++
      return
    }
    if (!line.startsWith('@@ ')) return
    const close = line.indexOf(' @@', 3)
    if (close < 0) return
    const counts = /^-\d+(?:,(\d+))? \+\d+(?:,(\d+))?$/.exec(line.slice(3, close))
    if (!counts) return
    this.contentLeft = Number(counts[1] ?? 1) + Number(counts[2] ?? 1)
    const at = pending.sectionFiles[pending.section]
    if (at === undefined) return
    const file = pending.commit.files[at]
    if (!file || !languageForPath(file.path)) return
    const name = symbolOf(line.slice(close + 3).trim())
    if (!name) return
    const seen = (pending.symbols[at] ??= new Set())
    if (seen.size < MAX_SYMBOLS_PER_FILE) seen.add(name)
  }

  private flush(): void {
    const pending = this.pending
    if (!pending) return
    this.pending = undefined
    pending.symbols.forEach((names, i) => {
      const file = pending.commit.files[i]
      if (names && file && names.size > 0) file.symbols = [...names]
    })
    this.onCommit(pending.commit)
  }
}

const STATUSES = new Set(['A', 'M', 'D', 'R', 'C', 'T'])
/** The file-type bits of a git mode (regular file, symlink, submodule). */
const S_IFMT = 0o170000

/** Subject as git's %s (the first paragraph on one line), body the rest. */
function splitMessage(message: string): { subject: string; body: string } {
  const text = message.replace(/\r\n/g, '\n').trim()
  const blank = text.search(/\n[ \t]*\n/)
  const first = blank < 0 ? text : text.slice(0, blank)
  const rest = blank < 0 ? '' : text.slice(blank).trim()
  return { subject: first.split('\n').map((line) => line.trim()).join(' '), body: rest.length > MAX_BODY_CHARS ? rest.slice(0, MAX_BODY_CHARS) : rest }
}

/** Declaration keywords after which the declared name follows. */
const DECLARATION = /\b(?:def|class|function\*?|fn|func|struct|enum|trait|union|interface|module|namespace|type|impl(?:<[^>]*>)?|macro_rules!|const|let|var)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)/
const CALL_SHAPED = /([A-Za-z_$][\w$]*)\s*(?:<[^>()]*>)?\s*\(/
const NOT_NAMES = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function', 'with', 'elif', 'unless', 'until', 'sizeof', 'new', 'await', 'typeof'])

/**
 * The name a hunk header's function line declares: after a declaration keyword (`def name`,
 * `func (r *T) Name`, `impl Trait`), else the identifier before the first parenthesis (C, Java,
 * methods), else nothing (a bare label, a heading).
 */
export function symbolOf(funcname: string): string | undefined {
  if (funcname === '') return undefined
  const declaration = DECLARATION.exec(funcname)
  const paren = funcname.indexOf('(')
  // A keyword inside the parameters (`int f(struct s *p)`) declares nothing here.
  const declared = declaration && (paren < 0 || declaration.index < paren) ? declaration[1] : undefined
  if (declared && !NOT_NAMES.has(declared)) return declared
  const called = CALL_SHAPED.exec(funcname)?.[1]
  return called && !NOT_NAMES.has(called) ? called : undefined
}
