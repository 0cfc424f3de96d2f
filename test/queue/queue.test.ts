import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_CONFIG } from '../../src/core/config/defaults.js'
import { installHooks } from '../../src/core/hooks/index.js'
import { drainQueue, parseDeltaFile, queueSummary, readQueue, type Queue } from '../../src/core/queue/index.js'
import { confineTo, ensureVltDir } from '../../src/core/store/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const A = 'a'.repeat(40)
const B = 'b'.repeat(40)
const Z = '0'.repeat(40)
const blob = (c: string) => c.repeat(40)
/** The i-th commit of a made-up history. */
const commit = (i: number) => i.toString(16).padStart(40, 'c')

/** What `git diff-tree -r -z --raw --numstat -M` prints for: M src/x.ts (+3 -1), D old.c, R a.md -> b.md (+1 -0), A img.png (binary). */
const DIFF = [
  `:100644 100644 ${blob('1')} ${blob('2')} M`, 'src/x.ts',
  `:100644 000000 ${blob('3')} ${Z} D`, 'old.c',
  `:100644 100644 ${blob('4')} ${blob('5')} R087`, 'a.md', 'b.md',
  `:000000 100644 ${Z} ${blob('6')} A`, 'img.png',
  '3\t1\tsrc/x.ts', '0\t7\told.c', '1\t0\t', 'a.md', 'b.md', '-\t-\timg.png',
].join('\0') + '\0'

const batchFile = (from: string, to: string, hook = 'post-commit', diff = DIFF) => Buffer.from(`vlt-delta 1 ${hook} ${from} ${to}\n${diff}end\n`)

describe('delta batch files', () => {
  it('parse into one record per path with change, blobs, mode and line counts', () => {
    const batch = parseDeltaFile('id1', batchFile(A, B), 1000)!
    assert.deepEqual({ ...batch, records: undefined }, { id: 'id1', hook: 'post-commit', from: A, to: B, enqueuedAt: 1000, records: undefined, torn: false })
    assert.deepEqual(
      batch.records.map((r) => [r.change, r.oldPath, r.path, r.oldBlob, r.newBlob, r.mode, r.added, r.removed]),
      [
        ['M', null, 'src/x.ts', blob('1'), blob('2'), '100644', 3, 1],
        ['D', null, 'old.c', blob('3'), null, null, 0, 7],
        ['R', 'a.md', 'b.md', blob('4'), blob('5'), '100644', 1, 0],
        ['A', null, 'img.png', null, blob('6'), '100644', null, null],
      ],
    )
    assert.deepEqual(parseDeltaFile('root', batchFile('-', B, 'post-checkout', ''), 0)!.from, null)
  })

  it('tolerate a file cut at any byte after the header: complete entries are kept, the cut one is dropped, torn is set', () => {
    const full = batchFile(A, B)
    const headerEnd = full.indexOf(0x0a) + 1
    const paths = ['src/x.ts', 'old.c', 'b.md', 'img.png']
    for (let cut = headerEnd; cut < full.length; cut++) {
      const batch = parseDeltaFile('cut', full.subarray(0, cut), 0)!
      assert.equal(batch.torn, true, `cut at ${cut}`)
      const got = batch.records.map((record) => record.path)
      assert.deepEqual(got, paths.slice(0, got.length), `cut at ${cut}`)
    }
    // Cut inside the numstat section: every raw entry is whole, some counts are missing (left at 0).
    const inNumstat = parseDeltaFile('cut', full.subarray(0, full.indexOf('0\t7\told.c')), 0)!
    assert.deepEqual(inNumstat.records.map((record) => [record.path, record.added, record.removed]), [['src/x.ts', 3, 1], ['old.c', 0, 0], ['b.md', 0, 0], ['img.png', 0, 0]])
  })

  it('reject files a hook did not write', () => {
    assert.equal(parseDeltaFile('x', Buffer.from('hello\n'), 0), undefined)
    assert.equal(parseDeltaFile('x', Buffer.from(`vlt-delta 2 post-commit ${A} ${B}\n`), 0), undefined)
    assert.equal(parseDeltaFile('x', Buffer.from(`vlt-delta 1 pre-commit ${A} ${B}\n`), 0), undefined)
    assert.equal(parseDeltaFile('x', Buffer.from(`vlt-delta 1 post-commit ${A} ${B}`), 0), undefined)
  })
})

