import type { NotesConfig } from '../notes/config.js'
import type { LanguageId } from '../parse/types.js'

/** What a language model is asked to do: each can have its own model ([llm.models]). */
export const LLM_ROLES = ['answer', 'agent', 'rerank', 'summarise', 'librarian'] as const
export type LlmRole = (typeof LLM_ROLES)[number]

/**
 * The validated configuration with defaults applied: the user's config merged with the repository's
 * `vlt.toml` (src/core/config/load.ts). See templates/vlt.toml.
 */
export interface VltConfig {
  index: {
    /** Globs (gitignore-style, repo-relative) a file must match to be indexed; empty = everything. */
    include: string[]
    /** Globs excluded on top of .gitignore. */
    exclude: string[]
    /** Files larger than this are skipped as tooLarge. */
    maxFileBytes: number
    /** Languages to parse; others are skipped. Empty = all supported (plus text windows). */
    languages: LanguageId[]
    /** Index non-code text files as line windows. */
    textFiles: boolean
    /** Time one file's parse may take; past it the file is indexed as text windows (recorded, never retried). */
    parseTimeoutMs: number
    /** Memory one parsing worker may use (its heap, and the parser's wasm memory); past it, likewise. */
    parseMemoryMb: number
    /**
     * Memory the BM25 index of a cold build may hold before its postings go to disk as sorted runs,
     * merged when it is written; 0 = sized to the machine (see `bm25MemoryBytes`).
     */
    memoryMb: number
  }
  coderag: {
    delta: { fileThreshold: number; lineThreshold: number; timeoutSeconds: number }
  }
  /** Only from the user's config (src/core/config/trust.ts). */
  embedding: {
    /** 'local': a transformers.js (ONNX) model directory, run in-process through @huggingface/transformers. */
    provider: 'none' | 'openai' | 'local'
    /** provider 'local': the model directory (absolute once loaded: a relative setting is relative to the user's config file). */
    modelDir?: string
    baseUrl: string
    model: string
    apiKeyEnv: string
    dimensions?: number
    batchSize: number
    concurrency: number
    timeoutMs: number
  }
  /** Only from the user's config (src/core/config/trust.ts). */
  llm: {
    provider: 'none' | 'openai'
    baseUrl: string
    model: string
    apiKeyEnv: string
    timeoutMs: number
    /** The oracle's agent loop: model requests at most (the final answer's included). */
    maxTurns: number
    /** The agent loop stops calling tools once its requests have used this many tokens (input + output). */
    agentTokens: number
    /** The agent loop stops calling tools after this long; the answer is then written from what it has. */
    agentTimeoutMs: number
    /** A model per role; a role not set uses `model` (see LLM_ROLES in src/core/llm). */
    models: Partial<Record<LlmRole, string>>
    /** Price per million tokens by model name, in US dollars; a model without one costs "unknown" unless the server reports it. */
    prices: Record<string, { input: number; output: number }>
  }
  search: {
    /** How `coderag search` orders the fused candidates by default; 'llm' needs [llm]. */
    rerank: 'offline' | 'llm'
    /** How many of the offline top candidates the LLM reorders. */
    llmCandidates: number
  }
  query: {
    /** Query commands (search, def, refs, map) are answered by a per-repository background daemon that keeps the index loaded. */
    daemon: boolean
    /**
     * How long a query waits for the index lock held by another run (a sync, an init) before it
     * answers from the last complete index, marked stale. A stopped holder is not waited for.
     */
    lockWaitMs: number
  }
  commits: {
    /** The commit index keeps HEAD's newest this many (non-merge) commits; 0 = all of them. */
    maxCommits: number
  }
  /** Only from the user's config (src/core/config/trust.ts). A shared cache of index records over HTTP (src/core/cache). */
  cache: {
    /** Base URL of an HTTP cache (GET/PUT/HEAD, as Bazel's and Gradle's); absent = no remote cache. */
    remote?: string
    /** Write records this machine built back to the remote cache (CI), not only read them. */
    push: boolean
    /** A request header for the cache (e.g. Authorization) whose value is read from `headerEnv`. */
    header: string
    /** The environment variable holding that header's value; absent = no header. */
    headerEnv?: string
    timeoutMs: number
  }
  /** Markdown notes beyond the repository's own (see src/core/notes/config.ts). */
  notes: NotesConfig
  /** Only from the user's config (trust.ts): language servers run on this machine over the repository's code. */
  lsp: {
    /** def/refs add hover types, the oracle diagnostics of cited files (`--lsp` asks for it in one command). */
    enabled: boolean
    /** How long the language servers of one query get, start-up included; past it, one warning and the answer without them. */
    timeoutMs: number
    /** The query daemon and the MCP server keep the servers they started; they stop them after this long unused. */
    idleS: number
  }
  scip: {
    /**
     * The SCIP index queries import on their own when it changes (src/core/scip), relative to the
     * repository's root. A committed vlt.toml's must stay inside the repository (trust.ts), and
     * whatever it names is read only if it resolves inside it.
     */
    path: string
  }
}
