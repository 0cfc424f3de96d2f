import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { configFingerprint, DEFAULT_CONFIG, loadConfig, parseConfig } from '../../src/core/config/index.js'
import { UsageError } from '../../src/core/errors.js'

/** Asserts that the TOML text is refused with exactly this message. */
function refuses(source: string, message: string): void {
  assert.throws(() => parseConfig(source), (error: unknown) => {
    assert.ok(error instanceof UsageError)
    assert.equal(error.exitCode, 2)
    assert.equal(error.message, message)
    return true
  })
}

describe('config: loadConfig', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-config-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('returns the defaults when there is no vlt.toml', async () => {
    const config = await loadConfig(dir)
    assert.deepEqual(config, DEFAULT_CONFIG)
    assert.deepEqual(config.index, { include: [], exclude: [], maxFileBytes: 1048576, languages: [], textFiles: true })
    assert.deepEqual(config.coderag.delta, { fileThreshold: 5, lineThreshold: 1000, timeoutSeconds: 300 })
    assert.equal(config.embedding.model, 'qwen/qwen3-embedding-8b')
    assert.equal(config.llm.timeoutMs, 60000)
  })

  it('gives every load arrays of its own', async () => {
    const config = await loadConfig(dir)
    config.index.include.push('src/**')
    assert.deepEqual(DEFAULT_CONFIG.index.include, [])
    assert.deepEqual((await loadConfig(dir)).index.include, [])
  })

  it('reads vlt.toml and maps snake_case keys onto the defaults', async () => {
    writeFileSync(
      join(dir, 'vlt.toml'),
      [
        '[index]',
        'include = ["src/**", "!src/gen/**"]',
        'max_file_bytes = 2048',
        'languages = ["python", "text"]',
        'text_files = false',
        '[coderag.delta]',
        'line_threshold = 50',
        '[embedding]',
        'provider = "openai"',
        'dimensions = 1024',
        '[llm]',
        'base_url = "http://localhost:11434/v1"',
        'api_key_env = "MY_LLM_KEY"',
      ].join('\n'),
    )
    const config = await loadConfig(dir)
    assert.deepEqual(config.index, { include: ['src/**', '!src/gen/**'], exclude: [], maxFileBytes: 2048, languages: ['python', 'text'], textFiles: false })
    assert.deepEqual(config.coderag.delta, { fileThreshold: 5, lineThreshold: 50, timeoutSeconds: 300 })
    assert.deepEqual(config.embedding, { ...DEFAULT_CONFIG.embedding, provider: 'openai', dimensions: 1024 })
    assert.deepEqual(config.llm, { ...DEFAULT_CONFIG.llm, baseUrl: 'http://localhost:11434/v1', apiKeyEnv: 'MY_LLM_KEY' })
  })

  it('accepts a file saved with a byte order mark', async () => {
    writeFileSync(join(dir, 'vlt.toml'), '\uFEFF[index]\ntext_files = false\n')
    assert.equal((await loadConfig(dir)).index.textFiles, false)
  })

  it('reports a syntax error with its line and column', async () => {
    writeFileSync(join(dir, 'vlt.toml'), '[index]\nmax_file_bytes = \n')
    await assert.rejects(loadConfig(dir), (error: unknown) => {
      assert.ok(error instanceof UsageError)
      assert.equal(error.message, 'vlt.toml: syntax error at line 2, column 18: invalid value')
      return true
    })
  })
})

