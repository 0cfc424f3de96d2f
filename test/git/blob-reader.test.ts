import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { VltError } from '../../src/core/errors.js'
import { BlobReader, listTree, openRepo, type Repo } from '../../src/core/git/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/**
 * This process's `git cat-file` children, zombies included (ps shows them as `[git] <defunct>`).
 * Other zombies are not ours to count: worker threads that ran from the TypeScript sources leave
 * tsx's esbuild service as `[esbuild] <defunct>`.
 */
function catFileChildren(): string[] {
  const ps = execFileSync('ps', ['-o', 'pid=,stat=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
  return ps.split('\n').filter((line) => /cat-file|\[git\] <defunct>/.test(line))
}

describe('BlobReader', () => {
  let fixture: GitFixture
  let repo: Repo
  const files: Record<string, Buffer> = {}
  before(async () => {
    for (let i = 0; i < 300; i++) files[`f${i}.bin`] = randomBytes(i * 97)
    files['big.bin'] = randomBytes(3 << 20)
    files['empty.txt'] = Buffer.alloc(0)
    files['newlines.txt'] = Buffer.from('\n\n\nx\n\n')
    files['nul.bin'] = Buffer.from([0, 10, 0, 10, 255, 0])
    fixture = createGitRepo({ files })
    repo = await openRepo(fixture.dir)
  })
  after(() => fixture.cleanup())

  it('answers many reads in flight, in any size, byte for byte', async () => {
    const entries = await listTree(repo, 'HEAD')
    const reader = new BlobReader(repo)
    try {
      const contents = await Promise.all(entries.map((entry) => reader.read(entry.blob)))
      entries.forEach((entry, i) => assert.ok(contents[i]!.equals(files[entry.path]!), entry.path))
      // The same blob twice, interleaved with others, still lines up.
      const [a, b, c] = await Promise.all([reader.read(entries[0]!.blob), reader.read(entries[1]!.blob), reader.read(entries[0]!.blob)])
      assert.ok(a!.equals(c!))
      assert.ok(b!.equals(files[entries[1]!.path]!))
    } finally {
      await reader.close()
    }
  })

  it('rejects a missing blob and a non-blob object without losing step', async () => {
    const [entry] = await listTree(repo, 'HEAD')
    const reader = new BlobReader(repo)
    try {
      const missing = reader.read('0'.repeat(40))
      const tree = reader.read(fixture.git('rev-parse', 'HEAD^{tree}'))
      const after = reader.read(entry!.blob)
      await assert.rejects(missing, (error: unknown) => error instanceof VltError && /0{40} is missing/.test(error.message))
      await assert.rejects(tree, (error: unknown) => error instanceof VltError && /is a tree, not a blob/.test(error.message))
      assert.ok((await after).equals(files[entry!.path]!))
      await assert.rejects(reader.read('HEAD'), /not an object id/)
    } finally {
      await reader.close()
    }
  })

  it('finishes pending reads on close, then refuses reads and leaves no process behind', async () => {
    const entries = await listTree(repo, 'HEAD')
    const reader = new BlobReader(repo)
    const pending = entries.slice(0, 50).map((entry) => reader.read(entry.blob))
    assert.equal(catFileChildren().length, 1)
    await reader.close()
    await reader.close()
    assert.equal((await Promise.all(pending)).length, 50)
    await assert.rejects(reader.read(entries[0]!.blob), /closed/)
    assert.deepEqual(catFileChildren(), [])
  })

  it('fails every pending read when git dies, and leaves no process behind', async () => {
    const entries = await listTree(repo, 'HEAD')
    const reader = new BlobReader(repo)
    await reader.read(entries[0]!.blob)
    const [line] = catFileChildren()
    const pending = entries.map((entry) => reader.read(entry.blob).then(() => 'read', (error: Error) => error.message))
    process.kill(Number(line!.trim().split(/\s+/)[0]), 'SIGKILL')
    const outcomes = await Promise.all(pending)
    assert.ok(outcomes.some((outcome) => /cat-file failed/.test(outcome)), outcomes.find((outcome) => outcome !== 'read'))
    await assert.rejects(reader.read(entries[0]!.blob), /cat-file failed/)
    await reader.close()
    assert.deepEqual(catFileChildren(), [])
  })

  it('starts no process when nothing is read', async () => {
    const reader = new BlobReader(repo)
    assert.deepEqual(catFileChildren(), [])
    await reader.close()
  })

  it('does not keep Node alive when a reader is left open', () => {
    const source = fileURLToPath(new URL('../../src/core/git/index.ts', import.meta.url))
    const script = `
      import { BlobReader, openRepo, listTree } from ${JSON.stringify(source)}
      const repo = await openRepo(${JSON.stringify(fixture.dir)})
      const [entry] = await listTree(repo, 'HEAD')
      const bytes = await new BlobReader(repo).read(entry.blob)
      console.log(bytes.length)
    `
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })
    assert.match(out, /^\d+\n$/)
  })
})
