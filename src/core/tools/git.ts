/**
 * git_log, git_blame and git_show: the history behind the code — which commits changed a file, a
 * line range or a symbol, who last changed each line, and what one commit changed. Paths resolve
 * inside the repository; a revision must name a commit (it is never passed as an option); messages
 * and patches are redacted like indexed text; and every answer is cut to the output cap. In a
 * shallow clone, the boundary commits are marked: git credits them with all older history.
 */
import { z } from 'zod'
import { quotedName } from '../display/index.js'
import { UsageError } from '../errors.js'
import { redactSecrets, resolveInRepo } from '../files/index.js'
import { isSecretFile } from '../files/secret-names.js'
import { blameRange, BOUNDARY_NOTE, lineHistory, openGit, pathLog, pickaxe, shallowBoundary, showCommit, type Commit } from '../git/index.js'
import { findDefinitions } from '../query/def.js'
import { countTokens } from '../repomap/index.js'
import { currentFreshness, defineTool, freshnessSchema, READ_ONLY, type AnyToolSpec, type ToolEnv } from './kit.js'

const FRAME_TOKENS = 200
const DEFAULT_COMMITS = 10
const MAX_COMMITS = 50
/** Characters of a commit body shown in a log (the whole message is one git_show away). */
const BODY_CHARS = 600
/** A revision as a model may name one: a hash, or HEAD with ~n / ^n steps. */
const REVISION = /^(?:HEAD|[0-9a-fA-F]{4,64})(?:[~^]\d{0,4})*$/

const commitSchema = z.object({
  hash: z.string(),
  author: z.string(),
  date: z.string(),
  subject: z.string(),
  body: z.string(),
  files: z.array(z.string()),
  boundary: z.boolean().describe('A shallow clone boundary: history stops here, so git credits it with older changes.'),
})
const pathInput = z.string().min(1).max(500).describe('File path inside the repo.')

