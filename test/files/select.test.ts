import assert from 'node:assert/strict'
import { parseConfig } from '../../src/core/config/index.js'
import { createFileSelector, type FileSelection } from '../../src/core/files/index.js'

/** A selector for the `[index]` table given as TOML lines. */
function selector(...indexLines: string[]) {
  return createFileSelector(parseConfig(['[index]', ...indexLines].join('\n')))
}

/** Selections of many paths at once, as a compact `path → language | -reason` map. */
function outcomes(select: (path: string) => FileSelection, paths: string[]): Record<string, string> {
  return Object.fromEntries(paths.map((path) => {
    const selection = select(path)
    return [path, selection.selected ? selection.language : `-${selection.reason}`]
  }))
}

describe('files: createFileSelector', () => {
  it('assigns parsed languages, and text to other files', () => {
    assert.deepEqual(outcomes(selector(), ['src/app.py', 'web/App.tsx', 'lib/x.MJS', 'kernel/fork.c', 'Rakefile', 'README.md', 'Makefile', 'docs/a/b.txt']), {
      'src/app.py': 'python',
      'web/App.tsx': 'tsx',
      'lib/x.MJS': 'javascript',
      'kernel/fork.c': 'c',
      Rakefile: 'ruby',
      'README.md': 'text',
      Makefile: 'text',
      'docs/a/b.txt': 'text',
    })
  })

  it('skips other files as language when text_files is off', () => {
    assert.deepEqual(outcomes(selector('text_files = false'), ['a.go', 'README.md', 'Dockerfile']), {
      'a.go': 'go',
      'README.md': '-language',
      Dockerfile: '-language',
    })
  })

  it('restricts to the listed languages; text must be listed to be kept', () => {
    assert.deepEqual(outcomes(selector('languages = ["python"]'), ['a.py', 'b.ts', 'notes.md']), {
      'a.py': 'python',
      'b.ts': '-language',
      'notes.md': '-language',
    })
    assert.deepEqual(outcomes(selector('languages = ["python", "text"]'), ['a.py', 'b.ts', 'notes.md']), {
      'a.py': 'python',
      'b.ts': '-language',
      'notes.md': 'text',
    })
  })

  it('excludes tool state, dependencies, lockfiles, bundles and binary formats', () => {
    const paths = [
      '.vlt/state.mpk', 'node_modules/x/index.js', 'web/node_modules/y/a.ts', 'vendor/github.com/x/y.go', 'app/vendor/lib.rb',
      'package-lock.json', 'web/yarn.lock', 'pnpm-lock.yaml', 'Cargo.lock', 'poetry.lock', 'go.sum', 'Gemfile.lock',
      'dist/app.min.js', 'css/site.MIN.css', 'dist/app.js.map',
      'img/logo.png', 'img/photo.JPG', 'release.tar.gz', 'fonts/a.woff2', 'pkg/x.wasm', 'docs/spec.pdf', 'lib/libx.so',
      'mod/__pycache__/a.cpython-311.pyc',
    ]
    assert.deepEqual(Object.values(outcomes(selector(), paths)), paths.map(() => '-excluded'))
    // Names that merely resemble the built-ins are kept.
    assert.deepEqual(outcomes(selector(), ['vendors.ts', 'src/vendor.go', 'lock.json', 'admin.js', 'map.py', 'sitemap.xml']), {
      'vendors.ts': 'typescript',
      'src/vendor.go': 'go',
      'lock.json': 'text',
      'admin.js': 'javascript',
      'map.py': 'python',
      'sitemap.xml': 'text',
    })
  })

  it('recognises credential files by name, at any depth', () => {
    const secrets = [
      '.env', 'a/b/.env', 'config/.env.production', '.env.local', 'deploy/server.pem', 'certs/tls.key', 'home/.ssh/id_rsa',
      '.ssh/id_ed25519.pub', 'keys/store.p12', 'win/cert.pfx', '.npmrc', 'pkg/.pypirc', '.netrc', 'gcp/credentials.json',
      'credentials-prod.json', 'service-account-ci.json', '.aws/credentials', 'ops/.aws/credentials', '.git-credentials',
      'android/release.keystore', 'java/trust.jks', 'config/secrets.yml', 'secrets.yaml', 'client_secret_123.json',
    ]
    assert.deepEqual(Object.values(outcomes(selector(), secrets)), secrets.map(() => '-secret'))
    assert.deepEqual(outcomes(selector(), ['.env.example', 'config/.env.sample', '.env.template', '.env.local.example', 'env.py', 'src/keys.ts', 'credentials.py', 'aws/credentials.md', 'docs/secrets.md']), {
      '.env.example': 'text',
      'config/.env.sample': 'text',
      '.env.template': 'text',
      '.env.local.example': 'text',
      'env.py': 'python',
      'src/keys.ts': 'typescript',
      'credentials.py': 'python',
      'aws/credentials.md': 'text',
      'docs/secrets.md': 'text',
    })
  })

  it('recognises deploy keys, dotenv files under other names and other credential stores', () => {
    const secrets = [
      'deploy_key', 'ci/deploy_key', 'deploy-key', '.github/github-deploy-key', 'keys/deploy_key.old', 'deploykey', 'prod_deploy_key.txt',
      'config.env', 'docker/production.env', '.envrc', 'secrets.json', 'config/secrets.toml', '.vault-token',
      'infra/terraform.tfstate', 'infra/terraform.tfstate.backup', '.kube/config', '.ssh/id_ecdsa_sk',
    ]
    assert.deepEqual(Object.values(outcomes(selector(), secrets)), secrets.map(() => '-secret'))
    assert.deepEqual(outcomes(selector(), ['deploy.py', 'docs/deploy_keys.md', 'deploy_keyring.py', 'environment.ts', 'src/env.ts', 'config.env.example', 'tfstate.md']), {
      'deploy.py': 'python',
      'docs/deploy_keys.md': 'text',
      'deploy_keyring.py': 'python',
      'environment.ts': 'typescript',
      'src/env.ts': 'typescript',
      'config.env.example': 'text',
      'tfstate.md': 'text',
    })
  })

  it('applies include globs gitignore-style', () => {
    const select = selector('include = ["src/**", "*.md"]')
    assert.deepEqual(outcomes(select, ['src/a.ts', 'src/deep/er/b.py', 'lib/src/c.ts', 'README.md', 'docs/guide.md', 'setup.py']), {
      'src/a.ts': 'typescript',
      'src/deep/er/b.py': 'python',
      'lib/src/c.ts': '-excluded',
      'README.md': 'text',
      'docs/guide.md': 'text',
      'setup.py': '-excluded',
    })
  })

  it('applies exclude globs: names at any depth, anchored paths, directories, negation', () => {
    const select = selector('exclude = ["*.test.ts", "/build", "fixtures/", "src/gen/**", "!src/gen/keep.ts"]')
    assert.deepEqual(
      outcomes(select, [
        'src/a.test.ts', 'a.test.ts', 'src/a.ts', 'build/out.js', 'tools/build/x.js', 'test/fixtures/a.py', 'fixtures', 'src/gen/x.ts', 'src/gen/keep.ts',
      ]),
      {
        'src/a.test.ts': '-excluded',
        'a.test.ts': '-excluded',
        'src/a.ts': 'typescript',
        'build/out.js': '-excluded',
        'tools/build/x.js': 'javascript',
        'test/fixtures/a.py': '-excluded',
        fixtures: 'text',
        'src/gen/x.ts': '-excluded',
        'src/gen/keep.ts': 'typescript',
      },
    )
  })

  it('lets an include negation carve a folder out, and matches dotfiles', () => {
    const select = selector('include = ["src/**", "!src/gen/**", ".github/**"]')
    assert.deepEqual(outcomes(select, ['src/a.ts', 'src/gen/b.ts', '.github/workflows/ci.yml', 'src/.hidden.py']), {
      'src/a.ts': 'typescript',
      'src/gen/b.ts': '-excluded',
      '.github/workflows/ci.yml': 'text',
      'src/.hidden.py': 'python',
    })
  })

  it('reports an excluded credential file as excluded, not secret', () => {
    assert.deepEqual(outcomes(selector('exclude = ["config/"]'), ['config/.env', '.env']), { 'config/.env': '-excluded', '.env': '-secret' })
  })

  // Its speed is measured by `npm run bench -- index` (selection is part of every init), not timed here.
  it('selects the right half of 70,000 paths under nested include/exclude rules', () => {
    const select = selector('include = ["src/**", "lib/**", "!**/gen/**"]', 'exclude = ["*.test.ts", "docs/"]')
    const paths: string[] = []
    const names = ['index.ts', 'util.py', 'main.c', 'README.md', 'logo.png', '.env', 'x.test.ts', 'package-lock.json']
    for (let i = 0; i < 70_000; i++) paths.push(`${i % 2 ? 'src' : 'lib'}/mod${i % 97}/sub${i % 13}/${names[i % names.length]}`)
    let selected = 0
    for (const path of paths) if (select(path).selected) selected++
    assert.equal(selected, 35_000)
  })
})
