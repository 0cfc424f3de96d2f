import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { installHooks } from '../../src/core/hooks/index.js'
import { drainQueue, readQueue, type DeltaBatch } from '../../src/core/queue/index.js'
import { ensureVltDir } from '../../src/core/store/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/** A batch reduced to what a reader checks: hook, range and `<change> <path> <old blob> <new blob> +added -removed` lines. */
function summarize(batch: DeltaBatch): string[] {
  return [
    `${batch.hook} ${batch.from ?? '-'}..${batch.to}`,
    ...batch.records.map(
      (r) => `${r.change} ${r.oldPath ? `${r.oldPath} -> ` : ''}${r.path} ${r.oldBlob ?? '-'} ${r.newBlob ?? '-'} +${r.added ?? 'bin'} -${r.removed ?? 'bin'}`,
    ),
  ]
}

describe('hooks enqueue the deltas of git operations', () => {
  let repo: GitFixture
  let vltDir: string
  const blob = (spec: string) => repo.git('rev-parse', spec)

  /** The batches queued since the last call, oldest first, then an empty queue. */
  async function take(): Promise<DeltaBatch[]> {
    const queue = await readQueue(vltDir)
    await drainQueue(vltDir, queue.batches.map((batch) => batch.id))
    assert.deepEqual(queue.unreadable, [])
    assert.ok(queue.batches.every((batch) => !batch.torn))
    return queue.batches
  }

  beforeEach(async () => {
    repo = createGitRepo({ files: { 'a.txt': 'one\ntwo\n', 'b.txt': 'bee\n', 'c.txt': 'sea\n' } })
    vltDir = join(repo.dir, '.vlt')
    await ensureVltDir(vltDir)
    await installHooks(repo.dir, { launcher: null })
  })
  afterEach(() => repo.cleanup())

  it('commit: one batch with added, modified, deleted and renamed paths, blobs and line counts', async () => {
    const parent = blob('HEAD')
    const oldA = blob('HEAD:a.txt')
    const oldC = blob('HEAD:c.txt')
    repo.write({ 'a.txt': 'one\n2\nthree\n', 'new.bin': Buffer.from([0, 1, 2, 0]) })
    repo.git('rm', '-q', 'b.txt')
    repo.git('mv', 'c.txt', 'd.txt')
    const head = repo.commit('mixed')
    const [batch, ...rest] = await take()
    assert.equal(rest.length, 0)
    assert.deepEqual(summarize(batch!), [
      `post-commit ${parent}..${head}`,
      `M a.txt ${oldA} ${blob('HEAD:a.txt')} +2 -1`,
      `D b.txt ${blob('HEAD~1:b.txt')} - +0 -1`,
      `R c.txt -> d.txt ${oldC} ${oldC} +0 -0`,
      `A new.bin - ${blob('HEAD:new.bin')} +bin -bin`,
    ])
    assert.equal(batch!.records[0]!.mode, '100644')
    assert.equal(batch!.records[1]!.mode, null)
  })

  it('first commit of a repository: diffed against the empty tree', async () => {
    const fresh = createGitRepo()
    try {
      await ensureVltDir(join(fresh.dir, '.vlt'))
      await installHooks(fresh.dir, { launcher: null })
      fresh.write({ 'x.txt': 'x\n' })
      const head = fresh.commit('root')
      const queue = await readQueue(join(fresh.dir, '.vlt'))
      assert.deepEqual(queue.batches.map(summarize), [[`post-commit -..${head}`, `A x.txt - ${fresh.git('rev-parse', 'HEAD:x.txt')} +1 -0`]])
    } finally {
      fresh.cleanup()
    }
  })

  it('amend: post-commit against the parent and post-rewrite from the replaced commit', async () => {
    const parent = blob('HEAD')
    repo.write({ 'a.txt': 'one\ntwo\nthree\n' })
    const first = repo.commit('add three')
    await take()
    repo.write({ 'b.txt': 'bee\nbuzz\n' })
    repo.git('commit', '-q', '-a', '--amend', '-m', 'add three and buzz')
    const amended = blob('HEAD')
    const batches = await take()
    assert.deepEqual(batches.map(summarize), [
      [`post-commit ${parent}..${amended}`, `M a.txt ${blob(`${parent}:a.txt`)} ${blob('HEAD:a.txt')} +1 -0`, `M b.txt ${blob(`${parent}:b.txt`)} ${blob('HEAD:b.txt')} +1 -0`],
      [`post-rewrite ${first}..${amended}`, `M b.txt ${blob(`${first}:b.txt`)} ${blob('HEAD:b.txt')} +1 -0`],
    ])
  })

  it('rebase: the checkout of the base, each replayed commit, and the net rewrite of the branch', async () => {
    const base = blob('HEAD')
    repo.git('checkout', '-q', '-b', 'feature')
    repo.write({ 'f1.txt': 'f1\n' })
    repo.commit('f1')
    repo.write({ 'f2.txt': 'f2\n' })
    const tip = repo.commit('f2')
    repo.git('checkout', '-q', 'main')
    repo.write({ 'a.txt': 'one\ntwo\nmain\n' })
    const upstream = repo.commit('main moves')
    repo.git('checkout', '-q', 'feature')
    await take()

    repo.git('rebase', '-q', 'main')
    const rebased = blob('HEAD')
    const batches = await take()
    const a = `M a.txt ${blob(`${base}:a.txt`)} ${blob(`${upstream}:a.txt`)} +1 -0`
    assert.deepEqual(batches.map(summarize), [
      [`post-checkout ${tip}..${upstream}`, a, `D f1.txt ${blob(`${tip}:f1.txt`)} - +0 -1`, `D f2.txt ${blob(`${tip}:f2.txt`)} - +0 -1`],
      [`post-commit ${upstream}..${blob('HEAD~1')}`, `A f1.txt - ${blob('HEAD:f1.txt')} +1 -0`],
      [`post-commit ${blob('HEAD~1')}..${rebased}`, `A f2.txt - ${blob('HEAD:f2.txt')} +1 -0`],
      [`post-rewrite ${tip}..${rebased}`, a],
    ])
  })

  it('cherry-pick: a post-commit batch with the picked change', async () => {
    repo.git('checkout', '-q', '-b', 'side')
    repo.write({ 'c.txt': 'sea\nsalt\n' })
    const picked = repo.commit('salt')
    repo.git('checkout', '-q', 'main')
    const before = blob('HEAD')
    await take()
    repo.git('cherry-pick', picked)
    assert.deepEqual((await take()).map(summarize), [
      [`post-commit ${before}..${blob('HEAD')}`, `M c.txt ${blob(`${before}:c.txt`)} ${blob(`${picked}:c.txt`)} +1 -0`],
    ])
  })

  it('merge: fast-forward and true merge queue ORIG_HEAD..HEAD; a squash merge waits for its commit', async () => {
    repo.git('checkout', '-q', '-b', 'side')
    repo.write({ 's.txt': 's\n' })
    const side = repo.commit('side')
    repo.git('checkout', '-q', 'main')
    const main = blob('HEAD')
    await take()
    repo.git('merge', '-q', 'side')
    assert.deepEqual((await take()).map(summarize), [[`post-merge ${main}..${side}`, `A s.txt - ${blob('side:s.txt')} +1 -0`]])

    repo.git('reset', '-q', '--hard', main)
    repo.write({ 'a.txt': 'one\ntwo\nmine\n' })
    const ours = repo.commit('ours')
    await take()
    repo.git('merge', '-q', '--no-edit', 'side')
    assert.deepEqual((await take()).map(summarize), [[`post-merge ${ours}..${blob('HEAD')}`, `A s.txt - ${blob('side:s.txt')} +1 -0`]])

    repo.git('reset', '-q', '--hard', ours)
    await take()
    repo.git('merge', '-q', '--squash', 'side')
    assert.deepEqual(await take(), [])
  })

  it('checkout: a branch switch queues the difference; a file checkout and a new branch at HEAD queue nothing', async () => {
    repo.git('checkout', '-q', '-b', 'other')
    assert.deepEqual(await take(), [])
    repo.write({ 'b.txt': 'bee\nother\n' })
    const other = repo.commit('other')
    await take()
    repo.git('checkout', '-q', 'main')
    const main = blob('HEAD')
    assert.deepEqual((await take()).map(summarize), [[`post-checkout ${other}..${main}`, `M b.txt ${blob(`${other}:b.txt`)} ${blob('main:b.txt')} +0 -1`]])

    repo.write({ 'a.txt': 'dirty\n' })
    repo.git('checkout', '--', 'a.txt')
    assert.deepEqual(await take(), [])
  })

  it('does nothing where nothing is indexed (no .vlt/)', async () => {
    rmSync(vltDir, { recursive: true })
    repo.write({ 'a.txt': 'x\n' })
    repo.commit('unindexed')
    assert.deepEqual((await readQueue(vltDir)).batches, [])
  })
})
