import { strict as assert } from 'node:assert'
import { vlt, vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/**
 * A file whose parse has no end in sight (50 MB with the size limit raised ran 46 s, reached
 * 2.3 GB and crashed, and every later query retried it) is parsed under a time and a memory
 * bound, indexed as text windows once past one, and recorded so: never parsed again. The bounds
 * are set small here so that the pathological files stay a few megabytes.
 */

/** A data table as a JavaScript array: every row is syntax, so its tree grows far faster than its text (~60 bytes of wasm memory per byte). */
function hugeArray(rows: number, marker: string): string {
  const lines = ['export const table = [']
  for (let i = 0; i < rows; i++) lines.push(`  [${i}, ${(i * 7) % 1000}, "item${i}", ${i % 3 === 0}],`)
  lines.push(`  [-1, 0, "${marker}", false],`, '];', '')
  return lines.join('\n')
}

/** Arrays nested thousands deep, one bracket a line (long lines would make it a minified bundle), again and again: slow for the parser per byte. */
function deeplyNested(bytes: number, marker: string): string {
  const depth = 2000
  const parts = [`// ${marker}\nexport const nested = [\n`]
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const block = `${'[\n'.repeat(depth)}${i}\n${'],\n'.repeat(depth)}`
    parts.push(block)
    size += block.length
  }
  parts.push('];\n')
  return parts.join('')
}

const SMALL = 'export function smallHelper(value) {\n  return value + 1\n}\n'
const C_SOURCE = 'int add_numbers(int a, int b) {\n  return a + b;\n}\n'

describe('reliability: parse bounds (pathological files)', function () {
  this.timeout(180_000)
  let repo: GitFixture
  afterEach(() => repo?.cleanup())

  it('a file past the memory bound is indexed as text, reported degraded, searchable, and never parsed again', () => {
    repo = createGitRepo({
      files: {
        'vlt.toml': '[index]\nmax_file_bytes = 16000000\nparse_memory_mb = 128\n',
        'src/small.js': SMALL,
        'src/util.c': C_SOURCE,
        'data/table.js': hugeArray(70_000, 'needle_in_the_haystack'),
      },
    })
    repo.commit('a huge data table')

    const init = vlt(repo.dir, ['coderag', 'init'])
    assert.equal(init.status, 0, init.stderr)
    assert.deepEqual(init.stderr.trim().split('\n'), ['warning: data/table.js: the parse went past its memory bound ([index] parse_memory_mb); indexed as text'])
    assert.match(init.stdout, /skipped: 1 past the parse memory bound \(indexed as text\)/)

    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.equal(status.skipped.parseMemory, 1)
    assert.equal(status.skipped.parseTimeout, 0)
    assert.equal(status.files, 4, 'the degraded file is still indexed')

    const found = vltJson(repo.dir, ['coderag', 'search', 'needle_in_the_haystack'])
    assert.equal(found.results[0]?.path, 'data/table.js', JSON.stringify(found.results))
    // The other files were parsed as ever.
    assert.equal(vltJson(repo.dir, ['coderag', 'def', 'smallHelper']).definitions[0]?.path, 'src/small.js')
    assert.equal(vltJson(repo.dir, ['coderag', 'def', 'add_numbers']).definitions[0]?.path, 'src/util.c')

    // An uncommitted copy is extracted by the first query's just-in-time sync, once: its record
    // (keyed by its content, which is its blob) serves every later query, and the commit.
    repo.write({ 'data/copy.js': hugeArray(70_000, 'second_needle') })
    const first = vlt(repo.dir, ['coderag', 'search', 'second_needle'])
    assert.equal(first.status, 0, first.stderr)
    assert.match(first.stderr, /data\/copy\.js: the parse went past its memory bound/)
    const again = vltJson(repo.dir, ['coderag', 'sync'])
    assert.deepEqual(again.overlay.extracted, [])
    assert.deepEqual(again.extracted, [])
    const searched = vlt(repo.dir, ['coderag', 'search', 'second_needle'])
    assert.equal(searched.stderr, '', 'no warning: nothing was parsed again')
    repo.commit('a copy')
    const committed = vltJson(repo.dir, ['coderag', 'sync'])
    assert.equal(committed.mode, 'incremental')
    assert.deepEqual(committed.extracted, [])
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).skipped.parseMemory, 2)
  })

  it('a file past the time bound is indexed as text and reported degraded', () => {
    repo = createGitRepo({
      files: {
        'vlt.toml': '[index]\nmax_file_bytes = 16000000\nparse_timeout_ms = 100\n',
        'src/small.js': SMALL,
        'data/nested.js': deeplyNested(2_000_000, 'deep_marker_word'),
      },
    })
    repo.commit('deeply nested arrays')
    const init = vlt(repo.dir, ['coderag', 'init'])
    assert.equal(init.status, 0, init.stderr)
    assert.match(init.stderr, /^warning: data\/nested\.js: the parse went past its time bound \(\[index\] parse_timeout_ms\); indexed as text$/m)
    const status = vltJson(repo.dir, ['coderag', 'status'])
    assert.deepEqual([status.skipped.parseTimeout, status.skipped.parseMemory], [1, 0])
    assert.equal(vltJson(repo.dir, ['coderag', 'search', 'deep_marker_word']).results[0]?.path, 'data/nested.js')
    assert.equal(vltJson(repo.dir, ['coderag', 'def', 'smallHelper']).definitions[0]?.path, 'src/small.js')
  })
})