describe('config: validation messages', () => {
  it('names an unknown key and the keys it could have been', () => {
    refuses('[index]\nmax_bytes = 10', 'vlt.toml: unknown key index.max_bytes (expected one of: include, exclude, max_file_bytes, languages, text_files)')
    refuses('[indexing]\ninclude = []', 'vlt.toml: unknown key indexing (expected one of: index, coderag, embedding, llm, search, query, commits, notes)')
    refuses('[coderag.delta]\nfiles = 3', 'vlt.toml: unknown key coderag.delta.files (expected one of: file_threshold, line_threshold, timeout_seconds)')
    refuses('maxFileBytes = 3', 'vlt.toml: unknown key maxFileBytes (expected one of: index, coderag, embedding, llm, search, query, commits, notes)')
  })

  it('refuses values of the wrong type', () => {
    refuses('[index]\nmax_file_bytes = "big"', 'vlt.toml: index.max_file_bytes must be a positive integer (got "big")')
    refuses('[index]\ntext_files = "yes"', 'vlt.toml: index.text_files must be true or false (got "yes")')
    refuses('[index]\ninclude = "src/**"', 'vlt.toml: index.include must be an array of glob strings (got "src/**")')
    refuses('[index]\nexclude = ["a", 3]', 'vlt.toml: index.exclude[1] must be a glob string (got 3)')
    refuses('index = 3', 'vlt.toml: index must be a table (got 3)')
    refuses('[coderag]\ndelta = [1, 2]', 'vlt.toml: coderag.delta must be a table (got [1,2])')
    refuses('[llm]\nmodel = ""', 'vlt.toml: llm.model must be a non-empty string (got "")')
    refuses('[llm]\ntimeout_ms = 1979-05-27', 'vlt.toml: llm.timeout_ms must be a positive integer (got a date)')
    refuses('[embedding]\nbatch_size = { size = 3 }', 'vlt.toml: embedding.batch_size must be a positive integer (got a table)')
  })

  it('refuses negative, zero and fractional numbers', () => {
    refuses('[coderag.delta]\nfile_threshold = -1', 'vlt.toml: coderag.delta.file_threshold must be a positive integer (got -1)')
    refuses('[embedding]\nconcurrency = 0', 'vlt.toml: embedding.concurrency must be a positive integer (got 0)')
    refuses('[index]\nmax_file_bytes = 1.5', 'vlt.toml: index.max_file_bytes must be a positive integer (got 1.5)')
  })

  it('refuses unknown languages, providers, URLs and variable names', () => {
    refuses(
      '[index]\nlanguages = ["python", "cobol"]',
      'vlt.toml: index.languages[1] must be one of python, typescript, tsx, javascript, go, rust, java, c, cpp, ruby, text (got "cobol")',
    )
    refuses('[embedding]\nprovider = "openrouter"', 'vlt.toml: embedding.provider must be one of "none", "openai", "local" (got "openrouter")')
    refuses('[llm]\nbase_url = "openrouter.ai/api/v1"', 'vlt.toml: llm.base_url must be an http(s) URL (got "openrouter.ai/api/v1")')
    refuses(
      '[llm]\napi_key_env = "sk-or-v1-abc"',
      'vlt.toml: llm.api_key_env must be the name of an environment variable (letters, digits and _) (got "sk-or-v1-abc")',
    )
  })

  it('refuses globs that cannot match repo paths', () => {
    refuses('[index]\ninclude = ["src/[abc"]', 'vlt.toml: index.include[0] must be a valid glob (missing closing "]") (got "src/[abc")')
    refuses('[index]\nexclude = ["*.{ts,js"]', 'vlt.toml: index.exclude[0] must be a valid glob (missing closing "}") (got "*.{ts,js")')
    refuses('[index]\nexclude = ["!"]', 'vlt.toml: index.exclude[0] must be a valid glob (it is empty) (got "!")')
    refuses(
      '[index]\ninclude = ["../other/**"]',
      'vlt.toml: index.include[0] must be a valid glob (paths are repo-relative, without empty, "." or ".." segments) (got "../other/**")',
    )
  })

  it('refuses a literal API key and points to api_key_env', () => {
    const advice = 'keys do not belong in a file that may be committed'
    refuses(
      '[llm]\napi_key = "sk-or-v1-0123"',
      `vlt.toml: llm.api_key is not allowed: ${advice}; set llm.api_key_env to the name of an environment variable that holds the key`,
    )
    refuses(
      '[embedding]\napi_key = "x"\nmodel = "m"',
      `vlt.toml: embedding.api_key is not allowed: ${advice}; set embedding.api_key_env to the name of an environment variable that holds the key`,
    )
  })

  it('reports TOML syntax errors with line and column', () => {
    refuses('[index]\ninclude = ["a"\n', 'vlt.toml: syntax error at line 3, column 1: expected comma or end of structure')
    refuses('[index]\nmax_file_bytes = 1\nmax_file_bytes = 2\n', 'vlt.toml: syntax error at line 3, column 1: trying to redefine an already defined table or value')
  })
})

describe('config: template', () => {
  it('documents every key with its default', () => {
    const template = readFileSync(new URL('../../templates/vlt.toml', import.meta.url), 'utf8')
    // Uncomment section headers and `key = value` lines; prose comments stay comments.
    const uncommented = template.replace(/^# (\[[a-z.]+\]|[a-z_]+ = .+)$/gm, '$1')
    assert.notEqual(uncommented, template)
    assert.deepEqual(parseConfig(uncommented), DEFAULT_CONFIG)
    const keys = uncommented.match(/^[a-z_]+(?= = )/gm)
    assert.deepEqual(keys, [
      'include', 'exclude', 'max_file_bytes', 'languages', 'text_files',
      'file_threshold', 'line_threshold', 'timeout_seconds',
      'provider', 'base_url', 'model', 'api_key_env', 'batch_size', 'concurrency', 'timeout_ms',
      'provider', 'base_url', 'model', 'api_key_env', 'timeout_ms',
      'rerank', 'llm_candidates',
      'daemon',
      'max_commits',
      'folders', 'include',
    ])
  })
})

describe('config: configFingerprint', () => {
  const base = DEFAULT_CONFIG
  const fingerprint = configFingerprint(base)

  it('is a short stable hex string', () => {
    assert.match(fingerprint, /^[0-9a-f]{16}$/)
    assert.equal(configFingerprint(parseConfig('')), fingerprint)
  })

  it('changes with every index setting', () => {
    const variants = [
      '[index]\ninclude = ["src/**"]',
      '[index]\nexclude = ["docs/"]',
      '[index]\nmax_file_bytes = 2048',
      '[index]\nlanguages = ["go"]',
      '[index]\ntext_files = false',
      '[index]\ninclude = ["!src/gen/**", "src/**"]',
    ]
    const prints = variants.map((source) => configFingerprint(parseConfig(source)))
    assert.equal(new Set([fingerprint, ...prints]).size, variants.length + 1)
  })

  it('ignores language order and every non-index setting', () => {
    assert.equal(
      configFingerprint(parseConfig('[index]\nlanguages = ["go", "c"]')),
      configFingerprint(parseConfig('[index]\nlanguages = ["c", "go"]')),
    )
    const unrelated = '[llm]\nmodel = "openai/gpt-5"\ntimeout_ms = 5\n[embedding]\nprovider = "openai"\n[coderag.delta]\nfile_threshold = 9'
    assert.equal(configFingerprint(parseConfig(unrelated)), fingerprint)
  })
})
