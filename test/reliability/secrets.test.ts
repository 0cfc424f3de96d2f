/**
 * Secrets never leave their file (issue 17, items 10-11), end to end on a real repository with the
 * built CLI: a committed config.env, a deploy key, a README with an OpenSSH private key and an AWS
 * secret key in Python code are indexed (or skipped) without the secrets reaching any record under
 * .vlt/, any search result, or the oracle's session log, which is a committed file; a Claude Code
 * transcript holding a token is ingested redacted, and its excerpts stay out of the session log
 * unless --log-history.
 */
import { strict as assert } from 'node:assert'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { projectDirName } from '../../src/core/history/locate.js'
import { BlobStore } from '../../src/core/index/blob-store.js'
import { vltPaths } from '../../src/core/store/index.js'
import { vlt, vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

// Assembled at run time, so that this file holds none of them.
const AWS_SECRET = 'Hq8vN2kR7tX4' + 'pL9sW3mZ6yB1cF5gJ0dA/K+eUoQi'
const ENV_PASSWORD = 'u7Kx2Qp9' + 'Lm4Vz8Rt3Nw6'
const GITHUB_TOKEN = 'ghp_' + 'R4nd0mT0k3nV4lu3sXq9Zp2Lm7Kw8Jd5Hf1Y'
const KEY_BODY = ['b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW', 'QyNTUxOQAAACDq8vN2kR7tX4pL9sW3mZ6yB1cF5gJ0dAeUoQiHb9xYzAAAAJgxK7f2MSu3', '9gAAAAtzc2gtZWQyNTUxOQAAACDq8vN2kR7tX4pL9sW3mZ6yB1cF5gJ0dAeUoQiHb9xYzA']
const OPENSSH_KEY = ['-----BEGIN OPENSSH' + ' PRIVATE KEY-----', ...KEY_BODY, '-----END OPENSSH' + ' PRIVATE KEY-----'].join('\n')
/** A password no pattern would call random: only the file's name (config.env) keeps it out. */
const WEAK_PASSWORD = 'tuesday' + 'bagels42'
/** The deploy key file holds a key cut short (no END line): only its name gives it away. */
const DEPLOY_BODY = ['MIIEowIBAAKCAQEAr7Zq2Xv9Lk4Tn8Wm3Pd6Hs1Jf5Gc0Ba7Ye2Ru9Ko4Ix8Vw3Qt6Nz1', 'Ml5Sp0Dh7Fg2Cj9Bk4Ax8Ey3Wu6Ri1To5Lq0Pn7Mv2Ks9Jz4Hb8Gd3Fc6Xe1Yw5Ut0Ro']
const DEPLOY_KEY = ['-----BEGIN RSA' + ' PRIVATE KEY-----', ...DEPLOY_BODY].join('\n')
/** A test fixture's key, quoted line by line as code writes it. */
const FIXTURE_BODY = ['MIICXAIBAAKBgQCq3Tn8Wm3Pd6Hs1Jf5Gc0Ba7Ye2Ru9Ko4Ix8Vw3Qt6Nz1Ml5Sp0Dh', 'Fg2Cj9Bk4Ax8Ey3Wu6Ri1To5Lq0Pn7Mv2Ks9Jz4Hb8Gd3Fc6Xe1Yw5Ut0RoAgMBAAEC']
const FIXTURE_KEY = ['-----BEGIN RSA' + ' PRIVATE KEY-----', ...FIXTURE_BODY, '-----END RSA' + ' PRIVATE KEY-----']
const MIRROR_SECRET = AWS_SECRET.split('').reverse().join('')
const SECRETS = [AWS_SECRET, MIRROR_SECRET, ENV_PASSWORD, WEAK_PASSWORD, GITHUB_TOKEN, ...KEY_BODY, ...DEPLOY_BODY, ...FIXTURE_BODY]
/** Words only the transcript says: present in a session log only if an excerpt was logged. */
const TRANSCRIPT_WORDS = 'rotate the bucket credentials every Tuesday'

const SETTINGS = [
  'import storage',
  '',
  `AWS_SECRET_ACCESS_KEY = "${AWS_SECRET}"; CLIENT = make_client(AWS_SECRET_ACCESS_KEY)`,
  '',
  '',
  'def make_client(secret):',
  '    """The storage client for the upload bucket."""',
  '    return storage.Client(secret=secret)',
  '',
  '',
  'def bucket_client():',
  '    """The client that uploads build artifacts to the bucket."""',
  '    return CLIENT',
  '',
  '',
  'def mirror_client():',
  '    """The client of the mirror bucket, with its own key."""',
  `    return storage.Client(secret="${MIRROR_SECRET}")`,
  '',
].join('\n')

describe('secrets never leave their file (built CLI, real repository)', function () {
  this.timeout(180_000)
  let repo: GitFixture
  let configDir: string

  beforeEach(() => {
    repo = createGitRepo({
      files: {
        'config.env': `DATABASE_PASSWORD=${ENV_PASSWORD}\nSMTP_PASSWORD=${WEAK_PASSWORD}\nDEBUG=false\n`,
        deploy_key: `${DEPLOY_KEY}\n`,
        'tests/test_keys.py': `KEY = (\n${FIXTURE_KEY.map((line) => `    "${line}\\n"`).join('\n')}\n)\n\n\ndef test_loads_key():\n    assert load(KEY)\n`,
        'README.md': `# Uploads\n\nArtifacts go to the bucket through \`bucket_client\`.\n\nThe CI deploy key:\n\n\`\`\`\n${OPENSSH_KEY}\n\`\`\`\n\n${'Uploads retry three times before giving up.\n'.repeat(30)}`,
        'app/settings.py': SETTINGS,
        'app/ci.py': `GITHUB_TOKEN = "${GITHUB_TOKEN}"\n\n\ndef clone_url(repo):\n    return f"https://x:{GITHUB_TOKEN}@github.com/{repo}"\n`,
      },
    })
    configDir = realpathSync(mkdtempSync(join(tmpdir(), 'vlt-claude-')))
  })
  afterEach(() => {
    repo.cleanup()
    rmSync(configDir, { recursive: true, force: true })
  })

  it('indexes no secret: files named like credentials are skipped, secrets inside other files are redacted in every record', () => {
    const init = vltJson(repo.dir, ['coderag', 'init'])
    assert.ok(init, 'init ran')
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.match(JSON.stringify(status), /secret/)

    for (const secret of SECRETS) {
      const { results } = vltJson(repo.dir, ['coderag', 'search', secret])
      assert.ok(!JSON.stringify(results).includes(secret), `search ${secret}: ${JSON.stringify(results).slice(0, 400)}`)
    }
    // The files themselves are still indexed: their code is found, their secrets are not.
    const settings = vltJson(repo.dir, ['coderag', 'search', 'storage client upload bucket'])
    assert.ok(JSON.stringify(settings).includes('app/settings.py'), JSON.stringify(settings).slice(0, 400))

    // Every blob record of HEAD's tree, decoded, and every byte under .vlt/.
    const store = new BlobStore(vltPaths(join(repo.dir, '.vlt')))
    const blobs = repo.git('ls-tree', '-r', 'HEAD').split('\n').map((line) => line.split(/\s+/)[2]!)
    let decoded = 0
    for (const blob of blobs) {
      for (const language of ['python', 'text'] as const) {
        const record = store.read({ blob, language })
        if (!record) continue
        decoded++
        const text = JSON.stringify(record)
        for (const secret of SECRETS) assert.ok(!text.includes(secret), `blob ${blob} (${language}) holds ${secret}`)
      }
    }
    assert.ok(decoded >= 3, `decoded ${decoded} records`)
    assertNoSecretUnder(join(repo.dir, '.vlt'))
  })

  it('keeps lines and columns of code around a redacted secret', () => {
    vltJson(repo.dir, ['coderag', 'init'])
    const refs = vltJson(repo.dir, ['coderag', 'refs', 'make_client'])
    const raw = SETTINGS.split('\n')
    const onSecretLine = JSON.stringify(refs).match(/"line":3,"column":(\d+)/)
    assert.ok(onSecretLine, JSON.stringify(refs))
    assert.equal(Number(onSecretLine[1]), raw[2]!.indexOf('make_client'))
    assert.ok(!JSON.stringify(refs).includes(AWS_SECRET))
    const def = vltJson(repo.dir, ['coderag', 'def', 'bucket_client'])
    assert.match(JSON.stringify(def), /"line":11/)
  })

  it('writes no secret to the oracle session log, a committed thread', () => {
    for (const question of ['where is mirror_client defined', 'where is bucket_client defined', 'how does clone_url build the url']) {
      const run = vlt(repo.dir, ['oracle', question, '--source', 'code,vault'])
      assert.equal(run.status, 0, run.stderr)
    }
    const log = sessionLog(repo.dir)
    assert.match(log, /mirror_client/)
    for (const secret of SECRETS) assert.ok(!log.includes(secret), `the session log holds ${secret}:\n${log}`)
    // A thread pushed by hand is redacted the same way.
    const push = vlt(repo.dir, ['thread', 'push', 'ops', `rotated ${GITHUB_TOKEN} today`], {})
    assert.ok(push.status === 0 || /no thread named/.test(push.stderr), push.stderr)
    if (push.status !== 0) {
      assert.equal(vlt(repo.dir, ['thread', 'new', 'ops']).status, 0)
      assert.equal(vlt(repo.dir, ['thread', 'push', 'ops', `rotated ${GITHUB_TOKEN} today`]).status, 0)
    }
    const ops = readFileSync(join(repo.dir, '.vlt', 'threads', 'ops.md'), 'utf8')
    assert.ok(!ops.includes(GITHUB_TOKEN) && ops.includes('[REDACTED:github-pat]'), ops)
  })

  it('ingests transcripts redacted, and logs their excerpts only with --log-history', () => {
    installTranscript(repo.dir, configDir)
    const env = { CLAUDE_CONFIG_DIR: configDir }
    const search = vltJson(repo.dir, ['history', 'search', 'rotate bucket credentials'], env)
    assert.ok(search.results.length > 0, JSON.stringify(search))
    assert.ok(!JSON.stringify(search.results).includes(GITHUB_TOKEN), JSON.stringify(search))
    assertNoSecretUnder(join(repo.dir, '.vlt', 'history'))

    const question = 'how do we rotate the bucket credentials'
    const quiet = vltJson(repo.dir, ['oracle', question, '--source', 'history'], env)
    assert.ok(quiet.sources.some((s: { sourceType: string }) => s.sourceType === 'history'), JSON.stringify(quiet.sources))
    assert.ok(!JSON.stringify(quiet).includes(GITHUB_TOKEN), 'the answer holds no token either')
    let log = sessionLog(repo.dir)
    assert.ok(!log.includes(TRANSCRIPT_WORDS), `an excerpt was logged without --log-history:\n${log}`)
    assert.match(log, /agent conversation excerpt\(s\) not logged/)

    assert.equal(vlt(repo.dir, ['oracle', question, '--source', 'history', '--log-history'], env).status, 0)
    log = sessionLog(repo.dir)
    assert.ok(log.includes(TRANSCRIPT_WORDS), `--log-history logs the excerpt:\n${log}`)
    assert.ok(!log.includes(GITHUB_TOKEN) && log.includes('[REDACTED:github-pat]'), log)
  })

  it('refuses --log-history with --no-log as a usage mistake', () => {
    const run = vlt(repo.dir, ['oracle', 'where is bucket_client defined', '--no-log', '--log-history'])
    assert.equal(run.status, 2, run.stderr)
  })
})

function sessionLog(root: string): string {
  const dir = join(root, '.vlt', 'threads')
  const names = readdirSync(dir).filter((name) => name.startsWith('oracle-session-'))
  assert.equal(names.length, 1, names.join(', '))
  return readFileSync(join(dir, names[0]!), 'utf8')
}

/** No file under `dir` holds any of the secrets, byte for byte (records are msgpack: strings are stored as UTF-8). */
function assertNoSecretUnder(dir: string): void {
  let files = 0
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    if (statSync(path).size === 0) continue
    files++
    const bytes = readFileSync(path)
    for (const secret of SECRETS) assert.ok(!bytes.includes(secret), `${path} holds ${secret}`)
  }
  assert.ok(files > 0, `no file under ${dir}`)
}

