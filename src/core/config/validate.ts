import { UsageError } from '../errors.js'
import { globProblem } from '../files/globs.js'
import { PARSED_LANGUAGES } from '../parse/languages.js'
import type { LanguageId } from '../parse/types.js'
import { notesConfig } from '../notes/config.js'
import { DEFAULT_CONFIG } from './defaults.js'
import { LLM_ROLES, type VltConfig } from './types.js'

const LANGUAGES: readonly LanguageId[] = [...PARSED_LANGUAGES, 'text']
const LLM_PROVIDERS = ['none', 'openai'] as const
const EMBEDDING_PROVIDERS = ['none', 'openai', 'local'] as const
const RERANKS = ['offline', 'llm'] as const

/**
 * Turns a parsed config file (`vlt.toml` or the user's config.toml: one schema) into a VltConfig:
 * defaults for absent keys, and a UsageError naming the file and the key path (in the file's
 * snake_case) for any unknown key or bad value. Nothing is coerced: a typo must fail loudly rather
 * than silently index something else. `file` is how messages name the file.
 */
export function validateConfig(raw: Record<string, unknown>, file = 'vlt.toml'): VltConfig {
  const root = new Table(raw, '', file)
  const d = DEFAULT_CONFIG
  const config: VltConfig = {
    index: root.table('index', (t) => ({
      include: t.value('include', globs, d.index.include),
      exclude: t.value('exclude', globs, d.index.exclude),
      maxFileBytes: t.value('max_file_bytes', positiveInteger, d.index.maxFileBytes),
      languages: t.value('languages', languages, d.index.languages),
      textFiles: t.value('text_files', boolean, d.index.textFiles),
      parseTimeoutMs: t.value('parse_timeout_ms', atLeast(100), d.index.parseTimeoutMs),
      parseMemoryMb: t.value('parse_memory_mb', atLeast(128), d.index.parseMemoryMb),
      memoryMb: t.value('memory_mb', zeroOrAtLeast(16), d.index.memoryMb),
    })),
    coderag: root.table('coderag', (t) => ({
      delta: t.table('delta', (delta) => ({
        fileThreshold: delta.value('file_threshold', positiveInteger, d.coderag.delta.fileThreshold),
        lineThreshold: delta.value('line_threshold', positiveInteger, d.coderag.delta.lineThreshold),
        timeoutSeconds: delta.value('timeout_seconds', positiveInteger, d.coderag.delta.timeoutSeconds),
      })),
    })),
    embedding: root.table('embedding', (t) => {
      refuseLiteralKey(t)
      const embedding: VltConfig['embedding'] = {
        provider: t.value('provider', oneOf(EMBEDDING_PROVIDERS), d.embedding.provider),
        baseUrl: t.value('base_url', httpUrl, d.embedding.baseUrl),
        model: t.value('model', nonEmptyString, d.embedding.model),
        apiKeyEnv: t.value('api_key_env', envName, d.embedding.apiKeyEnv),
        batchSize: t.value('batch_size', positiveInteger, d.embedding.batchSize),
        concurrency: t.value('concurrency', positiveInteger, d.embedding.concurrency),
        timeoutMs: t.value('timeout_ms', positiveInteger, d.embedding.timeoutMs),
      }
      const dimensions = t.value('dimensions', positiveInteger, undefined)
      if (dimensions !== undefined) embedding.dimensions = dimensions
      const modelDir = t.value('model_dir', nonEmptyString, undefined)
      if (modelDir !== undefined) embedding.modelDir = modelDir
      if (embedding.provider === 'local' && modelDir === undefined) {
        throw new UsageError(`${file}: ${t.keyPath('model_dir')} is required when ${t.keyPath('provider')} = "local" (the directory of a transformers.js ONNX model)`)
      }
      return embedding
    }),
    llm: root.table('llm', (t) => {
      refuseLiteralKey(t)
      return {
        provider: t.value('provider', oneOf(LLM_PROVIDERS), d.llm.provider),
        baseUrl: t.value('base_url', httpUrl, d.llm.baseUrl),
        model: t.value('model', nonEmptyString, d.llm.model),
        apiKeyEnv: t.value('api_key_env', envName, d.llm.apiKeyEnv),
        timeoutMs: t.value('timeout_ms', positiveInteger, d.llm.timeoutMs),
        maxTurns: t.value('max_turns', between(1, 100), d.llm.maxTurns),
        agentTokens: t.value('agent_tokens', positiveInteger, d.llm.agentTokens),
        agentTimeoutMs: t.value('agent_timeout_ms', positiveInteger, d.llm.agentTimeoutMs),
        models: t.table('models', (models) => {
          const chosen: VltConfig['llm']['models'] = {}
          for (const role of LLM_ROLES) {
            const model = models.value(role, nonEmptyString, undefined)
            if (model !== undefined) chosen[role] = model
          }
          return chosen
        }),
        prices: t.value('prices', prices, d.llm.prices),
      }
    }),
    search: root.table('search', (t) => ({
      rerank: t.value('rerank', oneOf(RERANKS), d.search.rerank),
      llmCandidates: t.value('llm_candidates', positiveInteger, d.search.llmCandidates),
    })),
    query: root.table('query', (t) => ({
      daemon: t.value('daemon', boolean, d.query.daemon),
      // Bounded: a committed vlt.toml must not make queries wait on a held lock for long.
      lockWaitMs: t.value('lock_wait_ms', between(0, 60_000), d.query.lockWaitMs),
    })),
    commits: root.table('commits', (t) => ({
      maxCommits: t.value('max_commits', atLeast(0), d.commits.maxCommits),
    })),
    cache: root.table('cache', (t) => {
      const cache: VltConfig['cache'] = {
        push: t.value('push', boolean, d.cache.push),
        header: t.value('header', headerName, d.cache.header),
        timeoutMs: t.value('timeout_ms', positiveInteger, d.cache.timeoutMs),
      }
      const remote = t.value('remote', httpUrl, undefined)
      if (remote !== undefined) cache.remote = remote
      const headerEnv = t.value('header_env', envName, undefined)
      if (headerEnv !== undefined) cache.headerEnv = headerEnv
      return cache
    }),
    lsp: root.table('lsp', (t) => ({
      enabled: t.value('enabled', boolean, d.lsp.enabled),
      timeoutMs: t.value('timeout_ms', between(100, 600_000), d.lsp.timeoutMs),
      idleS: t.value('idle_s', between(1, 86_400), d.lsp.idleS),
    })),
    scip: root.table('scip', (t) => ({ path: t.value('path', nonEmptyString, d.scip.path) })),
    notes: root.table('notes', (t) => notesConfig({ folders: t.value('folders', anyValue, undefined), include: t.value('include', anyValue, undefined) }, file)),
  }
  root.rejectUnknownKeys()
  return config
}