export function gitTools(env: ToolEnv): AnyToolSpec[] {
  const git = () => {
    if (env.index.repo.head.commit === null) throw new UsageError('the repository has no commits yet')
    return { git: openGit(env.index.root), boundary: shallowBoundary(env.index.repo) }
  }
  /** A path inside the repository and lines of it, or the definition of a symbol. */
  const rangeOf = async (args: { path?: string; start_line?: number; end_line?: number; symbol?: string }) => {
    if (args.symbol !== undefined) {
      const found = findDefinitions(await env.index.get(), args.symbol, { limit: 1 })
      const best = found.definitions[0]
      if (!best) throw new UsageError(`No definition of ${args.symbol}${found.suggestions?.length ? ` — did you mean ${found.suggestions.join(', ')}?` : ''}`)
      return { path: best.path, start: best.line, end: best.endLine }
    }
    if (args.path === undefined) return null
    const path = resolveInRepo(env.index.root, args.path, 'path')
    if (args.start_line === undefined) return { path, start: undefined, end: undefined }
    const end = args.end_line ?? args.start_line
    if (end < args.start_line) throw new UsageError(`end_line ${end} is before start_line ${args.start_line}`)
    return { path, start: args.start_line, end }
  }

  const gitLog = defineTool({
    name: 'git_log',
    title: 'Git log',
    description: 'Commits (messages, files) that changed a line range, a symbol\'s definition, a file, or the repository.',
    input: {
      path: pathInput.optional(),
      start_line: z.number().int().min(1).optional().describe('With path: only commits that changed these lines.'),
      end_line: z.number().int().min(1).optional(),
      symbol: z.string().min(1).max(500).optional().describe('The history of its definition\'s lines; with pickaxe, commits whose diff adds or removes a line naming it.'),
      pickaxe: z.boolean().optional().describe('With symbol: git log -G (every commit touching a line that names it) instead of the definition\'s lines.'),
      limit: z.number().int().min(1).max(MAX_COMMITS).optional().describe(`Default ${DEFAULT_COMMITS}.`),
    },
    output: { commits: z.array(commitSchema), note: z.string().optional(), freshness: freshnessSchema },
    annotations: READ_ONLY,
    run: async (args) => {
      const { git: g, boundary } = git()
      const limit = args.limit ?? DEFAULT_COMMITS
      let what: string
      let commits: Commit[]
      if (args.symbol !== undefined && args.pickaxe) {
        what = `commits whose diff names ${args.symbol}`
        commits = await pickaxe(g, args.symbol, boundary)
      } else {
        const range = await rangeOf(args)
        if (range === null) {
          what = 'latest commits'
          commits = await pathLog(g, null, limit, boundary)
        } else if (range.start === undefined) {
          what = `commits that changed ${quotedName(range.path)}`
          commits = await pathLog(g, range.path, limit, boundary)
        } else {
          what = `commits that changed ${quotedName(range.path)}:${range.start}-${range.end}${args.symbol ? ` (${args.symbol})` : ''}`
          commits = await lineHistory(g, range.path, range.start, range.end!, boundary)
        }
      }
      const shown = commits.slice(0, limit).map(redactCommit)
      const kept = fitCommits(shown, env.maxTokens)
      const note = kept < shown.length ? `Output capped: ${kept} of ${shown.length} commits; ask for a narrower range or fewer.` : undefined
      const list = shown.slice(0, kept)
      return {
        structured: { commits: list, ...(note ? { note } : {}), freshness: await currentFreshness(env) },
        text: [`${list.length} ${what}`, ...list.map(renderCommit), ...(note ? [note] : [])].join('\n\n'),
        remember: { summary: `${list.length} ${what}`, insights: [], symbols: args.symbol ? [args.symbol] : [], files: [...new Set(list.flatMap((c) => c.files))].slice(0, 3) },
      }
    },
  })

  const gitBlame = defineTool({
    name: 'git_blame',
    title: 'Git blame',
    description: 'Who last changed the lines of a range or of a symbol\'s definition: commits by lines changed.',
    input: {
      path: pathInput.optional(),
      start_line: z.number().int().min(1).optional(),
      end_line: z.number().int().min(1).optional(),
      symbol: z.string().min(1).max(500).optional().describe('Instead of path and lines: its definition.'),
    },
    output: {
      path: z.string(),
      startLine: z.number(),
      endLine: z.number(),
      commits: z.array(z.object({ commit: z.string(), author: z.string(), date: z.string(), subject: z.string(), lines: z.number(), boundary: z.boolean() })),
      freshness: freshnessSchema,
    },
    annotations: READ_ONLY,
    run: async (args) => {
      const range = await rangeOf(args)
      if (range === null || range.start === undefined) throw new UsageError('git_blame needs path with start_line (and end_line), or symbol')
      const { git: g, boundary } = git()
      const blamed = await blameRange(g, range.path, range.start, range.end!, boundary).catch((error: Error) => {
        throw new UsageError(`git blame ${quotedName(range.path)}:${range.start}-${range.end}: ${error.message.split('\n')[0]}`)
      })
      const commits = blamed.map((b) => ({ ...b, subject: redactSecrets(b.subject).text }))
      const line = (b: (typeof commits)[number]) =>
        `${b.commit.slice(0, 12)} ${b.boundary ? 'at or before this shallow clone boundary (author unknown)' : `${b.author} ${b.date}`}  ${b.lines} line(s)  ${b.subject}`
      return {
        structured: { path: range.path, startLine: range.start, endLine: range.end!, commits, freshness: await currentFreshness(env) },
        text: [`Blame of ${quotedName(range.path)}:${range.start}-${range.end}${args.symbol ? ` (${args.symbol})` : ''}`, ...commits.map(line)].join('\n'),
        remember: { summary: `blame of ${range.path}:${range.start}-${range.end}: ${commits.length} commit(s)`, insights: [], symbols: args.symbol ? [args.symbol] : [], files: [range.path] },
      }
    },
  })

  const gitShow = defineTool({
    name: 'git_show',
    title: 'Git show',
    description: 'One commit: message, changed files and patch (of one file when path is given).',
    input: {
      commit: z.string().min(4).max(80).describe('A commit hash (or HEAD, HEAD~n).'),
      path: pathInput.optional().describe('Only this file\'s patch.'),
    },
    output: { commit: commitSchema, patch: z.string(), note: z.string().optional(), freshness: freshnessSchema },
    annotations: READ_ONLY,
    run: async (args) => {
      if (!REVISION.test(args.commit)) throw new UsageError(`commit ${JSON.stringify(args.commit)} is not a commit hash or HEAD~n`)
      const path = args.path === undefined ? null : resolveInRepo(env.index.root, args.path, 'path')
      const { git: g, boundary } = git()
      const shown = await showCommit(g, args.commit, path, boundary)
      if (!shown) throw new UsageError(`no commit ${JSON.stringify(args.commit)} in this repository`)
      const commit = redactCommit(shown.commit)
      const header = renderCommit(commit, Infinity)
      const room = Math.max(0, (env.maxTokens - FRAME_TOKENS - countTokens(header)) * 4)
      if (path !== null && isCredentialsFile(path)) throw new UsageError(`${quotedName(path)} is a credentials file: its content is never shown`)
      const full = redactSecrets(withoutCredentialFiles(shown.patch)).text
      const patch = full.length > room ? full.slice(0, full.lastIndexOf('\n', room) > 0 ? full.lastIndexOf('\n', room) : room) : full
      const note = patch.length < full.length ? `Output capped: ${patch.split('\n').length} of the patch's ${full.split('\n').length} lines; ask for one file with path.` : undefined
      return {
        structured: { commit, patch, ...(note ? { note } : {}), freshness: await currentFreshness(env) },
        text: [header, patch, ...(note ? [note] : [])].join('\n\n'),
        remember: { summary: `commit ${commit.hash.slice(0, 12)} ${commit.subject}`, insights: [], symbols: [], files: commit.files.slice(0, 3) },
      }
    },
  })
  return [gitLog, gitBlame, gitShow]
}

