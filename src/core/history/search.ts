/**
 * Questions to the agent history: BM25 search over exchanges with date, branch and sidechain
 * filters, and "which sessions touched or discussed this file". Both refresh the index first
 * (incremental: a stat per transcript when nothing changed) unless told not to, so results never
 * silently lag behind the sessions on disk.
 */
import { posix, resolve } from 'node:path'
import { UsageError } from '../errors.js'
import { openRepo, type Repo } from '../git/repo.js'
import { unlessUnwritable } from '../store/index.js'
import { refreshHistory, type IngestOptions } from './ingest.js'
import { worktreeRoots } from './locate.js'
import { repoPath } from './mentions.js'
import { emptyHistoryIndex, loadHistoryIndex, type ExchangeEntry, type HistoryIndex } from './store.js'

export interface HistoryFilters {
  /** Inclusive lower bound: ISO date or time, or a relative age like `7d`, `12h`, `2w`. */
  after?: string
  /** Exclusive upper bound, same forms. */
  before?: string
  branch?: string
  /** Subagent exchanges are left out unless asked for. */
  includeSidechains?: boolean
}

export interface ReadOptions extends IngestOptions {
  /** Ingest new transcript lines first (default true). */
  refresh?: boolean
}

export interface HistorySearchOptions extends HistoryFilters, ReadOptions {
  limit?: number
}

export interface HistoryHit {
  sessionId: string
  exchangeId: string
  agentId: string | null
  title: string
  timestamp: string
  branch: string
  score: number
  prompt: string
  reply: string
  /** Files touched by tools first, then those only discussed. */
  files: string[]
  isSidechain: boolean
  kind: ExchangeEntry['kind']
}

export interface HistorySearchResult {
  query: string
  results: HistoryHit[]
}

export interface OpenHistory {
  repo: Repo
  index: HistoryIndex
}

export async function openHistory(cwd: string, options: ReadOptions = {}): Promise<OpenHistory> {
  const repo = await openRepo(cwd)
  if (options.refresh === false) return { repo, index: (await loadHistoryIndex(repo.vltDir, options.warn)) ?? emptyHistoryIndex() }
  // A `.vlt/` that cannot be written (read-only, full) is searched as it is (store/fault.ts).
  const refreshed = await unlessUnwritable(() => refreshHistory(repo, options))
  return { repo, index: refreshed?.index ?? (await loadHistoryIndex(repo.vltDir, options.warn)) ?? emptyHistoryIndex() }
}

export async function queryHistory(cwd: string, query: string, options: HistorySearchOptions = {}): Promise<HistorySearchResult> {
  const { index } = await openHistory(cwd, options)
  return { query, results: searchIndex(index, query, options) }
}

export function searchIndex(index: HistoryIndex, query: string, options: HistorySearchOptions = {}): HistoryHit[] {
  const keep = entryFilter(options)
  const byDoc = new Map(index.exchanges.map((entry) => [entry.doc, entry]))
  const hits = index.bm25.search(query, { limit: options.limit ?? 10, filter: (doc) => keep(byDoc.get(doc)!) })
  return hits.map((hit) => {
    const entry = byDoc.get(hit.path)!
    return {
      sessionId: entry.sessionId,
      exchangeId: entry.id,
      agentId: entry.agentId,
      title: entry.title,
      timestamp: entry.timestamp,
      branch: entry.branch,
      score: round(hit.score),
      prompt: entry.prompt,
      reply: entry.reply,
      files: [...entry.touched, ...entry.discussed],
      isSidechain: entry.isSidechain,
      kind: entry.kind,
    }
  })
}

export function entryFilter(filters: HistoryFilters): (entry: ExchangeEntry) => boolean {
  const after = filters.after === undefined ? -Infinity : parseWhen(filters.after, '--after')
  const before = filters.before === undefined ? Infinity : parseWhen(filters.before, '--before')
  const { branch, includeSidechains } = filters
  return (entry) =>
    (includeSidechains === true || !entry.isSidechain) &&
    (branch === undefined || entry.branch === branch) &&
    entry.time >= after && entry.time < before
}

