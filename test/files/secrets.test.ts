import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { looksLikeSecret, redactSecrets } from '../../src/core/files/index.js'

// Fake credentials are assembled at run time so that this file itself holds none.
const rand = (length: number) => 'a1B2c3D4e5F6g7H8i9J0kLmN0pQ4rS5tU6vW7xY8z9'.repeat(4).slice(0, length)
export const FAKE = {
  privateKey: ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEpAIBAAKCAQEA' + rand(48), rand(64), 'Zm9v==', '-----END RSA PRIVATE KEY-----'].join('\n'),
  aws: 'AKIA' + 'IOSFODNN7EXAMPLE',
  githubClassic: 'ghp_' + rand(36),
  githubOauth: 'gho_' + rand(36),
  githubFineGrained: 'github_pat_' + '11ABCDEFG0' + rand(50),
  anthropic: 'sk-ant-' + 'api03-' + rand(40),
  openrouter: 'sk-or-' + 'v1-' + '0123456789abcdef'.repeat(4),
  openaiProject: 'sk-' + 'proj-' + rand(40),
  openaiLegacy: 'sk-' + rand(48),
  slack: 'xoxb-' + '123456789012-1234567890123-' + rand(24),
  google: 'AIza' + 'SyD' + rand(32),
  jwt: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'].join('.'),
}

describe('files: redactSecrets', () => {
  const cases: Array<[string, string, string]> = [
    ['private key block', `key = """\n${FAKE.privateKey}\n"""`, 'key = """\n[REDACTED:private-key]\n"""'],
    ['AWS access key id', `aws_access_key_id = ${FAKE.aws}`, 'aws_access_key_id = [REDACTED:aws-access-key]'],
    ['GitHub classic token', `const t = "${FAKE.githubClassic}";`, 'const t = "[REDACTED:github-token]";'],
    ['GitHub OAuth token', `auth: ${FAKE.githubOauth}`, 'auth: [REDACTED:github-token]'],
    ['GitHub fine-grained token', `GH=${FAKE.githubFineGrained}`, 'GH=[REDACTED:github-token]'],
    ['Anthropic key', `client = Anthropic(api_key="${FAKE.anthropic}")`, 'client = Anthropic(api_key="[REDACTED:anthropic-key]")'],
    ['OpenRouter key', `Authorization: Bearer ${FAKE.openrouter}`, 'Authorization: Bearer [REDACTED:openrouter-key]'],
    ['OpenAI project key', `openai.api_key = '${FAKE.openaiProject}'`, "openai.api_key = '[REDACTED:openai-key]'"],
    ['OpenAI legacy key', `key: ${FAKE.openaiLegacy}`, 'key: [REDACTED:openai-key]'],
    ['Slack token', `slack(${JSON.stringify(FAKE.slack)})`, 'slack("[REDACTED:slack-token]")'],
    ['Google API key', `maps?key=${FAKE.google}&v=3`, 'maps?key=[REDACTED:google-api-key]&v=3'],
    ['JWT', `curl -H "Authorization: Bearer ${FAKE.jwt}"`, 'curl -H "Authorization: Bearer [REDACTED:jwt]"'],
    ['password assignment', 'DB_PASSWORD = "q8Zr2mX4vK9pL1sT"', 'DB_PASSWORD = "[REDACTED:credential]"'],
    ['JSON api_key', '{"api_key": "a3f5c9e1b7d24680a3f5c9e1b7d24680"}', '{"api_key": "[REDACTED:credential]"}'],
    ['unquoted env token', 'export SECRET_TOKEN=Zk4mP9qR2sT7vW1xY5', 'export SECRET_TOKEN=[REDACTED:credential]'],
    ['camelCase key in YAML', "  apiKey: 'Xy7Kp2Lm9Qr4St8V'", "  apiKey: '[REDACTED:credential]'"],
    ['Go short assignment', 'secret := "n0Tr3allyS3cr3tV4lu3"', 'secret := "[REDACTED:credential]"'],
  ]
  for (const [name, input, expected] of cases) {
    it(`redacts a ${name}`, () => {
      assert.deepEqual(redactSecrets(input), { text: expected, redactions: 1 })
      assert.equal(looksLikeSecret(input), true)
    })
  }

  it('redacts every secret of a text and keeps its lines', () => {
    const input = `a = "${FAKE.aws}"\nb = "${FAKE.google}"\nc = 1\n`
    assert.deepEqual(redactSecrets(input), { text: 'a = "[REDACTED:aws-access-key]"\nb = "[REDACTED:google-api-key]"\nc = 1\n', redactions: 2 })
  })

  const harmless = [
    'password = "correct horse battery staple"',
    'token = request.headers.get("Authorization")',
    'SECRET_KEY = settings.SECRET_KEY',
    'password_field = "password_confirmation"',
    'tokenizer = "bert-base-uncased"',
    'token_type: "Bearer"',
    'api_key = os.environ["OPENAI_API_KEY"]',
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
      'node_modules/ignore/index.js',
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
