import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { looksLikeSecret, redactSecrets } from '../../src/core/files/index.js'
import { GITLEAKS_VERSION, loadRuleSet } from '../../src/core/files/secret-rules.js'
import { findByRuleId } from '../../src/core/files/secrets.js'
import { sampleOf } from './regex-sample.js'

// Fake credentials are assembled at run time so that this file itself holds none.
const rand = (length: number) => 'a1B2c3D4e5F6g7H8i9J0kLmN0pQ4rS5tU6vW7xY8z9'.repeat(5).slice(0, length)
const hex = (length: number) => '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'.repeat(2).slice(0, length)
const base64Lines = (lines: number) => Array.from({ length: lines }, (_, i) => `${rand(40).slice(i % 7)}${'MIIEpAIBAAKCAQEA7q9Xw'.slice(0, 7 + (i % 7))}${rand(23)}`.slice(0, 64))
export const FAKE = {
  privateKey: ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEpAIBAAKCAQEA' + rand(48), ...base64Lines(3), 'Zm9v==', '-----END RSA PRIVATE KEY-----'].join('\n'),
  opensshKey: ['-----BEGIN OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ' + rand(22), ...base64Lines(4), '-----END OPENSSH PRIVATE KEY-----'].join('\n'),
  aws: 'AKIA' + 'Z7Q2R4XB6N3M5K7J',
  awsSecret: 'wJ4lrXUt' + 'nF3MI/K7MDENG+bPxRfiCY9ZQk2Lp8Xv',
  githubClassic: 'ghp_' + rand(36),
  githubOauth: 'gho_' + rand(36),
  githubFineGrained: 'github_pat_' + rand(82),
  anthropic: 'sk-ant-' + 'api03-' + rand(93) + 'AA',
  openrouter: 'sk-or-' + 'v1-' + hex(64),
  openai: 'sk-' + 'proj-' + rand(74) + 'T3Blbk' + 'FJ' + rand(74),
  slack: 'xoxb-' + '123456789012-1234567890123-' + rand(24),
  google: 'AIza' + 'SyD' + rand(32),
  jwt: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'].join('.'),
}

describe(`files: the secret rules (gitleaks ${GITLEAKS_VERSION}, vendored)`, () => {
  const rules = loadRuleSet().rules

  it('are the pinned upstream file, with its licence, all compiled', () => {
    const dir = new URL('../../src/core/files/gitleaks/', import.meta.url)
    const digest = createHash('sha256').update(readFileSync(new URL('gitleaks.toml', dir))).digest('hex')
    assert.equal(digest, 'e163e53b9e7e8a8511e77271e2b323ed057759542a6d988258afe3a1fa329caf')
    assert.ok(existsSync(new URL('LICENSE', dir)))
    // 222 upstream rules less the 5 tied to paths and the path-only one, plus our 4.
    assert.equal(rules.length, 221)
  })

  // Each rule against a text made from its own pattern, and against the same text with the secret
  // swapped for a placeholder of half its length (as a README or a test fixture would write it).
  for (const [n, rule] of rules.entries()) {
    it(`${rule.id}: finds a secret of its shape, not a placeholder`, () => {
      const sample = sampleOf(rule.pattern.source, n + 1)
      const [start, end] = (rule.secretGroup > 0 ? sample.groups[rule.secretGroup - 1] : rule.secretGroup === 0 ? sample.groups[0] : undefined) ?? [0, sample.text.length]
      // The secret is the rule's secret group: the first capture group, or one inside it.
      const found = findByRuleId(sample.text, rule.id)
      assert.ok(found.length === 1 && found[0]!.start >= start && found[0]!.end <= end, `${JSON.stringify(found)} in ${sample.text}`)
      const secret = sample.text.slice(found[0]!.start, found[0]!.end)
      const keyworded = rule.keywords.some((keyword) => sample.text.toLowerCase().includes(keyword)) ? sample.text : `${rule.keywords[0]}\n${sample.text}`
      assert.ok(!redactSecrets(keyworded).text.includes(secret), `${rule.id}: ${keyworded}`)
      const placeholder = sample.text.slice(0, start) + 'x'.repeat(Math.floor(secret.length / 2)) + sample.text.slice(end)
      assert.deepEqual(findByRuleId(placeholder, rule.id), [], placeholder)
    })
  }
})