describe('the queue directory', () => {
  let vltDir: string
  beforeEach(() => {
    vltDir = mkdtempSync(join(tmpdir(), 'vlt-queue-'))
    confineTo(vltDir)
    mkdirSync(join(vltDir, 'queue'))
  })
  afterEach(() => rmSync(vltDir, { recursive: true, force: true }))

  function put(id: string, bytes: Buffer, mtimeSeconds: number): void {
    const path = join(vltDir, 'queue', `${id}.delta`)
    writeFileSync(path, bytes)
    utimesSync(path, mtimeSeconds, mtimeSeconds)
  }

  it('is empty when .vlt/queue does not exist', async () => {
    rmSync(join(vltDir, 'queue'), { recursive: true })
    assert.deepEqual(await readQueue(vltDir), { batches: [], records: [], unreadable: [] })
  })

  it('lists batches oldest first, ignores in-progress files, reports unreadable ones', async () => {
    put(`${B}-post-commit-2`, batchFile(A, B), 2000)
    put(`${A}-post-checkout-1`, batchFile('-', A, 'post-checkout', [`:000000 100644 ${Z} ${blob('9')} A`, 'z.txt', '1\t0\tz.txt', ''].join('\0')), 1000)
    put('garbage', Buffer.from('not a batch\n'), 1500)
    writeFileSync(join(vltDir, 'queue', `.${B}-post-commit-3.tmp`), 'vlt-delta 1 post-commit')
    writeFileSync(join(vltDir, 'queue', 'indexer-state.json'), '{}')
    const queue = await readQueue(vltDir)
    assert.deepEqual(queue.batches.map((batch) => [batch.id, batch.enqueuedAt]), [[`${A}-post-checkout-1`, 1_000_000], [`${B}-post-commit-2`, 2_000_000]])
    assert.deepEqual(queue.records.map((record) => `${record.batch.slice(-1)} ${record.path}`), ['1 z.txt', '2 src/x.ts', '2 old.c', '2 b.md', '2 img.png'])
    assert.deepEqual(queue.unreadable, ['garbage'])
  })

  it('drains exactly the batches processed: a batch queued meanwhile stays', async () => {
    put(`${A}-post-commit-1`, batchFile(Z, A), 1000)
    put('garbage', Buffer.from('x'), 1000)
    const seen = await readQueue(vltDir)
    // A hook runs while the index is being updated.
    put(`${B}-post-commit-2`, batchFile(A, B), 1001)
    const removed = await drainQueue(vltDir, [...seen.batches.map((batch) => batch.id), ...seen.unreadable])
    assert.equal(removed, 2)
    assert.deepEqual((await readQueue(vltDir)).batches.map((batch) => batch.id), [`${B}-post-commit-2`])
    assert.equal(await drainQueue(vltDir, [`${A}-post-commit-1`]), 0)
    await assert.rejects(drainQueue(vltDir, ['../state']), /invalid queue batch id/)
  })

  it('sweeps in-progress files of hooks killed over an hour ago, and only those', async () => {
    const old = join(vltDir, 'queue', '.dead.tmp')
    const fresh = join(vltDir, 'queue', '.alive.tmp')
    writeFileSync(old, 'x')
    writeFileSync(fresh, 'x')
    utimesSync(old, 1000, 1000)
    await drainQueue(vltDir, [], 1000_000 + 3600_001)
    assert.deepEqual(readdirSync(join(vltDir, 'queue')).sort(), ['.alive.tmp'])
  })
})

