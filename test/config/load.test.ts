import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { configFingerprint, DEFAULT_CONFIG, loadConfig, onConfigWarning, parseConfig, readConfig, userConfigPath } from '../../src/core/config/index.js'
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
    assert.deepEqual(config.index, { include: [], exclude: [], maxFileBytes: 1048576, languages: [], textFiles: true, parseTimeoutMs: DEFAULT_CONFIG.index.parseTimeoutMs, parseMemoryMb: DEFAULT_CONFIG.index.parseMemoryMb, memoryMb: 0 })
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
        'parse_timeout_ms = 500',
        'parse_memory_mb = 256',
        'memory_mb = 64',
        '[coderag.delta]',
        'line_threshold = 50',
      ].join('\n'),
    )
    const config = await loadConfig(dir)
    assert.deepEqual(config.index, { include: ['src/**', '!src/gen/**'], exclude: [], maxFileBytes: 2048, languages: ['python', 'text'], textFiles: false, parseTimeoutMs: 500, parseMemoryMb: 256, memoryMb: 64 })
    assert.deepEqual(config.coderag.delta, { fileThreshold: 5, lineThreshold: 50, timeoutSeconds: 300 })
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

describe('config: the user config, and what vlt.toml may decide', () => {
  let dir: string
  let home: string
  /** An env whose user config is `<home>/git-vlt/config.toml` (written by `user`). */
  let env: NodeJS.ProcessEnv
  const user = (text: string): void => {
    mkdirSync(join(home, 'git-vlt'), { recursive: true })
    writeFileSync(join(home, 'git-vlt', 'config.toml'), text)
  }
  const userFile = (): string => join(home, 'git-vlt', 'config.toml')
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-config-'))
    home = mkdtempSync(join(tmpdir(), 'vlt-config-home-'))
    env = { XDG_CONFIG_HOME: home }
  })
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true })
    rmSync(home, { recursive: true, force: true })
  })

  it('finds the user config: GIT_VLT_CONFIG, else GIT_VLT_CONFIG_DIR, else $XDG_CONFIG_HOME/git-vlt, else ~/.config/git-vlt', () => {
    assert.equal(userConfigPath({ GIT_VLT_CONFIG: '/x/mine.toml', GIT_VLT_CONFIG_DIR: '/d', XDG_CONFIG_HOME: '/c' }), '/x/mine.toml')
    assert.equal(userConfigPath({ GIT_VLT_CONFIG: '', GIT_VLT_CONFIG_DIR: '/d', XDG_CONFIG_HOME: '/c' }), '/d/config.toml')
    assert.equal(userConfigPath({ XDG_CONFIG_HOME: '/c' }), '/c/git-vlt/config.toml')
    assert.equal(userConfigPath({}), join(homedir(), '.config', 'git-vlt', 'config.toml'))
  })

  it('takes [llm] and [embedding] from the user config, and model_dir relative to it', async () => {
    user('[llm]\nprovider = "openai"\nbase_url = "http://localhost:11434/v1"\napi_key_env = "MY_LLM_KEY"\n[embedding]\nprovider = "local"\nmodel_dir = "models/tiny"\n')
    const { config, warnings } = await readConfig(dir, env)
    assert.deepEqual(config.llm, { ...DEFAULT_CONFIG.llm, provider: 'openai', baseUrl: 'http://localhost:11434/v1', apiKeyEnv: 'MY_LLM_KEY' })
    assert.deepEqual(config.embedding, { ...DEFAULT_CONFIG.embedding, provider: 'local', modelDir: join(home, 'git-vlt', 'models', 'tiny') })
    assert.deepEqual(warnings, [])
  })

  it('ignores [llm], [embedding] and outside notes folders of vlt.toml, with one warning each', async () => {
    user('[llm]\nprovider = "openai"\nbase_url = "http://localhost:11434/v1"\n[notes]\nfolders = ["~/vault"]\n')
    writeFileSync(
      join(dir, 'vlt.toml'),
      '[llm]\nbase_url = "https://attacker.example/v1"\napi_key_env = "AWS_SECRET_ACCESS_KEY"\n[embedding]\nprovider = "local"\nmodel_dir = "/tmp/x"\n' +
        '[cache]\nremote = "https://attacker.example/cache"\npush = true\nheader_env = "GITHUB_TOKEN"\n' +
        '[notes]\nfolders = ["/", "~", "~/.ssh", "../outside", "docs/../../x", "docs/vault", "./wiki/"]\n',
    )
    const { config, warnings } = await readConfig(dir, env)
    assert.equal(config.llm.baseUrl, 'http://localhost:11434/v1')
    assert.equal(config.llm.apiKeyEnv, 'OPENROUTER_API_KEY')
    assert.deepEqual(config.embedding, DEFAULT_CONFIG.embedding)
    assert.deepEqual(config.cache, DEFAULT_CONFIG.cache)
    assert.deepEqual(config.notes.folders, ['~/vault', 'docs/vault', './wiki'])
    assert.deepEqual(warnings, [
      `vlt.toml: [llm] (base_url, api_key_env) ignored: a repository's file cannot choose where your code and API keys go; set it in your own config (${userFile()})`,
      `vlt.toml: [embedding] (provider, model_dir) ignored: a repository's file cannot choose where your code and API keys go; set it in your own config (${userFile()})`,
      `vlt.toml: [cache] (remote, push, header_env) ignored: a repository's file cannot choose where your code and API keys go; set it in your own config (${userFile()})`,
      `vlt.toml: notes.folders "/", "~", "~/.ssh", "../outside", "docs/../../x" ignored: folders outside the repository are read only from your own config (${userFile()})`,
    ])
  })

  it('tells a repository that commits a literal API key to remove it (the command still runs)', async () => {
    writeFileSync(join(dir, 'vlt.toml'), '[llm]\napi_key = "sk-or-v1-0123"\n')
    const { config, warnings } = await readConfig(dir, env)
    assert.deepEqual(config.llm, DEFAULT_CONFIG.llm)
    assert.match(warnings[0]!, /^vlt\.toml: \[llm\] \(api_key\) ignored: .*; and remove llm\.api_key: a key in a committed file is public$/)
  })

  it('lets vlt.toml win any other key both set (lists replaced), and keeps the user include for outside folders', async () => {
    user('[index]\nexclude = ["*.gen.go"]\nmax_file_bytes = 4096\n[query]\ndaemon = false\n[notes]\ninclude = ["*.md"]\n')
    writeFileSync(join(dir, 'vlt.toml'), '[index]\nexclude = ["vendor/"]\n[notes]\ninclude = ["*.md", "*.txt"]\n')
    const { config } = await readConfig(dir, env)
    assert.deepEqual(config.index.exclude, ['vendor/'])
    assert.equal(config.index.maxFileBytes, 4096)
    assert.equal(config.query.daemon, false)
    assert.deepEqual(config.notes.include, ['*.md', '*.txt'])
    assert.deepEqual(config.notes.outsideInclude, ['*.md'])
  })

  it('ignores search.rerank = "llm" of vlt.toml without a model in the user config; refuses it in the user config', async () => {
    writeFileSync(join(dir, 'vlt.toml'), '[search]\nrerank = "llm"\n')
    const { config, warnings } = await readConfig(dir, env)
    assert.equal(config.search.rerank, 'offline')
    assert.deepEqual(warnings, [`vlt.toml: search.rerank = "llm" ignored: no [llm] is configured in your own config (${userFile()})`])
    user('[llm]\nprovider = "openai"\n')
    assert.equal((await readConfig(dir, env)).config.search.rerank, 'llm')
    user('[search]\nrerank = "llm"\n')
    await assert.rejects(readConfig(dir, env), { message: `${userFile()}: search.rerank = "llm" needs a language model: set llm.provider (and its endpoint) in [llm]` })
  })

  it('names the user config file in its errors, and a GIT_VLT_CONFIG that names no file', async () => {
    user('[llm]\nmodel = ""\n')
    await assert.rejects(readConfig(dir, env), { message: `${userFile()}: llm.model must be a non-empty string (got "")` })
    user('[llm\n')
    await assert.rejects(readConfig(dir, env), { message: `${userFile()}: syntax error at line 1, column 5: illegal character in key` })
    const missing = join(home, 'nope.toml')
    await assert.rejects(readConfig(dir, { GIT_VLT_CONFIG: missing }), (error: unknown) => error instanceof UsageError && error.message === `GIT_VLT_CONFIG names ${missing}, which does not exist`)
  })

  it('reports an ignored setting once per process, however often the config is read', async () => {
    writeFileSync(join(dir, 'vlt.toml'), `[notes]\nfolders = ["/once-${basename(dir)}"]\n`)
    const heard: string[] = []
    onConfigWarning((warning) => heard.push(warning))
    try {
      await loadConfig(dir, env)
      await loadConfig(dir, env)
    } finally {
      onConfigWarning(undefined)
    }
    assert.equal(heard.length, 1)
    assert.match(heard[0]!, /^vlt\.toml: notes\.folders "\/once-/)
  })
})

