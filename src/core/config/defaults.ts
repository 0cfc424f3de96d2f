import { DEFAULT_NOTES_CONFIG } from '../notes/config.js'
import type { VltConfig } from './types.js'

/**
 * What an absent `vlt.toml` (or an absent key) means. templates/vlt.toml lists the same values;
 * a test parses the template so the two never drift.
 */
export const DEFAULT_CONFIG: VltConfig = deepFreeze({
  index: {
    include: [],
    exclude: [],
    maxFileBytes: 1024 * 1024,
    languages: [],
    textFiles: true,
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
  },
  search: {
    rerank: 'offline',
    llmCandidates: 20,
  },
  query: { daemon: true },
  commits: { maxCommits: 0 },
  notes: { ...DEFAULT_NOTES_CONFIG, folders: [...DEFAULT_NOTES_CONFIG.folders], include: [...DEFAULT_NOTES_CONFIG.include] },
})

/** Frozen so that no caller can change the defaults every later load starts from. */
function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) if (child && typeof child === 'object') deepFreeze(child)
  return Object.freeze(value)
}
