import { strict as assert } from 'node:assert'
import { openGit, pickaxe } from '../../src/core/git/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

describe('git/history: pickaxe', () => {
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
})
