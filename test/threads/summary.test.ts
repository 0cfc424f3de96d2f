import { strict as assert } from 'node:assert'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  appendEntry,
  cachedSummary,
  createThread,
  ExtractiveSummarizer,
  MAX_SUMMARY_CHARS,
  readThread,
  summarizeThread,
  summaryCachePath,
  type Entry,
  type Summarizer,
} from '../../src/core/threads/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/** Records what each call received; its summary names the entries it has seen. */
class CountingSummarizer implements Summarizer {
  readonly kind = 'llm' as const
  calls: Array<{ previous: string | null; texts: string[] }> = []
  async summarize(previous: string | null, newEntries: Entry[]): Promise<string> {
    this.calls.push({ previous, texts: newEntries.map((e) => e.text) })
    return [previous, ...newEntries.map((e) => e.text)].filter(Boolean).join(' | ')
  }
}

const entry = (text: string, type: Entry['type'], day: number): Entry => ({ id: `id${day}`, timestamp: `2024-05-${String(day).padStart(2, '0')}T10:00:00.000Z`, author: 'claude', type, text })

describe('thread summaries', function () {
  this.timeout(30_000)
  let repo: GitFixture
  let vltDir: string
  beforeEach(async () => {
    repo = createGitRepo({ files: { 'README.md': '# project\n' } })
    vltDir = join(repo.dir, '.vlt')
    await createThread(vltDir, { name: 'auth' })
  })
  afterEach(() => repo.cleanup())

  it('cache no secret a summariser echoes', async () => {
    const token = 'ghp_' + 'R4nd0mT0k3nV4lu3sXq9Zp2Lm7Kw8Jd5Hf1Y'
    await appendEntry(vltDir, 'auth', { text: 'Rotate the deploy token.', type: 'decision', author: 'claude' })
    const echoing: Summarizer = { kind: 'llm', summarize: async () => `The token ${token} was rotated.` }
    const summary = await summarizeThread(vltDir, await readThread(vltDir, 'auth'), echoing)
    assert.equal(summary.text, 'The token [REDACTED:github-pat] was rotated.')
    assert.ok(!readFileSync(summaryCachePath(vltDir, 'auth'), 'utf8').includes(token))
  })

  it('are lazy: pushes never summarise; reads summarise once, then only what is new', async () => {
    const summarizer = new CountingSummarizer()
    for (let i = 1; i <= 5; i++) await appendEntry(vltDir, 'auth', { text: `e${i}`, type: 'thought', author: 'user' })
    assert.equal(summarizer.calls.length, 0)
    assert.equal(existsSync(summaryCachePath(vltDir, 'auth')), false)

    const first = await summarizeThread(vltDir, await readThread(vltDir, 'auth'), summarizer)
    const ids = (await readThread(vltDir, 'auth')).entries.map((e) => e.id)
    assert.deepEqual(first, { text: 'e1 | e2 | e3 | e4 | e5', upToEntry: ids[4], stale: false, generatedBy: 'llm' })
    assert.deepEqual(summarizer.calls, [{ previous: null, texts: ['e1', 'e2', 'e3', 'e4', 'e5'] }])

    assert.deepEqual(await summarizeThread(vltDir, await readThread(vltDir, 'auth'), summarizer), first)
    assert.equal(summarizer.calls.length, 1, 'a second read uses the cache')

    await appendEntry(vltDir, 'auth', { text: 'e6', type: 'decision', author: 'user' })
    assert.equal(summarizer.calls.length, 1)
    const thread = await readThread(vltDir, 'auth')
    assert.deepEqual(await cachedSummary(vltDir, thread), { ...first, stale: true })

    const second = await summarizeThread(vltDir, thread, summarizer)
    assert.deepEqual(summarizer.calls.slice(1), [{ previous: 'e1 | e2 | e3 | e4 | e5', texts: ['e6'] }])
    assert.deepEqual(second, { text: 'e1 | e2 | e3 | e4 | e5 | e6', upToEntry: thread.entries[5].id, stale: false, generatedBy: 'llm' })
    assert.deepEqual(await cachedSummary(vltDir, thread), second)
  })

  it('start over when the cache was written by another kind of summariser or covers removed entries', async () => {
    await appendEntry(vltDir, 'auth', { text: 'Use JWT.', type: 'decision', author: 'user' })
    const llm = new CountingSummarizer()
    await summarizeThread(vltDir, await readThread(vltDir, 'auth'), llm)
    const offline = await summarizeThread(vltDir, await readThread(vltDir, 'auth'), new ExtractiveSummarizer())
    assert.equal(offline.generatedBy, 'extractive')
    assert.match(offline.text, /^Decisions:\n- \d{4}-\d\d-\d\d user: Use JWT\.$/)
    await appendEntry(vltDir, 'auth', { text: 'Rotate keys weekly.', type: 'decision', author: 'user' })
    const thread = await readThread(vltDir, 'auth')
    await summarizeThread(vltDir, thread, llm)
    // The first entry disappears (a hand edit, a reverted commit): the cached text would mention it.
    await summarizeThread(vltDir, { ...thread, entries: thread.entries.slice(1) }, llm)
    assert.deepEqual(
      llm.calls.map((c) => [c.previous, c.texts]),
      [[null, ['Use JWT.']], [null, ['Use JWT.', 'Rotate keys weekly.']], [null, ['Rotate keys weekly.']]],
    )
  })

  it('extractive: decisions first, then insights, research, thoughts; newest first; incremental; bounded', async () => {
    const summarizer = new ExtractiveSummarizer()
    const first = await summarizer.summarize(null, [
      entry('Maybe PASETO?', 'thought', 1),
      entry('## Benchmarks\n\nJWT verify costs 40 µs.', 'research', 2),
      entry('Use JWT for sessions.\n\nBecause stateless.', 'decision', 3),
      entry('- Tokens leak into logs', 'insight', 4),
    ])
    assert.equal(
      first,
      [
        'Decisions:',
        '- 2024-05-03 claude: Use JWT for sessions.',
        '',
        'Insights:',
        '- 2024-05-04 claude: Tokens leak into logs',
        '',
        'Research:',
        '- 2024-05-02 claude: Benchmarks',
        '',
        'Thoughts:',
        '- 2024-05-01 claude: Maybe PASETO?',
      ].join('\n'),
    )
    const next = await summarizer.summarize(first, [entry('Refresh tokens stay server-side.', 'decision', 5)])
    assert.equal(next.split('\n').slice(0, 3).join('\n'), 'Decisions:\n- 2024-05-05 claude: Refresh tokens stay server-side.\n- 2024-05-03 claude: Use JWT for sessions.')

    const many = Array.from({ length: 60 }, (_, i) => entry(`${'word '.repeat(40)}${i}`, i % 2 ? 'decision' : 'thought', (i % 28) + 1))
    const bounded = await summarizer.summarize(null, many)
    assert.ok(bounded.length <= MAX_SUMMARY_CHARS, `${bounded.length}`)
    assert.ok(bounded.startsWith('Decisions:\n'))
    assert.ok(bounded.split('\n').every((line) => line.length <= 180))
  })
})