describe('the commit policy', () => {
  const policy = { fileThreshold: 3, lineThreshold: 100, timeoutSeconds: 300 }
  const T0 = Date.parse('2024-05-01T12:00:00Z')

  /** A queue of commits one after the other, enqueued at the given times, each changing the given paths by `lines` lines. */
  function queue(...batches: { at: number; paths: string[]; lines?: number }[]): Queue {
    const parsed = batches.map((spec, i) => {
      const diff = spec.paths.map((path) => `:100644 100644 ${blob('1')} ${blob('2')} M\0${path}\0`).join('') + spec.paths.map((path) => `${spec.lines ?? 1}\t0\t${path}\0`).join('')
      return parseDeltaFile(`b${i}`, batchFile(commit(i), commit(i + 1), 'post-commit', diff), spec.at)!
    })
    return { batches: parsed, records: parsed.flatMap((batch) => batch.records), unreadable: [] }
  }

  it('is never due for an empty queue', () => {
    assert.deepEqual(queueSummary(queue(), { fileThreshold: 0, lineThreshold: 0, timeoutSeconds: 0 }, T0), {
      batches: 0, files: 0, lines: 0, oldestChange: null, ageSeconds: null, due: false, reason: null, dueAt: null, unreadable: 0,
    })
  })

  it('waits below every threshold and says when the timeout will fire', () => {
    assert.deepEqual(queueSummary(queue({ at: T0, paths: ['a', 'b'], lines: 10 }), policy, T0 + 60_000), {
      batches: 1, files: 2, lines: 20, oldestChange: '2024-05-01T12:00:00.000Z', ageSeconds: 60, due: false, reason: null, dueAt: '2024-05-01T12:05:00.000Z', unreadable: 0,
    })
  })

  it('is due on files, then lines, then timeout, in that order', () => {
    const manyFiles = queue({ at: T0, paths: ['a', 'b'] }, { at: T0 + 1000, paths: ['b', 'c'] })
    assert.deepEqual(pick(queueSummary(manyFiles, policy, T0 + 1000)), { files: 3, lines: 4, due: true, reason: 'files', dueAt: null })
    const bigEdit = queue({ at: T0, paths: ['a'], lines: 100 })
    assert.deepEqual(pick(queueSummary(bigEdit, policy, T0)), { files: 1, lines: 100, due: true, reason: 'lines', dueAt: null })
    const small = queue({ at: T0, paths: ['a'] }, { at: T0 + 200_000, paths: ['a'] })
    assert.deepEqual(pick(queueSummary(small, policy, T0 + 299_999)), { files: 1, lines: 2, due: false, reason: null, dueAt: '2024-05-01T12:05:00.000Z' })
    assert.deepEqual(pick(queueSummary(small, policy, T0 + 300_000)), { files: 1, lines: 2, due: true, reason: 'timeout', dueAt: null })
  })

  it('adds up the lines of successive commits to one file, counting the file once', () => {
    const edits = queue({ at: T0, paths: ['a'], lines: 40 }, { at: T0 + 1, paths: ['a'], lines: 40 }, { at: T0 + 2, paths: ['a'], lines: 40 })
    assert.deepEqual(pick(queueSummary(edits, policy, T0 + 2)), { files: 1, lines: 120, due: true, reason: 'lines', dueAt: null })
  })
})

describe('the commit policy on real commits with the hooks installed', () => {
  let repo: GitFixture
  let vltDir: string
  const policy = DEFAULT_CONFIG.coderag.delta
  const lines = (from: number, count: number) => Array.from({ length: count }, (_, i) => `line ${from + i}\n`).join('')

  beforeEach(async () => {
    repo = createGitRepo({ files: { 'a.txt': 'start\n' } })
    vltDir = join(repo.dir, '.vlt')
    await ensureVltDir(vltDir)
    await installHooks(repo.dir, { launcher: null })
  })
  afterEach(() => repo.cleanup())

  it('three commits of 600 lines to one file count 1,800 lines, one file, and reach the 1,000-line threshold', async () => {
    let text = 'start\n'
    for (let i = 0; i < 3; i++) {
      text += lines(i * 600, 600)
      repo.write({ 'a.txt': text })
      repo.commit(`600 more lines (${i + 1})`)
    }
    const summary = queueSummary(await readQueue(vltDir), policy)
    assert.deepEqual(pick(summary), { files: 1, lines: 1800, due: true, reason: 'lines', dueAt: null })
    assert.equal(summary.batches, 3)
  })

  it('an amend counts the amended commit once: its lines are not added again', async () => {
    repo.write({ 'a.txt': 'start\n' + lines(0, 600) })
    repo.commit('600 lines')
    repo.write({ 'a.txt': 'start\n' + lines(0, 610) })
    repo.git('commit', '-q', '-a', '--amend', '-m', '610 lines')
    // post-commit (first), post-commit (amend, against the same parent), post-rewrite (from the replaced commit)
    const summary = queueSummary(await readQueue(vltDir), policy)
    assert.equal(summary.batches, 3)
    assert.deepEqual(pick(summary), { files: 1, lines: 610, due: false, reason: null, dueAt: summary.dueAt })
  })
})

function pick(summary: ReturnType<typeof queueSummary>) {
  const { files, lines, due, reason, dueAt } = summary
  return { files, lines, due, reason, dueAt }
}