describe('files: the secret rules on hostile text', () => {
  it('stay linear: each rule on 40 KB of its keyword repeated on one line takes well under a second', function () {
    this.timeout(120_000)
    // Written for Go's linear RE2, two rules were quadratic under JavaScript's backtracking (31 s for
    // 100 KB of `curl curl …`) before repetitions of `.` were bounded (go-regex.ts).
    const slow: string[] = []
    for (const rule of loadRuleSet().rules) {
      for (const separator of [' ', '=']) {
        const keyword = rule.keywords[0] ?? 'x'
        const text = (keyword + separator).repeat(Math.ceil(40_000 / (keyword.length + 1)))
        const started = performance.now()
        findByRuleId(text, rule.id)
        const elapsed = performance.now() - started
        if (elapsed > 1_000) slow.push(`${rule.id} (${JSON.stringify(separator)}): ${elapsed.toFixed(0)} ms`)
      }
    }
    assert.deepEqual(slow, [])
  })
})

describe('files: redactSecrets', () => {
  const keyLines = FAKE.privateKey.split('\n')
  const cases: Array<[string, string, string]> = [
    ['PEM private key block', `key = """\n${FAKE.privateKey}\n"""`, `key = """\n[REDACTED:private-key]${'\n'.repeat(keyLines.length - 1)}\n"""`],
    ['OpenSSH private key in a README', `Deploy with:\n\n${FAKE.opensshKey}\n`, `Deploy with:\n\n[REDACTED:private-key]${'\n'.repeat(FAKE.opensshKey.split('\n').length - 1)}\n`],
    ['private key as quoted lines of code', `const key =\n${keyLines.map((line) => `  "${line}\\n" +`).join('\n')}\n  ""`, `const key =\n  "[REDACTED:private-key]${'\n'.repeat(keyLines.length - 1)}\\n" +\n  ""`],
    ['private key in JSON', `{"private_key": ${JSON.stringify(`${FAKE.privateKey}\n`)}}`, `{"private_key": "[REDACTED:private-key]\\n"}`],
    ['AWS access key id', `aws_access_key_id = ${FAKE.aws}`, 'aws_access_key_id = [REDACTED:aws-access-token]'],
    ['AWS secret access key (ini)', `aws_secret_access_key = ${FAKE.awsSecret}`, 'aws_secret_access_key = [REDACTED:aws-secret-access-key]'],
    ['AWS secret access key (Python)', `AWS_SECRET_ACCESS_KEY = "${FAKE.awsSecret}"`, 'AWS_SECRET_ACCESS_KEY = "[REDACTED:aws-secret-access-key]"'],
    ['AWS secret access key (JSON)', `{"SecretAccessKey": "${FAKE.awsSecret}"}`, '{"SecretAccessKey": "[REDACTED:aws-secret-access-key]"}'],
    ['GitHub classic token', `const t = "${FAKE.githubClassic}";`, 'const t = "[REDACTED:github-pat]";'],
    ['GitHub OAuth token', `auth: ${FAKE.githubOauth}`, 'auth: [REDACTED:github-oauth]'],
    ['GitHub fine-grained token', `GH=${FAKE.githubFineGrained}`, 'GH=[REDACTED:github-fine-grained-pat]'],
    ['Anthropic key', `client = Anthropic(api_key="${FAKE.anthropic}")`, 'client = Anthropic(api_key="[REDACTED:anthropic-api-key]")'],
    ['OpenRouter key', `Authorization: Bearer ${FAKE.openrouter}`, 'Authorization: Bearer [REDACTED:openrouter-api-key]'],
    ['OpenAI project key', `openai.api_key = '${FAKE.openai}'`, "openai.api_key = '[REDACTED:openai-api-key]'"],
    ['OpenAI key of another layout', `OPENAI_API_KEY = "sk-proj-${'Q7vR2mXk9LpT4sWz8NcB1yHj6FdG3aKe5uYo0iMn'}"`, 'OPENAI_API_KEY = "[REDACTED:openai-prefixed-key]"'],
    ['Anthropic admin key', `key: sk-ant-admin01-${rand(48)}`, 'key: [REDACTED:anthropic-prefixed-key]'],
    ['Slack token', `slack(${JSON.stringify(FAKE.slack)})`, 'slack("[REDACTED:slack-bot-token]")'],
    ['Google API key', `GOOGLE_MAPS = '${FAKE.google}'`, "GOOGLE_MAPS = '[REDACTED:gcp-api-key]'"],
    ['JWT', `const session = "${FAKE.jwt}"`, 'const session = "[REDACTED:jwt]"'],
    ['curl credentials', `curl -H "Authorization: Bearer ${FAKE.jwt}"`, 'curl -H "Authorization: Bearer [REDACTED:curl-auth-header]"'],
    ['password assignment', 'DB_PASSWORD = "q8Zr2mX4vK9pL1sT"', 'DB_PASSWORD = "[REDACTED:generic-api-key]"'],
    ['JSON api_key', '{"api_key": "a3f5c9e1b7d24680a3f5c9e1b7d24680"}', '{"api_key": "[REDACTED:generic-api-key]"}'],
    ['unquoted env token', 'export SECRET_TOKEN=Zk4mP9qR2sT7vW1xY5', 'export SECRET_TOKEN=[REDACTED:generic-api-key]'],
    ['camelCase key in YAML', "  apiKey: 'Xy7Kp2Lm9Qr4St8V'", "  apiKey: '[REDACTED:generic-api-key]'"],
    ['Go short assignment', 'secret := "n0Tr3allyS3cr3tV4lu3"', 'secret := "[REDACTED:generic-api-key]"'],
  ]
  for (const [name, input, expected] of cases) {
    it(`redacts a ${name}`, () => {
      assert.deepEqual(redactSecrets(input), { text: expected, redactions: 1 })
      assert.equal(looksLikeSecret(input), true)
    })
  }

  it('redacts every secret of a text and keeps its lines', () => {
    const input = `a = "${FAKE.aws}"\nb = "${FAKE.google}"\nc = 1\n`
    assert.deepEqual(redactSecrets(input), { text: 'a = "[REDACTED:aws-access-token]"\nb = "[REDACTED:gcp-api-key]"\nc = 1\n', redactions: 2 })
  })

  it('keeps every column with keepColumns: each secret becomes a marker padded to its length', () => {
    const input = `x = "${FAKE.githubClassic}"; y = f(x)\nkey = """\n${FAKE.privateKey}\n"""\nlast = "${FAKE.aws}"\n`
    const { text } = redactSecrets(input, { keepColumns: true })
    assert.equal(text.length, input.length)
    assert.deepEqual(text.split('\n').map((line) => line.length), input.split('\n').map((line) => line.length))
    assert.equal(text.split('\n')[0], `x = "[REDACTED:github-pat]${' '.repeat(40 - 21)}"; y = f(x)`)
    assert.ok(!text.includes(FAKE.githubClassic) && !text.includes('MIIEpAIBAAKCAQEA') && !text.includes(FAKE.aws))
  })

  const harmless = [
    'password = "correct horse battery staple"',
    'token = request.headers.get("Authorization")',
    'SECRET_KEY = settings.SECRET_KEY',
    'password_field = "password_confirmation"',
    'tokenizer = "bert-base-uncased"',
    'token_type: "Bearer"',
    'api_key = os.environ["OPENAI_API_KEY"]',
    'aws_secret_access_key = os.environ["AWS_SECRET_ACCESS_KEY"]',
    // A run of the alphabet is a placeholder (gitleaks' stop word), not a key.
    'OPENAI_API_KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"',
    'const apiKey = process.env.OPENROUTER_API_KEY',
    'secret_version = "v1.2.3-beta.4-build.5"',
    ' * "0000:04:10.0 vf_token=bd8d9d2b-5a5f-4f5a-a211-f591514ba1f3"',
    'token = get_token_for_user123456(request)',
    'password = "${DB_PASSWORD}"',
    'name = "sk-learn-compatible-estimator-name"',
    'const prefix = "sk-" + name',
    'static const char hdr[] = "-----BEGIN RSA PRIVATE KEY-----";',
    'id = "akiaiosfodnn7example"',
    'x = eyJhbGciOiJIUzI1NiJ9',
    'passwordResetTokenGenerator = PasswordResetTokenGenerator()',
    // What gitleaks' generic rule alone took for keys in Linux 6.1: constants and functions.
    'keylen -= CTR_RFC3686_NONCE_SIZE;',
    'ctx->key_type = OTX2_CPT_AES_256_BIT;',
    'inst->alg.setkey = crypto_rfc4309_setkey;',
    'mctx->key = CRC32C_INIT_DEFAULT;',
    // AWS's documented example keys.
    `aws_access_key_id = ${'AKIA' + 'IOSFODNN7EXAMPLE'}`,
    `aws_secret_access_key = ${'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY'}`,
  ]
  for (const line of harmless) {
    it(`leaves ${JSON.stringify(line)} alone`, () => {
      assert.deepEqual(redactSecrets(line), { text: line, redactions: 0 })
      assert.equal(looksLikeSecret(line), false)
    })
  }

  it('finds nothing in real source files', () => {
    const files = [
      ...sourceFiles('src'),
      'node_modules/smol-toml/dist/parse.js',
      'node_modules/picomatch/lib/parse.js',
      'node_modules/msgpackr/unpack.js',
      'node_modules/typescript/lib/lib.dom.d.ts',
      'node_modules/@oclif/core/lib/config/config.js',
    ]
    assert.ok(files.length > 20)
    for (const file of files) {
      const text = readFileSync(file, 'utf8')
      assert.equal(redactSecrets(text).redactions, 0, file)
    }
  })
})

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(?:ts|scm)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
}
