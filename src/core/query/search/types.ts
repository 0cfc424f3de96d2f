import type { Progress } from '../../cli/progress.js'
import type { EmbeddingProvider } from '../../embed/index.js'
import type { LlmClient } from '../../llm/index.js'
import type { ChunkKind, LanguageId } from '../../parse/types.js'

/** The retrieval paths a result can come from; `methods` lists every one that found it. */
export type RetrievalMethod = 'bm25' | 'vector' | 'graph' | 'symbol'

export interface SearchOptions {
  /** Results to return (default 10). */
  limit?: number
  /** Only files of this language. */
  language?: LanguageId
  /** Only paths matching this gitignore-style glob. */
  path?: string
  /** Only chunks of this kind. */
  kind?: ChunkKind
  /** Drop test files instead of demoting them. */
  noTests?: boolean
  /**
   * The embedding provider for the vector path: undefined = from the repository's configuration,
   * null = no vector path.
   */
  provider?: EmbeddingProvider | null
  /** Shows embedding progress when the vector path has chunks to embed. */
  progress?: Progress
  /** Return each path's raw results and the fusion and rerank decisions. */
  explain?: boolean
  /**
   * 'llm': the configured language model reorders the offline top `[search] llm_candidates`
   * (falling back to the offline order with a warning). Default: `[search] rerank` of the config.
   */
  rerank?: 'offline' | 'llm'
  /** The language model for rerank 'llm': undefined = the one configured ([llm] of the user's config), null = none. */
  llm?: LlmClient | null
}

export interface SearchResult {
  /** Repo-relative, '/'-separated. */
  path: string
  /** 1-based, inclusive. */
  startLine: number
  endLine: number
  name: string
  qualifiedName: string
  kind: ChunkKind
  language: LanguageId
  score: number
  methods: RetrievalMethod[]
  /** Up to SNIPPET_LINES lines of the chunk, the ones matching the query best. */
  snippet: string
}

export interface SearchResponse {
  query: string
  freshness: { treeHash: string; stale: boolean }
  results: SearchResult[]
  /** Degradations the caller should know about (the vector path fell back, …). */
  warnings: string[]
  /**
   * Only when an LLM rerank was asked for: 'llm' when the model ordered the results, 'offline' when
   * it could not and the offline order was kept (the reason is in `warnings`).
   */
  rerank?: 'offline' | 'llm'
  /** Only with `explain`. */
  explain?: SearchExplain
}

/** One chunk of the tree: a file and its chunk's position in the artifact. */
export interface ChunkKey {
  path: string
  chunkIndex: number
}

/** A path's ranked candidate, with the path's own score and why it was found. */
export interface PathHit extends ChunkKey {
  score: number
  /** e.g. `definition of UserService.login`, `calls authenticate_user`. */
  reason?: string
  /** Symbol path: whether the identifier was one only code can be (see ParsedQuery.strong). */
  strong?: boolean
}

export interface RerankDecision extends ChunkKey {
  fused: number
  features: Record<string, number>
  score: number
  /** Set when the candidate was dropped: the key (`path#chunk`) of the result that covers it. */
  suppressedBy?: string
}

export interface SearchExplain {
  identifiers: string[]
  paths: Record<RetrievalMethod, PathHit[]>
  fusion: Array<ChunkKey & { score: number; ranks: Partial<Record<RetrievalMethod, number>> }>
  rerank: RerankDecision[]
}

/** Values of --lang and --kind (kept here rather than imported, so the CLI does not load the parsers). */
export const SEARCH_LANGUAGES = ['python', 'typescript', 'tsx', 'javascript', 'go', 'rust', 'java', 'c', 'cpp', 'ruby', 'text'] as const satisfies readonly LanguageId[]
export const SEARCH_KINDS = ['function', 'method', 'class', 'module', 'block'] as const satisfies readonly ChunkKind[]
