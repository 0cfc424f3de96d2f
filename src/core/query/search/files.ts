/**
 * File-level localization: given a request in words, the files to look at (or change), each with
 * its best chunks and the past commits that support it. Three paths, fused adaptively
 * (file-fusion.ts):
 *
 *  - code: today's code search (BM25 and its code view, symbols, graph, vectors when configured,
 *    fused and reranked: searchCode's ranking), a file scoring as its best chunk;
 *  - history: similar past commits vote for the files they changed (src/core/commits);
 *  - cochange: files that changed together with the strongest candidates of the other two.
 */
import { coChanged, HISTORY_VOTE, voteForFiles, type CommitHistory, type FileVote, type SimilarCommit } from '../../commits/index.js'
import { createEmbeddingProvider } from '../../embed/index.js'
import { similarByVector } from './commit-vectors.js'
import { configuredProvider } from './vector-path.js'
import { UsageError } from '../../errors.js'
import type { Chunk } from '../../parse/types.js'
import type { QueryContext } from '../context.js'
import { ChunkSource } from './chunks.js'
import { compileFilters, isTestPath } from './filters.js'
import { fuseFiles, type FusionPath, type PathWeight, type ScoredFile } from './file-fusion.js'
import { checkLimit, DEFAULT_LIMIT, rankChunks, roundScore, type ChunkRanking } from './ranking.js'
import { analyzeQuery } from '../../search/index.js'
import { parseQuery } from './query.js'
import { RERANK } from './rerank.js'
import { snippetOf } from './snippet.js'
import type { SearchOptions } from './types.js'

export const LOCALIZATION_PATHS = ['code', 'history', 'cochange'] as const
export type LocalizationPath = (typeof LOCALIZATION_PATHS)[number]

export interface FileSearchOptions extends Omit<SearchOptions, 'rerank' | 'llm'> {
  /** The paths to run (default: all). cochange needs one of the others to seed it. */
  paths?: readonly LocalizationPath[]
}

export interface FileChunk {
  startLine: number
  endLine: number
  name: string
  qualifiedName: string
  kind: string
  snippet: string
}

export interface SupportingCommit {
  hash: string
  subject: string
  /** Author date, ISO 8601. */
  date: string
  author: string
}

export interface FileSearchResult {
  path: string
  language: string
  score: number
  /** The paths that found the file. */
  methods: LocalizationPath[]
  /** Its chunks the code search ranked best, else those the supporting commits changed; at most CHUNKS_PER_FILE. */
  chunks: FileChunk[]
  /** Past commits similar to the query that changed the file, strongest first; at most COMMITS_PER_FILE. */
  commits: SupportingCommit[]
}

export interface FileSearchResponse {
  query: string
  freshness: { treeHash: string; stale: boolean }
  files: FileSearchResult[]
  warnings: string[]
  /** Only with `explain`: each path's ranking and the weight fusion gave it. */
  explain?: {
    paths: Partial<Record<LocalizationPath, ScoredFile[]>>
    weights: Partial<Record<LocalizationPath, PathWeight>>
  }
}

/** Path priors (docs/architecture.md says how they were measured). */
export const FILE_FUSION_PRIORS: Record<LocalizationPath, number> = { code: 1, history: 0.6, cochange: 0.1 }
/**
 * Chunks the code path ranks (at least): 40 give its top 15-20 files. On the localize bench's
 * tuning half, fusion with its top 8-12 files lost 0.01-0.02 hit@5 (jekyll 0.07), 15 or more
 * lost nothing; 100 chunks cost 134 ms warm on scrapy against 36 ms for 30.
 */
const CODE_DEPTH = 40
/** Strongest candidates of code and history whose co-changes are looked at. */
const COCHANGE_SEEDS = 5
const CHUNKS_PER_FILE = 3
const COMMITS_PER_FILE = 3

export async function searchFiles(qctx: QueryContext, query: string, options: FileSearchOptions = {}): Promise<FileSearchResponse> {
  const limit = options.limit ?? DEFAULT_LIMIT
  checkLimit(limit)
  if (query.trim() === '') throw new UsageError('the search query is empty')
  const enabled = new Set(options.paths ?? LOCALIZATION_PATHS)
  if (enabled.size === 0 || (enabled.size === 1 && enabled.has('cochange'))) throw new UsageError('--paths: cochange needs code or history to start from')
  const parsed = parseQuery(query)
  const filters = compileFilters(qctx, options)
  const admit = (path: string): boolean => qctx.files.has(path) && filters.file(path)
  const testFactor = (path: string): number => (!parsed.mentionsTests && isTestPath(path) ? RERANK.testFactor : 1)
  const warnings: string[] = []

  const ranking = enabled.has('code') ? await rankChunks(qctx, query, { ...options, rerank: 'offline' }, Math.max(CODE_DEPTH, limit)) : undefined
  if (ranking) warnings.push(...ranking.warnings)
  const history = enabled.has('history') || enabled.has('cochange') ? await qctx.commits() : undefined
  const votes = history && enabled.has('history') ? voteForFiles(history, await similarCommits(qctx, history, query, options, warnings), admit) : []
  const voteOf = new Map(votes.map((vote) => [vote.path, vote]))

  const ranked: Partial<Record<LocalizationPath, ScoredFile[]>> = {}
  if (ranking) ranked.code = codeFiles(ranking)
  if (enabled.has('history')) ranked.history = byScore(votes.map((vote) => ({ path: vote.path, score: vote.score * testFactor(vote.path) })))
  let outcome = fuseFiles(pathsOf(ranked))
  if (history && enabled.has('cochange')) {
    const seeds = outcome.files.slice(0, COCHANGE_SEEDS).map((file) => ({ path: file.path, weight: file.score }))
    ranked.cochange = byScore(coChanged(history, seeds, admit).map((file) => ({ path: file.path, score: file.score * testFactor(file.path) })))
    outcome = fuseFiles(pathsOf(ranked))
  }

  const chunks = ranking?.chunks ?? new ChunkSource(qctx)
  chunks.prefetchText(outcome.files.slice(0, limit).map((file) => file.path))
  const files = outcome.files.slice(0, limit).map((file): FileSearchResult => ({
    path: file.path,
    language: qctx.files.get(file.path)?.language ?? 'text',
    score: roundScore(file.score),
    methods: LOCALIZATION_PATHS.filter((path) => file.parts[path] !== undefined),
    chunks: bestChunks(file.path, ranking, chunks, voteOf.get(file.path), parsed.terms).map((chunk) => ({
      startLine: chunk.startLine,
      endLine: chunk.endLine,
      name: chunk.name,
      qualifiedName: chunk.qualifiedName,
      kind: chunk.kind,
      snippet: snippetOf(chunk, parsed.terms, parsed.identifiers),
    })),
    commits: (voteOf.get(file.path)?.support ?? []).slice(0, COMMITS_PER_FILE).map(({ commit }) => ({
      hash: commit.hash,
      subject: commit.subject,
      date: new Date(commit.time * 1000).toISOString(),
      author: commit.author,
    })),
  }))
  const response: FileSearchResponse = { query, freshness: { treeHash: qctx.freshness.treeHash, stale: qctx.freshness.stale }, files, warnings }
  if (options.explain) response.explain = { paths: ranked, weights: outcome.weights }
  return response
}

