import { strict as assert } from 'node:assert'
import { cpSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { vlt, vltJson } from '../helpers/cli.js'

const TEMPLATES = fileURLToPath(new URL('../../templates/ci/', import.meta.url))

describe('CI caching of .vlt/', function () {
  this.timeout(120_000)
  let first: GitFixture
  let second: GitFixture
  afterEach(() => {
    first?.cleanup()
    second?.cleanup()
  })

  it('a job that restores the cache of an earlier tree extracts only the changed blobs', () => {
    first = createGitRepo({ files: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`src/m${i}.py`, `def f${i}():\n    return ${i}\n`])) })
    assert.equal(vltJson(first.dir, ['coderag', 'init', '--ci']).extracted, 20)

    // A later CI run: a fresh clone at a newer commit, with .vlt/ restored from the cache.
    first.write({ 'src/m3.py': 'def f3():\n    return 300\n', 'src/new.py': 'def g():\n    return 0\n' })
    first.commit('two changes')
    second = createGitRepo()
    second.git('pull', '-q', first.dir, 'main')
    cpSync(join(first.dir, '.vlt'), join(second.dir, '.vlt'), { recursive: true })
    const run = vlt(second.dir, ['coderag', 'init', '--ci'])
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stderr, '')
    assert.match(run.stdout, /^Indexed tree [0-9a-f]{12}: 21 files/)
    const again = vltJson(second.dir, ['coderag', 'init', '--ci', '--force'])
    assert.equal(again.extracted, 21)
  })

  it('the templates key the cache by the tree hash with a fallback and run init --ci', () => {
    const github = readFileSync(join(TEMPLATES, 'github-actions.yml'), 'utf8')
    assert.match(github, /git rev-parse HEAD\^\{tree\}/)
    assert.match(github, /key: vlt-\$\{\{ runner\.os \}\}-\$\{\{ steps\.tree\.outputs\.hash \}\}/)
    assert.match(github, /restore-keys: vlt-\$\{\{ runner\.os \}\}-/)
    assert.match(github, /git vlt coderag init --ci/)
    const gitlab = readFileSync(join(TEMPLATES, 'gitlab-ci.yml'), 'utf8')
    assert.match(gitlab, /git rev-parse HEAD\^\{tree\} > \.vlt-tree/)
    assert.match(gitlab, /fallback_keys:/)
    assert.match(gitlab, /git vlt coderag init --ci/)
  })

  it('the matrix templates run one init --shard K/N per job and merge what the jobs kept', () => {
    const github = readFileSync(join(TEMPLATES, 'github-actions-matrix.yml'), 'utf8')
    assert.match(github, /shard: \[1, 2, 3, 4\]/)
    assert.match(github, /git vlt coderag init --ci --shard \$\{\{ matrix\.shard \}\}\/4/)
    assert.match(github, /path: \|\n\s+\.vlt\/objects\n\s+\.vlt\/\.gitignore/)
    assert.match(github, /path: \$\{\{ runner\.temp \}\}\/shards/)
    assert.match(github, /git vlt coderag merge --ci \$\{\{ runner\.temp \}\}\/shards\/\*/)
    const gitlab = readFileSync(join(TEMPLATES, 'gitlab-ci-matrix.yml'), 'utf8')
    assert.match(gitlab, /parallel: 4/)
    assert.match(gitlab, /git vlt coderag init --ci --shard "\$CI_NODE_INDEX\/\$CI_NODE_TOTAL"/)
    assert.match(gitlab, /mv \.vlt\/objects "\.vlt\/shards\/\$CI_NODE_INDEX\/"/)
    assert.match(gitlab, /git vlt coderag merge --ci \.vlt\/shards\/\*/)
  })
})
