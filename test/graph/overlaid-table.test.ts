import { strict as assert } from 'node:assert'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { OverlaidTable, type SymbolTable } from '../../src/core/graph/index.js'
import { openQueryContext, type QueryContext } from '../../src/core/query/context.js'
import { buildRepoMap } from '../../src/core/repomap/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const warn = (): void => {}

const HEAD_FILES: Record<string, string> = {
  'src/util.h': 'int util(int x);\n',
  'src/util.c': '#include "util.h"\nint util(int x) { return x + 1; }\n',
  // extra.h does not exist yet: the include resolves once it is added.
  'src/main.c': '#include "util.h"\n#include "extra.h"\nint main(void) { return util(2) + extra(); }\n',
  'src/old.h': 'int old_fn(void);\n',
  'src/uses_old.c': '#include "old.h"\nint use_old(void) { return old_fn(); }\n',
  'py/pkg/__init__.py': 'from .core import *\n',
  'py/pkg/core.py': 'def core_fn():\n    return 1\n',
  'py/app.py': 'from pkg.core import core_fn\nfrom pkg import helpers\n\ndef run():\n    return core_fn() + helpers.help_fn()\n',
  'web/a.ts': 'export function alpha(): number { return 1 }\n',
  'web/b.ts': "import { alpha } from './a'\nexport function beta(): number { return alpha() }\n",
}

/** Changed, added and removed C and TypeScript files: the view answers every lookup itself. */
const C_AND_TS_CHANGES: Record<string, string> = {
  'src/util.c': '#include "util.h"\n#include "old.h"\nint util2(int x) { return x + 2; }\nint again(void) { return old_fn() + util2(1); }\n',
  'src/extra.h': 'int extra(void);\nint util(int x);\n',
  'web/b.ts': "import { alpha } from './a'\nexport function gamma(): number { return alpha() + 1 }\n",
}

/** Every lookup a query makes of a table, for the words of the repository's files as names and import keys. */
function answers(table: SymbolTable, words: string[], paths: string[]): unknown {
  const keyed = (name: string): unknown => table.keyed(name).map(({ info, file, def, byName, byQualifiedName }) => ({ info, file, def, byName, byQualifiedName }))
  return {
    fileCount: table.fileCount,
    symbolCount: table.symbolCount,
    order: Array.from({ length: table.fileCount }, (_, i) => table.pathAt(i)),
    files: paths.map((path) => ({ path, number: table.fileNumber(path), has: table.hasFile(path), language: table.languageOf(path), defs: table.definitions(path), imports: table.imports(path) })),
    names: words.map((name) => ({ name, keyed: keyed(name), byName: table.byName(name), byQ: table.byQualifiedName(name), lookup: table.lookup(name), refs: table.referencesTo(name), keys: table.importsKeyed(name) })),
    pathLookups: paths.map((path) => table.lookup(`${path}:util`)),
    defined: [...table.definedNames()].sort(),
  }
}

function wordsOf(contents: Array<Record<string, string>>): string[] {
  const words = new Set<string>()
  for (const files of contents) for (const text of Object.values(files)) for (const word of text.match(/[A-Za-z_][\w.]*/g) ?? []) words.add(word).add(word.split('.')[0]!)
  return [...words].sort()
}

/** A query context over the working tree as it is, its table laid over the stored one; and one whose table was materialised (loaded whole, the files applied). */
async function viewAndWhole(dir: string): Promise<{ view: QueryContext; whole: QueryContext }> {
  const view = await openQueryContext(dir, { warn })
  const whole = await openQueryContext(dir, { warn, noSync: true })
  whole.aggregates.graph.load()
  assert.equal((whole.aggregates.symbols as OverlaidTable).laidOver, false)
  return { view, whole }
}

