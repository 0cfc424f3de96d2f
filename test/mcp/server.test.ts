import { strict as assert } from 'node:assert'
import { readdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { vltJson } from '../helpers/cli.js'
import { contextNames, readContext } from '../helpers/context.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { INTERLEAVED_SYMBOL, interleavedUses } from '../query/refs-fixture.js'
import { connect, DB, shopRepo, textOf, USER_SERVICE, type McpSession } from './mcp-helpers.js'

describe('git vlt mcp (SDK client over stdio, built CLI)', function () {
  this.timeout(120_000)
  let repo: GitFixture
  let mcp: McpSession

  before(async () => {
    repo = shopRepo()
    mcp = await connect(repo.dir, { VLT_MCP_CLIENT_ID: 'e2e' })
  })
  after(async () => {
    await mcp?.close()
    repo?.cleanup()
  })

  it('lists its tools with schemas and honest annotations', async () => {
    const { tools } = await mcp.client.listTools()
    assert.deepEqual(tools.map((t) => t.name).sort(), ['ask_oracle', 'find_definition', 'find_references', 'get_repo_map', 'git_blame', 'git_log', 'git_show', 'read_file_range', 'search_code', 'search_history', 'search_notes', 'thread_push', 'thread_read'])
    for (const tool of tools) {
      assert.ok(tool.outputSchema, `${tool.name} has an output schema`)
      assert.ok((tool.outputSchema.properties as Record<string, unknown>).freshness, `${tool.name} reports freshness`)
      assert.ok(tool.description!.length < 120, `${tool.name}'s description is short`)
      // Both write a thread: thread_push its entry, ask_oracle the day's session log.
      assert.equal(tool.annotations?.readOnlyHint, tool.name !== 'thread_push' && tool.name !== 'ask_oracle', tool.name)
    }
  })

  it('find_definition answers exactly, with freshness', async () => {
    const result = await mcp.call('find_definition', { symbol: 'UserService' })
    assert.equal(result.isError, undefined)
    assert.deepEqual(result.structuredContent.definitions, [
      { name: 'UserService', qualifiedName: 'UserService', kind: 'class', path: 'src/user_service.py', line: 4, endLine: 12, signature: 'class UserService', precision: 'syntactic' },
    ])
    assert.deepEqual(result.structuredContent.freshness, { treeHash: repo.git('rev-parse', 'HEAD^{tree}'), stale: false })
    assert.match(textOf(result), /src\/user_service\.py:4-12 {2}class UserService/)
  })

  it('search_code resolves "it" to the symbol just discussed and leans towards its file', async () => {
    const result = await mcp.call('search_code', { query: 'how does it reach the database?' })
    assert.equal(result.structuredContent.query, 'how does it reach the database? UserService')
    assert.equal(result.structuredContent.resolved, 'it → UserService')
    assert.equal(result.structuredContent.results[0].path, 'src/user_service.py')
  })

  it('find_references lists the call sites, and "it" works there too', async () => {
    const result = await mcp.call('find_references', { symbol: 'authenticate_user' })
    assert.deepEqual(result.structuredContent.references, [
      { path: 'src/user_service.py', line: 12, column: 15, context: 'return authenticate_user(user, password)', enclosing: 'UserService.login', precision: 'syntactic' },
    ])
    const again = await mcp.call('find_references', { symbol: 'it' })
    assert.equal(again.structuredContent.symbol, 'authenticate_user')
    assert.equal(again.structuredContent.resolved, 'it → authenticate_user')
  })

  it('ask_oracle answers with citations and resolves "it" from the conversation', async () => {
    await mcp.call('find_definition', { symbol: 'UserService' })
    const result = await mcp.call('ask_oracle', { question: 'where is it defined?' })
    assert.equal(result.isError, undefined, textOf(result))
    const answer = result.structuredContent
    assert.match(answer.question, /^where is it defined\? UserService/)
    assert.equal(answer.queryType, 'definition')
    assert.equal(answer.sources[0].sourcePath, 'src/user_service.py:4-12')
    assert.match(answer.answer, /src\/user_service\.py:4-12/)
    assert.equal(answer.model, 'extractive')
    assert.deepEqual(answer.freshness, { treeHash: repo.git('rev-parse', 'HEAD^{tree}'), stale: false })
  })

  it('get_repo_map fits the budget and honours a scope', async () => {
    const result = await mcp.call('get_repo_map', { scope: 'src/metrics', tokens: 300 })
    const map = result.structuredContent
    assert.equal(map.scope, 'src/metrics')
    assert.ok(map.tokens <= 300 && map.tokens > 200, `tokens ${map.tokens}`)
    assert.ok(map.map.split('\n').every((line: string) => !line.endsWith('.py:') || line.startsWith('src/metrics/')))
  })

  it('thread_push creates the thread and thread_read returns the entry', async () => {
    const pushed = await mcp.call('thread_push', { thread: 'auth-notes', text: 'Sessions stay server-side.', type: 'decision' })
    assert.equal(pushed.structuredContent.created, true)
    assert.equal(pushed.structuredContent.author, 'e2e')
    const read = await mcp.call('thread_read', { thread: 'auth-notes' })
    assert.deepEqual(read.structuredContent.entries.map((e: any) => [e.type, e.text]), [['decision', 'Sessions stay server-side.']])
    assert.equal(read.structuredContent.total, 1)
  })

  it('thread_read opens with the thread\'s summary, cached and brought up to date on read', async () => {
    await mcp.call('thread_push', { thread: 'cache-notes', text: 'Keep the summary cache private.', type: 'decision' })
    const first = await mcp.call('thread_read', { thread: 'cache-notes' })
    assert.equal(first.structuredContent.summary.generatedBy, 'extractive')
    assert.match(first.structuredContent.summary.text, /Decisions[\s\S]*Keep the summary cache private\./)
    assert.match(textOf(first), /## Summary \(extractive, up to [^)]+\)\n\n[\s\S]*Keep the summary cache private/)
    assert.ok(readdirSync(join(repo.dir, '.vlt', 'cache', 'threads')).includes('cache-notes.summary.json'))
    await mcp.call('thread_push', { thread: 'cache-notes', text: 'Summaries are regenerated only for new entries.', type: 'decision' })
    const second = await mcp.call('thread_read', { thread: 'cache-notes' })
    assert.match(second.structuredContent.summary.text, /Summaries are regenerated only for new entries\.[\s\S]*Keep the summary cache private\./)
    assert.equal(second.structuredContent.summary.upToEntry, second.structuredContent.entries.at(-1).id)
    const bare = await mcp.call('thread_read', { thread: 'cache-notes', summary: false })
    assert.equal(bare.structuredContent.summary, undefined)
  })

  it('search_notes and search_history answer (empty history is not an error)', async () => {
    repo.write({ 'docs/sessions.md': '# Sessions\n\nSessions are stored server-side in Redis.\n' })
    const notes = await mcp.call('search_notes', { query: 'redis sessions' })
    assert.equal(notes.isError, undefined, textOf(notes))
    assert.equal(notes.structuredContent.results[0].path, 'docs/sessions.md')
    const history = await mcp.call('search_history', { query: 'sessions' })
    assert.equal(history.isError, undefined, textOf(history))
    assert.deepEqual(history.structuredContent.results, [])
  })

  it('reports errors as tool results with useful messages', async () => {
    const unknown = await mcp.call('find_definition', { symbol: 'UserServce' })
    assert.equal(unknown.isError, true)
    assert.equal(textOf(unknown), 'No definition of UserServce — did you mean UserService?')
    const badArgs = await mcp.call('search_code', { query: '', limit: -1 })
    assert.equal(badArgs.isError, true)
    assert.match(textOf(badArgs), /Input validation error/)
    // A blank symbol is a usage error, as a blank query is, not "No definition of    ".
    for (const tool of ['find_definition', 'find_references']) {
      const blank = await mcp.call(tool, { symbol: '   ' })
      assert.deepEqual([blank.isError, textOf(blank)], [true, 'the symbol is empty'], tool)
    }
    const blankQuery = await mcp.call('search_code', { query: '   ' })
    assert.deepEqual([blankQuery.isError, textOf(blankQuery)], [true, 'the search query is empty'])
    const noTool = await mcp.call('drop_database', {})
    assert.equal(noTool.isError, true)
    assert.match(textOf(noTool), /Tool drop_database not found/)
    const badCursor = await mcp.call('find_references', { symbol: 'helper', cursor: 'bogus' })
    assert.equal(badCursor.isError, true)
    assert.match(textOf(badCursor), /not a cursor from a previous page/)
    const badThread = await mcp.call('thread_read', { thread: '../../etc/passwd' })
    assert.equal(badThread.isError, true)
    assert.match(textOf(badThread), /invalid thread name/)
  })

  it('refuses paths that leave the repository: .., absolute outside, symlinks out', async () => {
    symlinkSync('/tmp', join(repo.dir, 'escape'))
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['search_code', { query: 'helper', path: '../**' }, /leaves the repository|outside the repository/],
      ['search_code', { query: 'helper', path: 'src/../../x/*.py' }, /outside the repository/],
      ['search_code', { query: 'helper', path: '/etc/**' }, /outside the repository/],
      ['search_code', { query: 'helper', path: 'escape/**' }, /through a symbolic link/],
      ['get_repo_map', { scope: '../' }, /outside the repository/],
      ['get_repo_map', { scope: 'escape' }, /through a symbolic link/],
      ['read_file_range', { path: '../etc/passwd', start_line: 1 }, /outside the repository/],
      ['read_file_range', { path: 'escape/x.py', start_line: 1 }, /through a symbolic link/],
      ['read_file_range', { path: '.git/config', start_line: 1 }, /not an indexed file/],
      ['git_log', { path: '/etc/passwd' }, /outside the repository/],
      ['git_blame', { path: '../x', start_line: 1 }, /outside the repository/],
      ['git_show', { commit: 'HEAD', path: 'escape/x' }, /through a symbolic link/],
      ['git_show', { commit: '--output=/tmp/x' }, /not a commit hash/],
    ]
    for (const [tool, args, message] of cases) {
      const result = await mcp.call(tool, args)
      assert.equal(result.isError, true, `${tool} ${JSON.stringify(args)}`)
      assert.match(textOf(result), message)
    }
    const inside = await mcp.call('search_code', { query: 'helper', path: join(repo.dir, 'src/callers_0.py') })
    assert.equal(inside.isError, undefined, textOf(inside))
    assert.ok(inside.structuredContent.results.every((r: any) => r.path === 'src/callers_0.py'))
  })

  it('git_log, git_blame, git_show and read_file_range answer from the history and the working tree', async () => {
    const head = repo.git('rev-parse', 'HEAD')
    const log = await mcp.call('git_log', { symbol: 'UserService' })
    assert.equal(log.isError, undefined, textOf(log))
    assert.equal(log.structuredContent.commits[0].hash, head)
    assert.match(textOf(log), /commits that changed src\/user_service\.py:4-12 \(UserService\)/)
    const blame = await mcp.call('git_blame', { path: 'src/db.py', start_line: 1, end_line: 3 })
    assert.equal(blame.isError, undefined, textOf(blame))
    assert.deepEqual(blame.structuredContent.commits.map((c: any) => [c.commit, c.lines]), [[head, 3]])
    const show = await mcp.call('git_show', { commit: head.slice(0, 10), path: 'src/helpers.py' })
    assert.equal(show.isError, undefined, textOf(show))
    assert.match(show.structuredContent.patch, /^\+def helper\(n\):$/m)
    assert.doesNotMatch(show.structuredContent.patch, /class Database/)
    const read = await mcp.call('read_file_range', { path: 'src/user_service.py', start_line: 4, end_line: 5 })
    assert.equal(read.isError, undefined, textOf(read))
    assert.equal(read.structuredContent.text, USER_SERVICE.split('\n').slice(3, 5).map((line, i) => `${i + 4}: ${line}`).join('\n'))

    // A committed credentials file: git_show leaves its patch out and refuses it by name.
    repo.write({ '.env': 'DATABASE_PASSWORD=plain-words-password\n', 'src/helpers.py': 'def helper(n):\n    return n * 3\n' })
    repo.commit('Configure the database')
    const withEnv = await mcp.call('git_show', { commit: 'HEAD' })
    assert.equal(withEnv.isError, undefined, textOf(withEnv))
    // (The fixture's commit takes every change so far: earlier tests' threads too.)
    for (const file of ['.env', 'src/helpers.py']) assert.ok(withEnv.structuredContent.commit.files.includes(file), file)
    assert.match(withEnv.structuredContent.patch, /^diff --git a\/\.env b\/\.env\n\(a credentials file: its patch is left out\)$/m)
    assert.match(withEnv.structuredContent.patch, /^\+    return n \* 3$/m)
    assert.doesNotMatch(JSON.stringify(withEnv), /plain-words-password/)
    const envOnly = await mcp.call('git_show', { commit: 'HEAD', path: '.env' })
    assert.equal(envOnly.isError, true)
    assert.match(textOf(envOnly), /is a credentials file/)
  })

  it('picks up a new commit and an uncommitted file without a restart', async () => {
    repo.write({ 'src/billing.py': 'class Invoice:\n    pass\n' })
    repo.commit('billing')
    const committed = await mcp.call('find_definition', { symbol: 'Invoice' })
    assert.equal(committed.isError, undefined, textOf(committed))
    assert.equal(committed.structuredContent.freshness.treeHash, repo.git('rev-parse', 'HEAD^{tree}'))
    repo.write({ 'src/draft.py': 'class DraftReceipt:\n    pass\n' })
    const draft = await mcp.call('find_definition', { symbol: 'DraftReceipt' })
    assert.equal(draft.structuredContent.definitions[0].path, 'src/draft.py')
  })

  it('keeps the conversation context on disk, as a checksummed record the CLI continues', () => {
    assert.deepEqual(contextNames(repo.dir), ['default'])
    const state = readContext(repo.dir, 'default')
    assert.equal(state.client, 'default')
    assert.equal(state.budget, 16000)
    assert.ok(state.exchanges.some((e: any) => e.tool === 'find_definition' && e.input.symbol === 'UserService' && e.via === 'mcp:e2e'))
    assert.ok(state.insights.includes('UserService is a class at src/user_service.py:4'))
  })
})

describe('git vlt mcp paging', function () {
  this.timeout(120_000)
  let repo: GitFixture
  let mcp: McpSession
  before(async () => {
    repo = shopRepo()
    mcp = await connect(repo.dir, { VLT_MCP_MAX_TOKENS: '500', VLT_MCP_CLIENT_ID: 'pager' })
  })
  after(async () => {
    await mcp?.close()
    repo?.cleanup()
  })

  it('find_references pages to the cap with a cursor until every call site is seen once', async () => {
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const result = await mcp.call('find_references', { symbol: 'helper', limit: 500, ...(cursor ? { cursor } : {}) })
      assert.equal(result.isError, undefined, textOf(result))
      const page = result.structuredContent
      assert.ok(textOf(result).length / 4 <= 500, `page ${pages} is ${textOf(result).length / 4} tokens`)
      if (page.cursor) assert.match(page.note, /^Output capped: showing \d+ of \d+ on this page; call again with cursor/)
      seen.push(...page.references.map((r: any) => `${r.path}:${r.line}`))
      cursor = page.cursor
      pages++
    } while (cursor && pages < 50)
    // 60 calls and the 3 imports.
    assert.equal(seen.length, 63)
    assert.equal(new Set(seen).size, 63)
    assert.ok(pages > 2, `${pages} pages`)
  })

  it('search_code pages without repeating results; a cursor is bound to its arguments', async () => {
    const query = 'compute weighted metric threshold'
    const keys: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await mcp.call('search_code', { query, limit: 4, ...(cursor ? { cursor } : {}) })
      keys.push(...page.structuredContent.results.map((r: any) => `${r.path}:${r.startLine}`))
      cursor = page.structuredContent.cursor
      pages++
    } while (cursor && pages < 6)
    assert.equal(pages, 6)
    assert.ok(keys.length >= 6, `${keys.length} results`)
    assert.equal(new Set(keys).size, keys.length)
    const first = await mcp.call('search_code', { query, limit: 4 })
    cursor = first.structuredContent.cursor
    const misuse = await mcp.call('search_code', { query: 'something else', limit: 3, cursor })
    assert.equal(misuse.isError, true)
    assert.match(textOf(misuse), /made for other arguments/)
  })

  it('search_code with granularity "file" ranks files with their chunks and the commits behind them', async () => {
    repo.write({ 'src/db.py': DB.replace('where name = ?', 'where lower(name) = lower(?)') })
    const hash = repo.commit('Make the user lookup ignore letter case')
    const result = await mcp.call('search_code', { query: 'user lookup should ignore letter case', granularity: 'file', limit: 2 })
    assert.equal(result.isError, undefined, textOf(result))
    const { files, results } = result.structuredContent
    assert.deepEqual(results, [])
    assert.equal(files[0].path, 'src/db.py')
    assert.ok(files[0].methods.includes('history'))
    assert.deepEqual(files[0].commits[0], { hash, subject: 'Make the user lookup ignore letter case', date: '2024-01-01T00:00:00.000Z', author: 'Fixture' })
    assert.ok(files[0].chunks.length > 0)
    assert.ok(files.length <= 2)
    assert.match(textOf(result), /^1\. src\/db\.py {2}\d\.\d{3} {2}\[.*history.*\]\n {4}\d+-\d+ .*\n(?: {4}.*\n)* {4}commit [0-9a-f]{10} 2024-01-01 "Make the user lookup ignore letter case"/m)
  })

  it('get_repo_map is fitted under the cap and says so', async () => {
    const result = await mcp.call('get_repo_map', { tokens: 5000 })
    assert.equal(result.structuredContent.note, 'Output capped: the map was fitted to 300 tokens, not 5000.')
    assert.ok(result.structuredContent.tokens <= 300)
  })
})