/** One Claude Code session about the repository, whose prompt pastes a token. */
function installTranscript(root: string, configDir: string): void {
  const session = '5b0e6c1a-7f3d-4c2e-9a81-3e4d5f6a7b8c'
  const base = { cwd: root, sessionId: session, version: '2.1.12', gitBranch: 'main', isSidechain: false, userType: 'external' }
  const lines = [
    { ...base, type: 'user', uuid: 'u-1', timestamp: '2025-06-10T09:00:00.000Z', message: { role: 'user', content: `How do we rotate the bucket credentials? The current token is ${GITHUB_TOKEN}` } },
    { ...base, type: 'assistant', uuid: 'a-1', timestamp: '2025-06-10T09:00:05.000Z', message: { id: 'msg_1', role: 'assistant', model: 'claude-opus-4-5', content: [{ type: 'text', text: `We ${TRANSCRIPT_WORDS}: bucket_client reads the new key from settings.` }] } },
    { ...base, type: 'user', uuid: 'u-2', timestamp: '2025-06-10T09:01:00.000Z', message: { role: 'user', content: 'Thanks.' } },
  ]
  const path = join(configDir, 'projects', projectDirName(root), `${session}.jsonl`)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n') + '\n')
  const hourAgo = new Date(Date.now() - 3_600_000)
  utimesSync(path, hourAgo, hourAgo)
}
