import { strict as assert } from 'node:assert'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TreeWatcher } from '../../src/core/mcp/tree-watcher.js'

describe('TreeWatcher', function () {
  this.timeout(20_000)
  let root: string
  let watcher: TreeWatcher | undefined
  const seen: Array<string | null> = []

  /** Resolves once `path` has been reported. */
  async function reported(path: string): Promise<void> {
    for (let waited = 0; !seen.includes(path); waited += 10) {
      if (waited > 5000) assert.fail(`no change reported for ${path}; saw ${JSON.stringify(seen)}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'vlt-watch-'))
    for (const dir of ['src/a/b', '.vlt/records', 'meta/refs/heads', 'meta/objects/ab']) mkdirSync(join(root, dir), { recursive: true })
    seen.length = 0
    watcher = await TreeWatcher.start(root, [{ path: root, recursive: true }, { path: join(root, 'meta'), recursive: false }, { path: join(root, 'meta', 'refs'), recursive: true }], {
      skip: [join(root, '.vlt'), join(root, 'meta')],
      onChange: (path) => seen.push(path),
      onError: (error) => assert.fail(error),
    })
  })

  afterEach(() => {
    watcher?.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('reports changes to files in nested directories and in directories created later', async () => {
    writeFileSync(join(root, 'src/a/b/deep.c'), 'int x;\n')
    await reported(join('src', 'a', 'b', 'deep.c'))
    const before = watcher!.size
    mkdirSync(join(root, 'src/new/inner'), { recursive: true })
    await reported(join('src', 'new'))
    // The new directories are walked asynchronously after their creation is reported.
    for (let waited = 0; watcher!.size < before + 2; waited += 10) {
      if (waited > 5000) assert.fail(`new directories not watched: ${watcher!.size} watches, ${before} before`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    writeFileSync(join(root, 'src/new/inner/fresh.c'), 'int y;\n')
    await reported(join('src', 'new', 'inner', 'fresh.c'))
  })

  it('watches the git-like directory for its own files and its refs, not its objects or skipped directories', async () => {
    writeFileSync(join(root, '.vlt/records/r1'), 'x')
    writeFileSync(join(root, 'meta/objects/ab/cdef'), 'x')
    writeFileSync(join(root, 'meta/HEAD'), 'ref: refs/heads/main\n')
    writeFileSync(join(root, 'meta/refs/heads/main'), 'abc\n')
    await reported(join('meta', 'HEAD'))
    await reported(join('meta', 'refs', 'heads', 'main'))
    assert.ok(!seen.some((path) => path !== null && (path.startsWith(join('.vlt', 'records')) || path.startsWith(join('meta', 'objects', 'ab')))), JSON.stringify(seen))
  })

  it('holds one watch per directory on Linux', function () {
    if (process.platform !== 'linux') this.skip()
    // root, src, src/a, src/a/b; meta; meta/refs, meta/refs/heads.
    assert.equal(watcher!.size, 7)
  })
})
