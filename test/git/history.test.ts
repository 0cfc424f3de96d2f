import { strict as assert } from 'node:assert'
import { openGit, pickaxe, symbolChanges } from '../../src/core/git/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('git/history: pickaxe and symbolChanges', () => {
  let repo: GitFixture
  const commits: Record<string, string> = {}
  before(() => {
    repo = createGitRepo({ files: { 'config.py': 'def parse_config(text):\n    return text\n' } })
    repo.write({ 'config.py': 'def parse_config(text):\n    return text.strip()\n' })
    commits.value = repo.commit('Strip the configuration text')
    repo.write({ 'files.py': 'def parse_config_file(path):\n    return open(path).read()\n' })
    commits.longer = repo.commit('Read configuration files')
    repo.write({ 'app.py': 'from config import parse_config\n\nparse_config(" a ")\n' })
    commits.use = repo.commit('Use the parser')
    repo.write({ 'app.py': 'from config import parse_config\n\nparse_config(" b ")\n' })
    commits.argument = repo.commit('Parse another string')
  })
  after(() => repo.cleanup())

  it("finds the commits whose changed lines mention the name as a whole word, not those of a longer name it begins", async () => {
    const found = await pickaxe(openGit(repo.dir), 'parse_config', new Set())
    const hashes = found.map((commit) => commit.hash)
    assert.ok(hashes.includes(commits.use!), 'a new use')
    assert.ok(!hashes.includes(commits.longer!), 'parse_config_file is another name')
    // The body changed on a line that does not name it: -L's job, not the pickaxe's.
    assert.ok(!hashes.includes(commits.value!))
  })

  it('symbolChanges finds the commits that added or removed the name, not those that edited a line mentioning it', async () => {
    const found = (await symbolChanges(openGit(repo.dir), 'parse_config', new Set())).map((commit) => commit.hash)
    assert.deepEqual(found, [commits.use!, repo.git('rev-list', '--max-parents=0', 'HEAD').trim()])
    // -G lists the call whose argument changed; the name itself did not change there.
    assert.ok((await pickaxe(openGit(repo.dir), 'parse_config', new Set())).some((commit) => commit.hash === commits.argument))
  })

  it('symbolChanges keeps the commit that introduced the name when there are more than it lists', async () => {
    const many = createGitRepo({ files: { 'lib.py': 'def frobnicate():\n    pass\n' } })
    try {
      for (let i = 0; i < 12; i++) {
        many.write({ [`use${i}.py`]: 'from lib import frobnicate\n' })
        many.commit(`Use it in ${i}`)
      }
      const found = (await symbolChanges(openGit(many.dir), 'frobnicate', new Set())).map((commit) => commit.subject)
      assert.equal(found.length, 10)
      assert.deepEqual([found[0], found.at(-1)], ['Use it in 11', many.git('log', '--format=%s', '--max-parents=0', 'HEAD').trim()])
    } finally {
      many.cleanup()
    }
  })
})
