import assert from 'node:assert/strict'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import { SymbolTable } from '../../src/core/graph/index.js'
import type { ImportRef, LanguageId } from '../../src/core/parse/types.js'

function imp(module: string, relative = false, names: string[] = []): ImportRef {
  return { module, names: names.map((name) => ({ name })), line: 1, relative }
}

/** Resolved target of each import row of `from`, after adding `files` (empty files) and `from`. */
function resolve(language: LanguageId, from: string, imports: ImportRef[], files: string[]): Array<string | null> {
  const table = new SymbolTable()
  for (const path of files) table.addFile(path, { language, symbols: [], references: toReferenceColumns([]), imports: [] })
  table.addFile(from, { language, symbols: [], references: toReferenceColumns([]), imports })
  table.commit()
  return table.imports(from).map((i) => (i.resolved ? `${i.resolved.path}${i.resolved.isDir ? '/' : ''}` : null))
}

describe('import resolution', () => {
  it('python: dotted modules, packages, relative imports and submodule names', () => {
    assert.deepEqual(resolve('python', 'app/views.py', [
      imp('app.models'), imp('app.utils'), imp('.forms', true), imp('..conf', true), imp('.', true, ['helpers']), imp('os.path'),
    ], ['src/app/models.py', 'app/utils/__init__.py', 'app/forms.py', 'conf/__init__.py', 'app/helpers.py', 'app/__init__.py']), [
      'src/app/models.py', 'app/utils/__init__.py', 'app/forms.py', 'conf/__init__.py', 'app/helpers.py', null,
    ])
  })

  it('typescript: relative specifiers with extension and index probing', () => {
    assert.deepEqual(resolve('typescript', 'src/cli/main.ts', [
      imp('./args', true), imp('../core/index.js', true), imp('../ui', true), imp('lodash'), imp('./missing', true),
    ], ['src/cli/args.tsx', 'src/core/index.ts', 'src/ui/index.jsx']), ['src/cli/args.tsx', 'src/core/index.ts', 'src/ui/index.jsx', null, null])
  })

  it('go: import paths to package directories by suffix', () => {
    assert.deepEqual(resolve('go', 'cmd/tool/main.go', [imp('github.com/acme/tool/internal/store'), imp('fmt')], ['internal/store/db.go', 'internal/store/kv.go']),
      ['internal/store/', null])
  })

  it('rust: crate, self and super paths to modules, items falling back to their module', () => {
    assert.deepEqual(resolve('rust', 'src/net/client.rs', [
      imp('crate::config'), imp('crate::net::proto::Frame'), imp('super::util', false, ['parse']), imp('std::io'),
    ], ['src/config.rs', 'src/net/proto/mod.rs', 'src/net/util.rs', 'src/util.rs']), ['src/config.rs', 'src/net/proto/mod.rs', 'src/net/util.rs', null])
  })

  it('java: classes by path suffix, wildcards to packages', () => {
    assert.deepEqual(resolve('java', 'src/main/java/com/acme/App.java', [imp('com.acme.model.User'), imp('com.acme.model.*'), imp('java.util.List')],
      ['src/main/java/com/acme/model/User.java']), ['src/main/java/com/acme/model/User.java', 'src/main/java/com/acme/model/', null])
  })

  it('c: quoted includes beside the file, then by unique suffix', () => {
    assert.deepEqual(resolve('c', 'drivers/net/eth.c', [imp('eth.h', true), imp('linux/list.h'), imp('config.h', true), imp('stdio.h')],
      ['drivers/net/eth.h', 'include/linux/list.h', 'drivers/config.h', 'lib/config.h']),
    // config.h: two candidates, the one sharing more of the includer's directory wins.
    ['drivers/net/eth.h', 'include/linux/list.h', 'drivers/config.h', null])
  })

  it('ruby: require_relative and require by suffix', () => {
    assert.deepEqual(resolve('ruby', 'lib/app/cli.rb', [imp('../version', true), imp('app/runner'), imp('json')], ['lib/version.rb', 'lib/app/runner.rb']),
      ['lib/version.rb', 'lib/app/runner.rb', null])
  })

  it('re-resolves imports when a path they may name appears or disappears', () => {
    const table = new SymbolTable()
    const c = (imports: ImportRef[]) => ({ language: 'c' as const, symbols: [], references: toReferenceColumns([]), imports })
    table.addFile('src/main.c', c([imp('util.h', true)]))
    table.addFile('src/other.c', c([imp('other.h', true)]))
    table.commit()
    assert.equal(table.imports('src/main.c')[0]!.resolved, null)
    table.addFile('include/util.h', c([]))
    const added = table.commit()
    assert.deepEqual([...added.importsChanged], ['src/main.c'])
    assert.deepEqual(table.imports('src/main.c')[0]!.resolved, { path: 'include/util.h', isDir: false })
    table.addFile('src/util.h', c([]))
    table.commit()
    assert.equal(table.imports('src/main.c')[0]!.resolved!.path, 'src/util.h')
    table.removeFile('src/util.h')
    table.removeFile('include/util.h')
    assert.deepEqual([...table.commit().importsChanged], ['src/main.c'])
    assert.equal(table.imports('src/main.c')[0]!.resolved, null)
  })
})
