/**
 * The rankers the localize benchmark measures: each turns a request in words into file paths,
 * best first, for the repository checked out at a case's parent. All run in the same process on
 * the same cases, so their figures and latencies compare directly.
 *
 * Adding a ranker: append an object to RANKERS —
 *
 *   {
 *     name: 'files-cli',
 *     describe: 'coderag search --files through the built CLI',
 *     rank: async (ctx, query) => filesOf(await ctx.cli(['coderag', 'search', query, '--files', '--json', '--limit', '10'])),
 *   },
 *
 * where `filesOf` reads the paths out of the command's JSON. `ctx.cli` runs the built CLI
 * (`npm run build` first) in the clone, whose HEAD is the case's parent and whose index was just
 * synced to it. A ranker may call the core functions in process instead (`ctx.index` is the
 * synced query context). Only the first 10 unique paths count; duplicates are dropped. The clone
 * also holds refs newer than the parent (its branches, origin/*): a ranker must use nothing but
 * HEAD and what HEAD reaches. `npm run bench -- localize --rankers a,b` runs a subset (plain
 * BM25 always runs: every delta is against it).
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { QueryContext } from '../src/core/query/context.js'
import { searchCode, searchFiles, type LocalizationPath } from '../src/core/query/search/index.js'
import type { CommitMessages, Scored, WholeFileBm25 } from './localize-reference.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = join(ROOT, 'bin', 'run.js')
const BUILT = join(ROOT, 'dist', 'index.js')

/** What a ranker may use for one case. */
export interface LocalizeContext {
  /** The corpus name (scrapy, vue-core, …). */
  corpus: string
  /** The clone, HEAD detached at the case's parent, its index synced to that tree. */
  dir: string
  parent: string
  /** The product's index of the parent, opened in process (`files`: the paths it selects). */
  index: QueryContext
  /** Plain BM25 over the parent's whole files (bench-only reference). */
  wholeFiles: WholeFileBm25
  /** Past commits' messages, masked to those the parent reaches (bench-only reference). */
  history: CommitMessages
  /** Runs the built CLI in `dir` (no daemon) and returns its stdout; rejects on a non-zero exit. */
  cli(args: string[]): Promise<string>
}

export interface Ranker {
  name: string
  describe: string
  rank(ctx: LocalizeContext, query: string): Promise<string[]>
}

export const BASELINE = 'bm25-files'

/** Results asked of `coderag search`: chunks, several per file, so that 10 unique paths exist. */
const SEARCH_LIMIT = 50
/** The prototype of the issue's note: the 30 most similar past commits vote, history weighs 0.6. */
const SIMILAR_COMMITS = 30
const HISTORY_WEIGHT = 0.6

export const RANKERS: readonly Ranker[] = [
  {
    name: BASELINE,
    describe: 'plain BM25, one document per file (whole text + path words), over the files the index selects',
    rank: async (ctx, query) => ctx.wholeFiles.search(query).map((hit) => hit.path),
  },
  {
    name: 'search',
    describe: `today's coderag search (in process, offline): unique paths of its top ${SEARCH_LIMIT} results`,
    rank: async (ctx, query) => (await searchCode(ctx.index, query, { limit: SEARCH_LIMIT, provider: null })).results.map((result) => result.path),
  },
  {
    name: 'history-prototype',
    describe: `the note's prototype: BM25 over files + ${HISTORY_WEIGHT} × votes of the ${SIMILAR_COMMITS} most similar past commits, max-normalised sum`,
    rank: async (ctx, query) => fuseByMaxNormalisedSum([[ctx.wholeFiles.search(query), 1], [historyVotes(ctx, query), HISTORY_WEIGHT]]),
  },
  {
    name: 'history-prototype-only',
    describe: "the prototype's history votes alone (what the history path adds before fusion)",
    rank: async (ctx, query) => historyVotes(ctx, query).map((vote) => vote.path),
  },
  filesRanker('fused', undefined, 'the product: coderag search --files (code, history and co-change, adaptively fused; in process, offline)'),
  filesRanker('code-only', ['code'], "its code path alone (--paths code: today's code search, a file = its best chunk)"),
  filesRanker('history-only', ['history'], 'its history path alone (--paths history: similar past commits vote for the files they changed)'),
  filesRanker('code+history', ['code', 'history'], 'code and history fused, without co-change (--paths code,history: what co-change adds)'),
]

/** The product's file-level search (the function `coderag search --files`, the daemon and MCP call), with some of its paths. */
function filesRanker(name: string, paths: LocalizationPath[] | undefined, describe: string): Ranker {
  return {
    name,
    describe,
    rank: async (ctx, query) => (await searchFiles(ctx.index, query, { limit: 10, provider: null, paths })).files.map((file) => file.path),
  }
}

/** Each similar commit votes similarity / sqrt(files it touched) for each of its files the parent still has. */
function historyVotes(ctx: LocalizeContext, query: string): Scored[] {
  const votes = new Map<string, number>()
  for (const { commit, score } of ctx.history.similar(query, SIMILAR_COMMITS)) {
    const vote = score / Math.sqrt(commit.files.length)
    for (const path of commit.files) if (ctx.index.files.has(path)) votes.set(path, (votes.get(path) ?? 0) + vote)
  }
  return [...votes].map(([path, score]) => ({ path, score })).sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
}

/** Paths by the weighted sum of each list's scores divided by that list's best score. */
function fuseByMaxNormalisedSum(lists: Array<[Scored[], number]>): string[] {
  const fused = new Map<string, number>()
  for (const [list, weight] of lists) {
    const best = list[0]?.score ?? 0
    if (best <= 0) continue
    for (const { path, score } of list) fused.set(path, (fused.get(path) ?? 0) + (weight * score) / best)
  }
  return [...fused].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([path]) => path)
}

/** `ctx.cli` for the clone at `dir`. */
export function cliIn(dir: string): (args: string[]) => Promise<string> {
  return async (args) => {
    if (!existsSync(BUILT)) throw new Error('the built CLI is missing: run `npm run build` first')
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      env: { ...process.env, CI: '1', GIT_VLT_DAEMON: '0' },
    })
    return stdout
  }
}