/** A file that asks for an LLM rerank must have (or be merged with) a language model. */
export function rerankProblem(config: VltConfig, file: string): UsageError | undefined {
  if (config.search.rerank !== 'llm' || config.llm.provider !== 'none') return undefined
  return new UsageError(`${file}: search.rerank = "llm" needs a language model: set llm.provider (and its endpoint) in [llm]`)
}

/** Checks one value: returns it typed, or throws a ValueProblem saying what was expected. */
type Check<T> = (value: unknown, path: string) => T

/** A bad value, described without the file: the Table reading it names the file. */
class ValueProblem extends Error {}

/** `[llm.prices]`: `"model" = { input = 3.0, output = 15.0 }`, US dollars per million tokens. */
const prices: Check<VltConfig['llm']['prices']> = (value, path) => {
  if (!isTable(value)) throw invalid(path, 'a table of model = { input = USD, output = USD } (per million tokens)', value)
  const result: VltConfig['llm']['prices'] = {}
  for (const [model, price] of Object.entries(value)) {
    const at = `${path}.${JSON.stringify(model)}`
    if (!isTable(price) || Object.keys(price).some((key) => key !== 'input' && key !== 'output')) throw invalid(at, '{ input = USD, output = USD } per million tokens', price)
    const usd = (key: 'input' | 'output'): number => {
      const n = price[key]
      if (typeof n === 'number' && Number.isFinite(n) && n >= 0) return n
      throw invalid(`${at}.${key}`, 'a price in US dollars per million tokens (a number ≥ 0)', n)
    }
    result[model] = { input: usd('input'), output: usd('output') }
  }
  return result
}

/** For tables whose own module validates them (notes: src/core/notes/config.ts). */
const anyValue: Check<unknown> = (value) => value

/** One TOML table being read; remembers which keys were asked for so the rest can be reported. */
class Table {
  private readonly known: string[] = []

  constructor(
    private readonly raw: Record<string, unknown>,
    private readonly path: string,
    readonly file: string,
  ) {}

  value<T>(key: string, check: Check<T>, fallback: T): T {
    this.known.push(key)
    if (!Object.hasOwn(this.raw, key)) return copy(fallback)
    try {
      return check(this.raw[key], this.keyPath(key))
    } catch (error) {
      if (error instanceof ValueProblem) throw new UsageError(`${this.file}: ${error.message}`)
      throw error
    }
  }

