import { strict as assert } from 'node:assert'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { OverlaidTable } from '../../src/core/graph/index.js'
import { MAX_RECOUNTED_FILES } from '../../src/core/graph/laid-edge-count.js'
import { openQueryContext } from '../../src/core/query/context.js'
import { indexStatus } from '../../src/core/index/index.js'
import { vltJson } from '../helpers/cli.js'
import { cloneGitRepo, createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const warn = (): void => {}

/** Six files define `probe` (more than resolution tells apart): drv.h's importers resolve it to drv.h's. */
const probes = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`drivers/d${i}.c`, `static int probe(void) { return ${i}; }\nint d${i}_init(void) { return probe(); }\n`]))

const HEAD_FILES: Record<string, string> = {
  ...probes,
  'src/util.h': 'int util(int x);\nint four(void);\n',
  'src/util.c': '#include "util.h"\nint util(int x) { return x + 1; }\n',
  // extra.h does not exist yet: the include resolves once it is added. loop recurses: no edge to itself.
  'src/main.c': '#include "util.h"\n#include "extra.h"\nint loop(int n) { return n ? loop(n - 1) : util(2) + extra() + four() + probe(); }\n',
  'src/old.h': 'int old_fn(void);\n',
  'src/uses_old.c': '#include "old.h"\nint use_old(void) { return old_fn() + util(1); }\n',
  'src/drv.h': 'int probe(void);\n',
  'src/uses_drv.c': '#include "drv.h"\nint start(void) { return probe() + four(); }\n',
  // four is defined in four files: every reference links to all of them until a fifth appears.
  'lib/f1.c': 'int four(void) { return 1; }\n',
  'lib/f2.c': 'int four(void) { return 2; }\n',
  'lib/f3.c': 'int four(void) { return 3; }\n',
  'go.mod': 'module example.com/m\n\ngo 1.21\n',
  'pkg/a/a.go': 'package a\n\nfunc A() int { return 1 }\n',
  'cmd/main.go': 'package main\n\nimport "example.com/m/pkg/a"\n\nfunc main() { println(a.A() + a.B()) }\n',
  'web/a.ts': 'export function alpha(): number { return 1 }\n',
  'web/b.ts': "import { alpha } from './a'\nexport function beta(): number { return alpha() }\n",
}

/** Each change, laid over the stored table, moves edges in a way the count must follow. */
const CHANGES: Array<{ what: string; write: Record<string, string>; remove?: string[] }> = [
  {
    what: 'definitions renamed and added, a header added (an include resolves) and removed (one no longer does)',
    write: {
      'src/util.c': '#include "util.h"\n#include "old.h"\nint util2(int x) { return x + 2; }\nint again(void) { return old_fn() + util2(1) + again(); }\n',
      'src/extra.h': 'int extra(void);\nint util(int x);\n',
      'web/b.ts': "import { alpha } from './a'\nexport function gamma(): number { return alpha() + 1 }\n",
    },
    remove: ['src/old.h'],
  },
  { what: 'a fifth file defining a name four files define: its references no longer resolve', write: { 'lib/f5.c': 'int four(void) { return 5; }\n' } },
  { what: 'a second definition of a name one file defines', write: { 'src/util2.c': 'int util(int x) { return x; }\n' } },
  { what: 'an included header no longer defines a common name (its importers resolve it no more)', write: { 'src/drv.h': 'int other(void);\n' } },
  { what: 'an included header defines a common name twice over', write: { 'src/drv.h': 'int probe(void);\nstruct s { int probe; };\n' } },
  { what: 'a package gains a file: the directory import reaches it', write: { 'pkg/a/b.go': 'package a\n\nfunc B() int { return 2 }\n' } },
  { what: 'a file removed that others reference', write: {}, remove: ['lib/f1.c', 'drivers/d0.c'] },
]

/**
 * Indexes `repo` as it is, then writes `write` and removes `remove`: the edge count before, the
 * count from those files laid over the stored index, whether that left the table laid over (not
 * loaded), and the count of the table and graph loaded whole with the files applied.
 */