describe('a stored table with files laid over it', function () {
  this.timeout(120_000)
  let repo: GitFixture | undefined
  afterEach(() => repo?.cleanup())

  it('answers every lookup as the table loaded whole with the files applied, without loading it', async () => {
    repo = createGitRepo({ files: HEAD_FILES })
    await openQueryContext(repo.dir, { warn })
    repo.write(C_AND_TS_CHANGES)
    rmSync(join(repo.dir, 'src/old.h'))
    const { view, whole } = await viewAndWhole(repo.dir)
    const table = view.aggregates.symbols
    assert.ok(table instanceof OverlaidTable && table.laidOver)
    const paths = [...new Set([...Object.keys(HEAD_FILES), ...Object.keys(C_AND_TS_CHANGES), 'nowhere.c'])].sort()
    const words = wordsOf([HEAD_FILES, C_AND_TS_CHANGES])
    assert.deepEqual(answers(table, words, paths), answers(whole.aggregates.symbols, words, paths))
    assert.deepEqual([...table.starImporters()].sort(), [...whole.aggregates.symbols.starImporters()].sort())
    assert.ok(table.laidOver, 'nothing above needed the whole table')

    // What the changes resolve differently: an unchanged file's include of an added header, and of a removed one.
    assert.deepEqual(table.imports('src/main.c').map((row) => row.resolved?.path ?? null), ['src/util.h', 'src/extra.h'])
    assert.deepEqual(table.imports('src/uses_old.c').map((row) => row.resolved?.path ?? null), [null])
    assert.deepEqual(table.importsKeyed('extra'), [{ from: 'src/main.c', target: 'src/extra.h' }])
    assert.deepEqual(table.byName('util').map((s) => s.path), ['src/extra.h', 'src/util.h'])
    assert.deepEqual(table.referencesTo('old_fn').map((p) => p.path), ['src/uses_old.c', 'src/util.c'])

    // A graph this small is ranked again exactly (see overlaid-graph.ts): the first rank materialises the set.
    const graph = view.aggregates.graph
    assert.equal(graph.rank('s:src/util.c#util2'), whole.aggregates.graph.rank('s:src/util.c#util2'))
    assert.equal(table.laidOver, false)
    for (const path of paths) assert.equal(graph.fileRank(path), whole.aggregates.graph.fileRank(path), path)
    assert.equal(graph.nodeCount, whole.aggregates.graph.nodeCount)
    assert.deepEqual(answers(table, words, paths), answers(whole.aggregates.symbols, words, paths))
    assert.equal(buildRepoMap(view).map, buildRepoMap(whole).map)
  })

  it('materialises for star imports once a Python path was added or a packaging configuration laid over', async () => {
    repo = createGitRepo({ files: HEAD_FILES })
    await openQueryContext(repo.dir, { warn })
    repo.write({ 'py/pkg/helpers.py': 'def help_fn():\n    return 2\n', 'py/pkg/more.py': 'from .helpers import *\n' })
    const { view, whole } = await viewAndWhole(repo.dir)
    const table = view.aggregates.symbols as OverlaidTable
    const paths = [...Object.keys(HEAD_FILES), 'py/pkg/helpers.py', 'py/pkg/more.py'].sort()
    const words = wordsOf([HEAD_FILES, { helpers: 'help_fn helpers more' }])
    assert.deepEqual(answers(table, words, paths), answers(whole.aggregates.symbols, words, paths))
    assert.deepEqual(table.imports('py/app.py').map((row) => row.resolved?.path ?? null), ['py/pkg/core.py', 'py/pkg/helpers.py'])
    assert.ok(table.laidOver)
    assert.deepEqual([...table.starImporters()].sort(), ['py/pkg/__init__.py', 'py/pkg/more.py'])
    assert.equal(table.laidOver, false, 'which stored star imports resolve now is only known loaded whole')
    assert.deepEqual([...table.starImporters()].sort(), [...whole.aggregates.symbols.starImporters()].sort())

    repo.write({ 'py/pyproject.toml': '[tool.setuptools.package-dir]\n"" = "."\n' })
    const again = await viewAndWhole(repo.dir)
    assert.deepEqual(answers(again.view.aggregates.symbols, words, paths), answers(again.whole.aggregates.symbols, words, paths))
  })

  it('lays a delta tree (a small commit) over its anchor, and the working tree over both', async () => {
    repo = createGitRepo({ files: HEAD_FILES })
    await openQueryContext(repo.dir, { warn })
    repo.write(C_AND_TS_CHANGES)
    repo.git('rm', '-q', 'src/old.h')
    repo.commit('a small change: its tree is stored as a delta')
    const committed = await openQueryContext(repo.dir, { warn })
    assert.equal(committed.freshness.overlayFiles, 0)
    assert.notEqual(committed.manifest.aggregatesTree, committed.manifest.treeHash, 'a delta tree')
    assert.ok((committed.aggregates.symbols as OverlaidTable).laidOver)
    repo.write({ 'src/late.c': '#include "extra.h"\nint late(void) { return extra() + util2(3); }\n', 'web/a.ts': 'export function alpha(): number { return 7 }\nexport const delta = 1\n' })
    const { view, whole } = await viewAndWhole(repo.dir)
    assert.equal(view.freshness.overlayFiles, 2)
    const paths = [...new Set([...Object.keys(HEAD_FILES), ...Object.keys(C_AND_TS_CHANGES), 'src/late.c'])].sort()
    const words = wordsOf([HEAD_FILES, C_AND_TS_CHANGES, { late: 'late delta util2' }])
    assert.deepEqual(answers(view.aggregates.symbols, words, paths), answers(whole.aggregates.symbols, words, paths))
    assert.deepEqual(view.aggregates.symbols.referencesTo('extra').map((p) => p.path), ['src/late.c', 'src/main.c'])
    assert.ok((view.aggregates.symbols as OverlaidTable).laidOver)
  })
})