const AGE = /^(\d+)([hdw])$/
const AGE_MS = { h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const

/** A date (`2025-03-01`, midnight UTC), a time (`2025-03-01T12:00:00Z`) or an age before now (`7d`). */
export function parseWhen(value: string, flag: string, now = Date.now()): number {
  const age = AGE.exec(value)
  if (age) return now - Number(age[1]) * AGE_MS[age[2] as keyof typeof AGE_MS]
  const time = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
  if (Number.isNaN(time)) throw new UsageError(`${flag}: not a date, time or age (like 2025-03-01, 2025-03-01T12:00Z or 7d): ${value}`)
  return time
}

export interface FileExchange {
  exchangeId: string
  agentId: string | null
  isSidechain: boolean
  timestamp: string
  /** `touched`: a tool edited, read or searched it; `discussed`: only named in a command or in prose. */
  relation: 'touched' | 'discussed'
  tools: string[]
  prompt: string
  reply: string
}

export interface FileSession {
  sessionId: string
  title: string
  branch: string
  /** Of the newest exchange involving the file. */
  timestamp: string
  relation: 'touched' | 'discussed'
  /** Newest first. */
  exchanges: FileExchange[]
}

export interface FileHistoryResult {
  /** The path as matched: relative to the repository root. */
  path: string
  sessions: FileSession[]
}

export interface FileHistoryOptions extends HistoryFilters, ReadOptions {
  /** Sessions to return (default 20). */
  limit?: number
}

/** Sessions that touched or discussed `path` (a file, or a folder: anything under it), newest first. */
export async function fileHistory(cwd: string, path: string, options: FileHistoryOptions = {}): Promise<FileHistoryResult> {
  const { repo, index } = await openHistory(cwd, options)
  const candidates = targetPaths(await worktreeRoots(repo), cwd, path)
  for (const target of candidates) {
    const sessions = sessionsInvolving(index, target, options)
    if (sessions.length > 0) return { path: target, sessions }
  }
  return { path: candidates[0], sessions: [] }
}

export function sessionsInvolving(index: HistoryIndex, target: string, options: FileHistoryOptions = {}): FileSession[] {
  // Subagents' edits are edits of the session that started them: included unless asked otherwise.
  const keep = entryFilter({ ...options, includeSidechains: options.includeSidechains ?? true })
  const matches = (paths: string[]): boolean => paths.some((p) => p === target || p.startsWith(`${target}/`))
  const sessions = new Map<string, FileSession>()
  const newestFirst = index.exchanges.filter(keep).sort((a, b) => b.time - a.time || b.startLine - a.startLine)
  for (const entry of newestFirst) {
    const touched = matches(entry.touched)
    if (!touched && !matches(entry.discussed)) continue
    let session = sessions.get(entry.sessionId)
    if (!session) {
      session = { sessionId: entry.sessionId, title: entry.title, branch: entry.branch, timestamp: entry.timestamp, relation: 'discussed', exchanges: [] }
      sessions.set(entry.sessionId, session)
    }
    if (touched) session.relation = 'touched'
    session.exchanges.push({
      exchangeId: entry.id,
      agentId: entry.agentId,
      isSidechain: entry.isSidechain,
      timestamp: entry.timestamp,
      relation: touched ? 'touched' : 'discussed',
      tools: entry.tools,
      prompt: entry.prompt,
      reply: entry.reply,
    })
  }
  return [...sessions.values()].slice(0, options.limit ?? 20)
}

/**
 * What PATH may mean, most likely first: relative to the directory the command runs in, then (for
 * a path typed from a subdirectory, or a file only a worktree has) relative to the root.
 */
function targetPaths(roots: readonly string[], cwd: string, path: string): string[] {
  const candidates: string[] = []
  const fromCwd = repoPath(resolve(cwd, path), cwd, roots)
  if (fromCwd !== null) candidates.push(fromCwd)
  const normal = posix.normalize(path.replace(/\\/g, '/')).replace(/\/+$/, '')
  if (!normal.startsWith('../') && !posix.isAbsolute(normal) && normal !== '.' && !candidates.includes(normal)) candidates.push(normal)
  if (candidates.length === 0) throw new UsageError(`${path} is outside the repository`)
  return candidates
}

/** Scores as history reports them: three decimals. */
export function round(score: number): number {
  return Math.round(score * 1000) / 1000
}