async function countsAfter(repo: GitFixture, write: Record<string, string>, remove: string[] = []): Promise<{ stored: number; counted: number; stillLaid: boolean; materialised: number }> {
  const stored = (await openQueryContext(repo.dir, { warn })).aggregates.graph.edgeCount
  repo.write(write)
  for (const path of remove) rmSync(join(repo.dir, path))
  const view = await openQueryContext(repo.dir, { warn })
  const table = view.aggregates.symbols as OverlaidTable
  assert.ok(table.laidOver, 'the files are laid over the stored index')
  const counted = view.aggregates.graph.edgeCount
  const whole = await openQueryContext(repo.dir, { warn, noSync: true })
  whole.aggregates.graph.load()
  return { stored, counted, stillLaid: table.laidOver, materialised: whole.aggregates.graph.edgeCount }
}

describe('the edge count of a stored graph with files laid over it', function () {
  this.timeout(120_000)
  let repo: GitFixture | undefined
  afterEach(() => repo?.cleanup())

  for (const change of CHANGES) {
    it(`is the materialised graph's, read from the view: ${change.what}`, async () => {
      repo = createGitRepo({ files: HEAD_FILES })
      const { stored, counted, stillLaid, materialised } = await countsAfter(repo, change.write, change.remove)
      assert.ok(stillLaid, 'counted without loading the table')
      assert.equal(counted, materialised)
      assert.notEqual(materialised, stored, 'the change moves the count')
    })
  }

  it('materialises when a Python path is added (a stored star import may resolve now), with the same count', async () => {
    repo = createGitRepo({ files: { 'pkg/__init__.py': 'from .core import *\n', 'pkg/core.py': 'def core_fn():\n    return 1\n', 'app.py': 'from pkg import helpers\n\ndef run():\n    return helpers.help_fn()\n' } })
    const { counted, stillLaid, materialised } = await countsAfter(repo, { 'pkg/helpers.py': 'def help_fn():\n    return 2\n' })
    assert.equal(counted, materialised)
    assert.equal(stillLaid, false)
  })

  it('materialises when more stored files than it reads would have to be read (a new header named as one thousands of files include)', async () => {
    const includers = (n: number): Record<string, string> =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`src/u${i}.c`, `#include "types.h"\nint u${i}(void) { return size_of(); }\n`]))
    for (const [files, read] of [[50, true], [MAX_RECOUNTED_FILES + 1, false]] as const) {
      repo?.cleanup()
      repo = createGitRepo({ files: { ...includers(files), 'src/types.h': 'int size_of(void);\n' } })
      // Every include keyed `types` may now resolve to it (it does not: src/types.h is nearer); telling reads each includer.
      const { counted, stillLaid, materialised } = await countsAfter(repo, { 'lib/types.h': 'int other(void);\n' })
      assert.equal(counted, materialised)
      assert.equal(materialised, 2 * files, 'each file includes src/types.h and calls what it declares')
      assert.equal(stillLaid, read, `${files} includers`)
    }
  })

  it("status counts a delta tree's edges as an init of its tree does", async () => {
    repo = createGitRepo({ files: HEAD_FILES })
    vltJson(repo.dir, ['coderag', 'init'])
    for (const change of CHANGES.slice(0, 4)) repo.write(change.write)
    rmSync(join(repo.dir, 'src/old.h'))
    repo.commit('a delta')
    const delta = vltJson(repo.dir, ['coderag', 'sync'])
    const status = await indexStatus(repo.dir, warn)
    assert.equal(status.treeHash, delta.treeHash)
    assert.notEqual(status.deltaOf, null)
    const fresh = cloneGitRepo(repo)
    try {
      const init = vltJson(fresh.dir, ['coderag', 'init'])
      assert.equal(init.treeHash, status.treeHash)
      assert.equal(status.edges, vltJson(fresh.dir, ['coderag', 'status']).edges)
    } finally {
      fresh.cleanup()
    }
  })
})