  table<T>(key: string, read: (table: Table) => T): T {
    this.known.push(key)
    const value = Object.hasOwn(this.raw, key) ? this.raw[key] : {}
    if (!isTable(value)) throw new UsageError(`${this.file}: ${invalid(this.keyPath(key), 'a table', value).message}`)
    const table = new Table(value, this.keyPath(key), this.file)
    const result = read(table)
    table.rejectUnknownKeys()
    return result
  }

  has(key: string): boolean {
    return Object.hasOwn(this.raw, key)
  }

  keyPath(key: string): string {
    return this.path ? `${this.path}.${key}` : key
  }

  rejectUnknownKeys(): void {
    const unknown = Object.keys(this.raw).find((key) => !this.known.includes(key))
    if (unknown !== undefined) {
      throw new UsageError(`${this.file}: unknown key ${this.keyPath(unknown)} (expected one of: ${this.known.join(', ')})`)
    }
  }
}

function refuseLiteralKey(table: Table): void {
  if (table.has('api_key')) {
    throw new UsageError(
      `${table.file}: ${table.keyPath('api_key')} is not allowed: keys do not belong in a file that may be committed; ` +
        `set ${table.keyPath('api_key_env')} to the name of an environment variable that holds the key`,
    )
  }
}

const positiveInteger: Check<number> = (value, path) => {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value
  throw invalid(path, 'a positive integer', value)
}

/** A bound below `minimum` would leave nothing room to work (a worker's runtime alone takes ~100 MB). */
function atLeast(minimum: number): Check<number> {
  return (value, path) => {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum) return value
    throw invalid(path, `an integer of at least ${minimum}`, value)
  }
}

/** 0 (meaning a default worked out where it is used) or at least `minimum`. */
function zeroOrAtLeast(minimum: number): Check<number> {
  return (value, path) => {
    if (typeof value === 'number' && Number.isSafeInteger(value) && (value === 0 || value >= minimum)) return value
    throw invalid(path, `0 (sized to the machine) or an integer of at least ${minimum}`, value)
  }
}

function between(minimum: number, maximum: number): Check<number> {
  return (value, path) => {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum && value <= maximum) return value
    throw invalid(path, `an integer from ${minimum} to ${maximum}`, value)
  }
}

const boolean: Check<boolean> = (value, path) => {
  if (typeof value === 'boolean') return value
  throw invalid(path, 'true or false', value)
}

const nonEmptyString: Check<string> = (value, path) => {
  if (typeof value === 'string' && value.trim() !== '') return value
  throw invalid(path, 'a non-empty string', value)
}

const httpUrl: Check<string> = (value, path) => {
  if (typeof value === 'string' && /^https?:\/\//.test(value) && URL.canParse(value)) return value
  throw invalid(path, 'an http(s) URL', value)
}

const headerName: Check<string> = (value, path) => {
  if (typeof value === 'string' && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value)) return value
  throw invalid(path, 'an HTTP header name', value)
}

const envName: Check<string> = (value, path) => {
  if (typeof value === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) return value
  throw invalid(path, 'the name of an environment variable (letters, digits and _)', value)
}

function oneOf<const T extends string>(names: readonly T[]): Check<T> {
  return (value, path) => {
    const found = names.find((name) => name === value)
    if (found) return found
    throw invalid(path, `one of ${names.map((name) => `"${name}"`).join(', ')}`, value)
  }
}

const globs: Check<string[]> = (value, path) =>
  arrayOf(value, path, 'an array of glob strings', (item, itemPath) => {
    if (typeof item !== 'string') throw invalid(itemPath, 'a glob string', item)
    const problem = globProblem(item)
    if (problem) throw invalid(itemPath, `a valid glob (${problem})`, item)
    return item
  })

const languages: Check<LanguageId[]> = (value, path) =>
  arrayOf(value, path, 'an array of language names', (item, itemPath) => {
    const found = LANGUAGES.find((language) => language === item)
    if (found) return found
    throw invalid(itemPath, `one of ${LANGUAGES.join(', ')}`, item)
  })

function arrayOf<T>(value: unknown, path: string, expected: string, item: Check<T>): T[] {
  if (!Array.isArray(value)) throw invalid(path, expected, value)
  return value.map((element, i) => item(element, `${path}[${i}]`))
}

function invalid(path: string, expected: string, value: unknown): ValueProblem {
  return new ValueProblem(`${path} must be ${expected} (got ${describe(value)})`)
}

/** A short rendering of a TOML value for error messages. */
function describe(value: unknown): string {
  if (value instanceof Date) return 'a date'
  if (isTable(value)) return 'a table'
  const text = JSON.stringify(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
}

/** Defaults are frozen and shared; every loaded config gets arrays of its own. */
function copy<T>(value: T): T {
  return Array.isArray(value) ? (value.slice() as T) : value
}