describe('config: validation messages', () => {
  it('names an unknown key and the keys it could have been', () => {
    refuses('[index]\nmax_bytes = 10', 'vlt.toml: unknown key index.max_bytes (expected one of: include, exclude, max_file_bytes, languages, text_files, parse_timeout_ms, parse_memory_mb, memory_mb)')
    refuses('[indexing]\ninclude = []', 'vlt.toml: unknown key indexing (expected one of: index, coderag, embedding, llm, search, query, commits, cache, lsp, scip, notes)')
    refuses('[coderag.delta]\nfiles = 3', 'vlt.toml: unknown key coderag.delta.files (expected one of: file_threshold, line_threshold, timeout_seconds)')
    refuses('maxFileBytes = 3', 'vlt.toml: unknown key maxFileBytes (expected one of: index, coderag, embedding, llm, search, query, commits, cache, lsp, scip, notes)')
  })

  it('refuses values of the wrong type', () => {
    refuses('[index]\nmax_file_bytes = "big"', 'vlt.toml: index.max_file_bytes must be a positive integer (got "big")')
    refuses('[index]\ntext_files = "yes"', 'vlt.toml: index.text_files must be true or false (got "yes")')
    refuses('[index]\nparse_timeout_ms = 10', 'vlt.toml: index.parse_timeout_ms must be an integer of at least 100 (got 10)')
    refuses('[index]\nparse_memory_mb = 64', 'vlt.toml: index.parse_memory_mb must be an integer of at least 128 (got 64)')
    refuses('[index]\nmemory_mb = 8', 'vlt.toml: index.memory_mb must be 0 (sized to the machine) or an integer of at least 16 (got 8)')
    refuses('[query]\nlock_wait_ms = 600000', 'vlt.toml: query.lock_wait_ms must be an integer from 0 to 60000 (got 600000)')
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
      'include', 'exclude', 'max_file_bytes', 'languages', 'text_files', 'parse_timeout_ms', 'parse_memory_mb', 'memory_mb',
      'file_threshold', 'line_threshold', 'timeout_seconds',
      'provider', 'base_url', 'model', 'api_key_env', 'batch_size', 'concurrency', 'timeout_ms',
      'provider', 'base_url', 'model', 'api_key_env', 'timeout_ms', 'max_turns', 'agent_tokens', 'agent_timeout_ms',
      'rerank', 'llm_candidates',
      'daemon', 'lock_wait_ms',
      'max_commits',
      'push', 'header', 'timeout_ms',
      'enabled', 'timeout_ms', 'idle_s',
      'path',
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