/**
 * The past commits most like the query: by BM25 over their messages and, with embeddings
 * configured, by the cosine of their message vectors too (each list divided by its best score,
 * summed per commit). A failing embedding endpoint leaves BM25 alone, with one warning.
 */
async function similarCommits(qctx: QueryContext, history: CommitHistory, query: string, options: FileSearchOptions, warnings: string[]): Promise<SimilarCommit[]> {
  const keyword = history.similar(query, HISTORY_VOTE.commits)
  const configured = options.provider !== undefined
    ? { provider: options.provider }
    : qctx.index.config.embedding.provider === 'none'
      ? { provider: null }
      : configuredProvider(() => createEmbeddingProvider(qctx.index.config.embedding))
  if (!configured.provider) return keyword
  const vector = await similarByVector(qctx, history, configured.provider, query, HISTORY_VOTE.commits, options.progress)
  if (vector.warning) {
    if (!warnings.includes(vector.warning)) warnings.push(vector.warning)
    return keyword
  }
  const merged = new Map<number, SimilarCommit>()
  for (const list of [keyword, vector.commits]) {
    const best = list[0]?.score ?? 0
    if (best <= 0) continue
    for (const hit of list) {
      const found = merged.get(hit.index)
      if (found) found.score += hit.score / best
      else merged.set(hit.index, { ...hit, score: hit.score / best })
    }
  }
  return [...merged.values()].sort((a, b) => b.score - a.score || a.index - b.index).slice(0, HISTORY_VOTE.commits)
}

/** A file scores as its best chunk (the reranked score: named definitions first, tests demoted). */
function codeFiles(ranking: ChunkRanking): ScoredFile[] {
  const best = new Map<string, number>()
  for (const result of ranking.results) if (!best.has(result.path)) best.set(result.path, result.final)
  return byScore([...best].map(([path, score]) => ({ path, score })))
}

function byScore(files: ScoredFile[]): ScoredFile[] {
  return files.filter((file) => file.score > 0).sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
}

function pathsOf(ranked: Partial<Record<LocalizationPath, ScoredFile[]>>): Record<string, FusionPath> {
  const paths: Record<string, FusionPath> = {}
  for (const name of LOCALIZATION_PATHS) {
    const files = ranked[name]
    if (files) paths[name] = { files, prior: FILE_FUSION_PRIORS[name], derived: name === 'cochange' }
  }
  return paths
}

/**
 * The file's chunks the code search ranked, best first, then those the supporting commits'
 * hunks fell in (most supported first), CHUNKS_PER_FILE at most; for a file found by history
 * alone whose commits name no chunk, the chunk holding most of the query's terms (else its first).
 */
function bestChunks(path: string, ranking: ChunkRanking | undefined, chunks: ChunkSource, vote: FileVote | undefined, terms: readonly string[]): Chunk[] {
  const picked = (ranking?.results ?? []).filter((result) => result.path === path).slice(0, CHUNKS_PER_FILE).map((result) => result.chunk)
  if (picked.length === CHUNKS_PER_FILE) return picked
  const all = chunks.artifact(path)?.chunks ?? []
  const named = [...(vote?.symbols ?? [])].sort((a, b) => b[1] - a[1]).map(([name]) => name)
  for (const name of named) {
    const chunk = all.find((candidate) => (candidate.name === name || candidate.qualifiedName.endsWith(`.${name}`)) && !picked.some((kept) => kept.startLine === candidate.startLine))
    if (chunk) picked.push(chunk)
    if (picked.length === CHUNKS_PER_FILE) break
  }
  if (picked.length > 0 || all.length === 0) return picked
  const wanted = new Set(terms)
  let best = all[0]!
  let bestHits = 0
  for (const chunk of all) {
    const hits = analyzeQuery(`${chunk.qualifiedName} ${chunk.signature} ${chunk.docstring} ${chunk.body}`).filter((term) => wanted.has(term)).length
    if (hits > bestHits) [best, bestHits] = [chunk, hits]
  }
  return [best]
}