/** Named like a credentials file (`.env`, a key, a kube config): the index never reads those, nor does git_show. */
function isCredentialsFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase()
  const dot = base.lastIndexOf('.')
  return isSecretFile(path, base, dot > 0 ? base.slice(dot) : '')
}

/** The patch without the sections of credentials files, each replaced by a line saying it was left out. */
function withoutCredentialFiles(patch: string): string {
  return patch
    .split(/^(?=diff --git )/m)
    .map((section) => {
      const header = /^diff --git a\/(.+?) b\/(.+)$/m.exec(section)
      if (!header || !(isCredentialsFile(header[1]!) || isCredentialsFile(header[2]!))) return section
      return `diff --git a/${header[1]} b/${header[2]}\n(a credentials file: its patch is left out)\n`
    })
    .join('')
}

function redactCommit(commit: Commit): Commit {
  return { ...commit, subject: redactSecrets(commit.subject).text, body: redactSecrets(commit.body).text }
}

function renderCommit(c: Commit, bodyChars = BODY_CHARS): string {
  const body = c.body.length > bodyChars ? `${c.body.slice(0, bodyChars)}…` : c.body
  const files = c.files.length > 0 ? `\nFiles: ${c.files.slice(0, 20).join(', ')}${c.files.length > 20 ? `, … (${c.files.length})` : ''}` : ''
  return `commit ${c.hash}\nAuthor: ${c.author}\nDate: ${c.date}\n\n${c.subject}${body ? `\n\n${body}` : ''}${c.boundary ? `\n\n${BOUNDARY_NOTE}` : ''}${files}`
}

/** How many commits fit the cap, at least one. */
function fitCommits(commits: readonly Commit[], maxTokens: number): number {
  let used = FRAME_TOKENS
  for (let i = 0; i < commits.length; i++) {
    used += countTokens(renderCommit(commits[i]!))
    if (used > maxTokens) return Math.max(1, i)
  }
  return commits.length
}