describe('git vlt mcp paging of ambiguous uses', function () {
  this.timeout(120_000)
  let repo: GitFixture
  let mcp: McpSession
  before(async () => {
    repo = createGitRepo({ files: interleavedUses(16) })
    mcp = await connect(repo.dir, { VLT_MCP_MAX_TOKENS: '500', VLT_MCP_CLIENT_ID: 'pager' })
  })
  after(async () => {
    await mcp?.close()
    repo?.cleanup()
  })

  it('find_references shows every use once, references and ambiguous ones, page after page under the cap', async () => {
    const whole = vltJson(repo.dir, ['coderag', 'refs', INTERLEAVED_SYMBOL, '--json', '--limit', '100000'])
    const at = (refs: any[]): string[] => refs.map((r) => `${r.path}:${r.line}`)
    const references: string[] = []
    const ambiguous: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const result = await mcp.call('find_references', { symbol: INTERLEAVED_SYMBOL, limit: 12, ...(cursor ? { cursor } : {}) })
      assert.equal(result.isError, undefined, textOf(result))
      assert.ok(textOf(result).length / 4 <= 500, `page ${pages} is ${textOf(result).length / 4} tokens`)
      references.push(...at(result.structuredContent.references))
      ambiguous.push(...at(result.structuredContent.ambiguous ?? []))
      cursor = result.structuredContent.cursor
      pages++
    } while (cursor && pages < 60)
    assert.equal(cursor, undefined, `still paging after ${pages} pages`)
    assert.equal(ambiguous.length, 24)
    assert.deepEqual(references, at(whole.references))
    assert.deepEqual(ambiguous, at(whole.ambiguous))
  })
})
