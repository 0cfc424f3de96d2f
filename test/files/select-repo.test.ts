import assert from 'node:assert/strict'
import { loadConfig } from '../../src/core/config/index.js'
import { classifyContent, createFileSelector } from '../../src/core/files/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('files: selection in a git repository', () => {
  let repo: GitFixture
  before(() => {
    repo = createGitRepo({
      files: {
        '.gitignore': 'build/\n*.log\n',
        'vlt.toml': '[index]\nexclude = ["docs/drafts/"]\nmax_file_bytes = 64\n',
        'src/app.py': 'print("hi")\n',
        'src/gen/schema.ts': 'export type T = 1\n',
        'docs/guide.md': '# Guide\n',
        'docs/drafts/idea.md': '# Idea\n',
        'config/.env.production': 'DB_PASSWORD=x\n',
        '.env.example': 'DB_PASSWORD=\n',
        'web/package-lock.json': '{}\n',
        'assets/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]),
        'data/big.txt': 'x'.repeat(100),
      },
    })
    // Ignored by .gitignore, so git never lists them.
    repo.write({ 'build/out.js': 'x\n', 'debug.log': 'x\n' })
  })
  after(() => repo.cleanup())

  it('selects what git lists, under vlt.toml', async () => {
    const config = await loadConfig(repo.dir)
    const select = createFileSelector(config)
    const paths = repo.git('ls-files', '--cached', '--others', '--exclude-standard').split('\n')
    const outcome = Object.fromEntries(paths.map((path) => {
      const selection = select(path)
      return [path, selection.selected ? selection.language : `-${selection.reason}`]
    }))
    assert.deepEqual(outcome, {
      '.env.example': 'text',
      '.gitignore': 'text',
      'assets/logo.png': '-excluded',
      'config/.env.production': '-secret',
      'data/big.txt': 'text',
      'docs/drafts/idea.md': '-excluded',
      'docs/guide.md': 'text',
      'src/app.py': 'python',
      'src/gen/schema.ts': 'typescript',
      'vlt.toml': 'text',
      'web/package-lock.json': '-excluded',
    })
    const big = Buffer.from(repo.git('cat-file', 'blob', 'HEAD:data/big.txt'))
    assert.deepEqual(classifyContent(big, config.index.maxFileBytes), { ok: false, reason: 'tooLarge' })
  })
})
