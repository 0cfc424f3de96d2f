import { strict as assert } from 'node:assert'
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const FILES = {
  'app/__init__.py': '',
  'app/greet.py': ['def greet(name: str) -> str:', '    """Say hello."""', '    return "hello " + name', ''].join('\n'),
  'app/main.py': ['from app.greet import greet', '', 'print(greet("world"))', ''].join('\n'),
}

describe('coderag scip build for Python (scip-python, a dev dependency)', function () {
  // scip-python asks pip about the environment first: several seconds, more under load.
  this.timeout(240_000)
  let repo: GitFixture

  before(() => {
    repo = createGitRepo({ files: FILES })
    repo.commit('greet')
  })
  after(() => repo.cleanup())

  it("builds and imports the index, def and refs then answer from it, and the indexer runs none of the repository's programs", () => {
    // scip-python runs python3, python and pip3 from PATH: a repository's own, on a PATH naming its bin/, would leave a canary.
    const canary = join(repo.dir, '..', `${repo.dir.split('/').pop()}-canary`)
    mkdirSync(join(repo.dir, 'bin'))
    for (const name of ['python3', 'python', 'pip3', 'pip']) {
      writeFileSync(join(repo.dir, 'bin', name), `#!/bin/sh\necho ${name} >> ${canary}\nexit 1\n`)
      chmodSync(join(repo.dir, 'bin', name), 0o755)
    }
    const built = vltJson(repo.dir, ['coderag', 'scip', 'build'], { PATH: `${join(repo.dir, 'bin')}:${process.env.PATH}` })
    assert.equal(existsSync(canary), false, "the indexer ran the repository's programs")
    assert.deepEqual(built.indexers.map((i: { name: string }) => i.name), ['scip-python'])
    assert.match(built.tool, /^scip-python /)
    assert.deepEqual([built.commit, built.documents, built.skippedDocuments, built.uncovered], [repo.git('rev-parse', 'HEAD'), 3, 0, []])

    const def = vltJson(repo.dir, ['coderag', 'def', 'greet'])
    assert.deepEqual(def.definitions.map((d: { path: string; line: number; precision: string }) => [d.path, d.line, d.precision]), [['app/greet.py', 1, 'scip']])
    assert.match(def.definitions[0].type, /^def greet\(\s*name: str\s*\) -> str:?$/)
    const refs = vltJson(repo.dir, ['coderag', 'refs', 'greet'])
    assert.deepEqual(refs.references.map((r: { path: string; line: number; precision: string }) => `${r.path}:${r.line} ${r.precision}`), ['app/main.py:1 scip', 'app/main.py:3 scip'])
  })
})
