import { DEFAULT_NOTES_CONFIG } from '../notes/config.js'
import type { VltConfig } from './types.js'

/**
 * Parse bounds that real code never reaches (bench/parse-cost.ts over Linux 6.1's 348 source files
 * of 200 KB and more). The slowest, a 24 MB register header, takes 5.4 CPU-seconds, but 57 s of wall
 * clock (which the bound counts) on a machine loaded 10x over; the slowest per byte, ppc-opc.c,
 * 2.9 CPU-s per MB. The most memory: that header, 98 MB of wasm and a 170 MB heap; typescript.js
 * (9 MB of dense JavaScript) 286 MB of wasm. A 50 MB generated file, which grew the parser to its
 * 2 GB limit and crashed, stops at the memory bound.
 */
const PARSE_TIMEOUT_MS = 120_000
const PARSE_MEMORY_MB = 1024

/**
 * What an absent `vlt.toml` and user config (or an absent key) mean. templates/vlt.toml lists the same values;
 * a test parses the template so the two never drift.
 */
export const DEFAULT_CONFIG: VltConfig = deepFreeze({
  index: {
    include: [],
    exclude: [],
    maxFileBytes: 1024 * 1024,
    languages: [],
    textFiles: true,
    parseTimeoutMs: PARSE_TIMEOUT_MS,
    parseMemoryMb: PARSE_MEMORY_MB,
    memoryMb: 0,
  },
  coderag: {
    delta: { fileThreshold: 5, lineThreshold: 1000, timeoutSeconds: 300 },
  },
  embedding: {
    provider: 'none',
    baseUrl: 'https://openrouter.ai/api/v1',
    model: 'qwen/qwen3-embedding-8b',
    apiKeyEnv: 'OPENROUTER_API_KEY',
    batchSize: 64,
    concurrency: 4,
    timeoutMs: 30_000,
  },
  llm: {
    provider: 'none',
    baseUrl: 'https://openrouter.ai/api/v1',
    model: 'anthropic/claude-sonnet-4.5',
    apiKeyEnv: 'OPENROUTER_API_KEY',
    timeoutMs: 60_000,
    maxTurns: 10,
    agentTokens: 100_000,
    agentTimeoutMs: 120_000,
    models: {},
    prices: {},
  },
  search: {
    rerank: 'offline',
    llmCandidates: 20,
  },
  query: { daemon: true, lockWaitMs: 3_000 },
  commits: { maxCommits: 0 },
  cache: { push: false, header: 'Authorization', timeoutMs: 10_000 },
  lsp: { enabled: false, timeoutMs: 10_000, idleS: 300 },
  scip: { path: 'index.scip' },
  notes: { folders: [...DEFAULT_NOTES_CONFIG.folders], include: [...DEFAULT_NOTES_CONFIG.include], outsideInclude: [...DEFAULT_NOTES_CONFIG.outsideInclude] },
})

/** Frozen so that no caller can change the defaults every later load starts from. */
function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) if (child && typeof child === 'object') deepFreeze(child)
  return Object.freeze(value)
}
