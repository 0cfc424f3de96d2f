import { strict as assert } from 'node:assert'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { vlt, vltJson } from '../helpers/cli.js'
import { flipInBlock } from '../helpers/block-spans.js'

describe('a query over the stored symbol table', function () {
  this.timeout(120_000)
  let repo: GitFixture | undefined
  afterEach(() => repo?.cleanup())

  it('finds a damaged block when it reads it: reports it in one line, rebuilds and answers', () => {
    repo = createGitRepo({ files: { 'a.py': 'def alpha():\n    pass\n', 'b.py': 'from a import alpha\n\ndef beta():\n    return alpha()\n' } })
    const init = vltJson(repo.dir, ['coderag', 'init'])
    const symbols = join(repo.dir, '.vlt', 'trees', init.treeHash, 'symbols.mpk')
    const bytes = readFileSync(symbols)
    // A table this small has one bucket: the last block, before the record's own checksum.
    bytes[bytes.length - 8] ^= 0xff
    writeFileSync(symbols, bytes)

    // Not --json: its notes are what says the index was rebuilt.
    const run = vlt(repo.dir, ['coderag', 'def', 'alpha'])
    assert.equal(run.status, 0, run.stderr)
    assert.match(run.stdout, /^a\.py:1\s+function alpha/)
    const warnings = run.stderr.split('\n').filter((line) => line.startsWith('warning:'))
    assert.equal(warnings.length, 1, run.stderr)
    assert.match(warnings[0]!, /symbols\.mpk: checksum mismatch.*rebuilt the index of tree [0-9a-f]{12} from the blob records/)
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')

    const again = vlt(repo.dir, ['coderag', 'refs', 'alpha'])
    assert.equal(again.status, 0, again.stderr)
    assert.match(again.stdout, /b\.py:4/)
    assert.equal(again.stderr.includes('warning:'), false, again.stderr)
  })

  it('finds a damaged run of files when refs reads it: reports it in one line, rebuilds and answers', () => {
    repo = createGitRepo({ files: { 'a.py': 'def alpha():\n    pass\n', 'b.py': 'from a import alpha\n\ndef beta():\n    return alpha()\n' } })
    const init = vltJson(repo.dir, ['coderag', 'init'])
    const symbols = join(repo.dir, '.vlt', 'trees', init.treeHash, 'symbols.mpk')
    // Block 2: the table's one run of files, which refs reads for the definition and for b.py's imports.
    writeFileSync(symbols, flipInBlock(readFileSync(symbols), 'symbols', 2))

    const run = vlt(repo.dir, ['coderag', 'refs', 'alpha'])
    assert.equal(run.status, 0, run.stderr)
    assert.match(run.stdout, /b\.py:4/)
    const warnings = run.stderr.split('\n').filter((line) => line.startsWith('warning:'))
    assert.equal(warnings.length, 1, run.stderr)
    assert.match(warnings[0]!, /symbols\.mpk: checksum mismatch.*rebuilt the index of tree [0-9a-f]{12} from the blob records/)
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
  })
})
