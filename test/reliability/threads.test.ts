import { strict as assert } from 'node:assert'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { vlt, vltJsonAsync } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { connect } from '../mcp/mcp-helpers.js'

/**
 * A cloned repository's `.vlt/threads/` can hold anything: one file that is not a thread must be
 * reported (one line naming it) and must never hide the other threads from list, search, MCP or
 * the oracle.
 */
const BROKEN: Record<string, string | Buffer> = {
  'no-header.md': 'just some notes\nwithout a title line\n',
  'garbage.md': Buffer.from([0x00, 0xff, 0x13, 0x37, 0x00, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]),
  'latin1.md': Buffer.from([0xe9, 0x74, 0xe9, 0x0a, 0x23, 0x20, 0x74, 0x0a]),
  'empty.md': '',
}
const BROKEN_NAMES = [...Object.keys(BROKEN), 'folder.md'].map((file) => file.slice(0, -3)).sort()

describe('reliability: malformed thread files', function () {
  this.timeout(120_000)
  let repo: GitFixture
  before(() => {
    repo = createGitRepo({ files: { 'README.md': '# project\n' } })
    assert.equal(vlt(repo.dir, ['thread', 'new', 'auth']).status, 0)
    assert.equal(vlt(repo.dir, ['thread', 'push', 'auth', 'We keep refresh tokens server-side.', '--type', 'decision', '--author', 'user']).status, 0)
    assert.equal(vlt(repo.dir, ['thread', 'new', 'cache']).status, 0)
    assert.equal(vlt(repo.dir, ['thread', 'push', 'cache', 'The build cache lives in the refresh directory.', '--author', 'user']).status, 0)
    const threads = join(repo.dir, '.vlt', 'threads')
    for (const [file, content] of Object.entries(BROKEN)) writeFileSync(join(threads, file), content)
    mkdirSync(join(threads, 'folder.md'))
  })
  after(() => repo.cleanup())

  /** The thread names the warnings name, one warning per broken file. */
  function named(warnings: string[]): string[] {
    return warnings.map((warning) => /threads\/([a-z0-9-]+)\.md/.exec(warning)?.[1] ?? warning).sort()
  }

  it('thread list serves the sound threads and names each broken file once, on stderr and in --json warnings', async () => {
    const text = vlt(repo.dir, ['thread', 'list'])
    assert.equal(text.status, 0, text.stderr)
    assert.deepEqual(text.stdout.trim().split('\n').map((line) => line.split(/\s+/)[0]).sort(), ['auth', 'cache'])
    const lines = text.stderr.trim().split('\n')
    assert.equal(lines.length, BROKEN_NAMES.length, text.stderr)
    assert.deepEqual(named(lines), BROKEN_NAMES)
    for (const line of lines) assert.match(line, /^warning: \S*\.vlt\/threads\/[a-z0-9-]+\.md[: ].+; left out$/)

    const json = await vltJsonAsync(repo.dir, ['thread', 'list'])
    assert.deepEqual(json.threads.map((t: { name: string }) => t.name).sort(), ['auth', 'cache'])
    assert.deepEqual(named(json.warnings), BROKEN_NAMES)
  })

  it('thread search finds entries of the sound threads and reports the broken files', async () => {
    const text = vlt(repo.dir, ['thread', 'search', 'refresh'])
    assert.equal(text.status, 0, text.stderr)
    assert.match(text.stdout, /^auth /m)
    assert.match(text.stdout, /^cache /m)
    assert.deepEqual(named(text.stderr.trim().split('\n')), BROKEN_NAMES)

    const json = await vltJsonAsync(repo.dir, ['thread', 'search', 'refresh'])
    assert.deepEqual(json.hits.map((h: { thread: string }) => h.thread).sort(), ['auth', 'cache'])
    assert.deepEqual(named(json.warnings), BROKEN_NAMES)
  })

  it('the oracle keeps its threads source, with one warning per broken file', async () => {
    const response = await vltJsonAsync(repo.dir, ['oracle', 'where do refresh tokens live', '--no-log', '--source', 'threads'])
    assert.ok(response.sources.some((s: { sourcePath: string }) => s.sourcePath.startsWith('auth#')), JSON.stringify(response.sources))
    assert.deepEqual(named(response.warnings.filter((w: string) => w.includes('.vlt/threads/'))), BROKEN_NAMES)
  })

  it('MCP: thread_read serves a sound thread and ask_oracle still cites threads', async () => {
    const mcp = await connect(repo.dir)
    try {
      const read = await mcp.call('thread_read', { thread: 'auth' })
      assert.ok(!read.isError, JSON.stringify(read.content))
      assert.equal(read.structuredContent.entries[0].text, 'We keep refresh tokens server-side.')
      const broken = await mcp.call('thread_read', { thread: 'no-header' })
      assert.ok(broken.isError)
      const asked = await mcp.call('ask_oracle', { question: 'where do refresh tokens live', sources: ['threads'] })
      assert.ok(!asked.isError, JSON.stringify(asked.content))
      assert.ok(asked.structuredContent.sources.some((s: { sourcePath: string }) => s.sourcePath.startsWith('auth#')), JSON.stringify(asked.structuredContent))
    } finally {
      await mcp.close()
    }
  })
})
