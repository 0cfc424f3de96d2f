import { strict as assert } from 'node:assert'
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { vlt, vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { scipDocument, scipIndex } from './scip-encode.js'

const FILES = {
  'tsconfig.json': '{"compilerOptions":{"strict":true,"target":"es2020","module":"commonjs"},"include":["src"]}\n',
  'src/shapes.ts': [
    'export class Circle {',
    '  constructor(public radius: number) {}',
    '  area(): number {',
    '    return Math.PI * this.radius * this.radius',
    '  }',
    '}',
    '',
    'export class Square {',
    '  constructor(public side: number) {}',
    '  area(): number {',
    '    return this.side * this.side',
    '  }',
    '}',
    '',
    'export function total(shapes: Circle[]): number {',
    '  return shapes.reduce((sum, s) => sum + s.area(), 0)',
    '}',
    '',
  ].join('\n'),
  'src/main.ts': [
    "import { Circle, Square, total } from './shapes'",
    '',
    'const shapes = [new Circle(1), new Circle(2)]',
    'console.log(total(shapes))',
    'const first = shapes[0]!.area()',
    'const square = new Square(3).area()',
    '',
  ].join('\n'),
}

/** The compiler's truth about the fixture: the uses of Circle.area (Square.area's are not). */
const CIRCLE_AREA_USES = ['src/main.ts:5:25', 'src/shapes.ts:16:43']

interface Ref {
  path: string
  line: number
  column: number
  precision: string
}
const where = (refs: Ref[]): string[] => refs.map((r) => `${r.path}:${r.line}:${r.column}`).sort()

describe('coderag scip (SCIP import and build)', function () {
  this.timeout(180_000)
  let repo: GitFixture
  let built: string

  before(() => {
    repo = createGitRepo({ files: FILES })
    repo.commit('shapes')
    built = join(repo.dir, '..', `${repo.dir.split('/').pop()}-index.scip`)
  })
  after(() => repo.cleanup())

  it('builds an index with scip-typescript, never running an indexer the repository ships, and imports it', () => {
    // A cloned repository's node_modules/.bin on PATH: its "indexer" would leave a canary.
    const canary = join(repo.dir, '..', `${repo.dir.split('/').pop()}-canary`)
    mkdirSync(join(repo.dir, 'node_modules', '.bin'), { recursive: true })
    writeFileSync(join(repo.dir, 'node_modules', '.bin', 'scip-typescript'), `#!/bin/sh\ntouch ${canary}\nexit 1\n`)
    chmodSync(join(repo.dir, 'node_modules', '.bin', 'scip-typescript'), 0o755)
    // Nor a program it runs itself: the real scip-typescript is `#!/usr/bin/env node`.
    writeFileSync(join(repo.dir, 'node_modules', '.bin', 'node'), `#!/bin/sh\ntouch ${canary}-node\nexit 1\n`)
    chmodSync(join(repo.dir, 'node_modules', '.bin', 'node'), 0o755)
    const path = `${join(repo.dir, 'node_modules', '.bin')}:node_modules/.bin:${process.env.PATH}`
    const result = vltJson(repo.dir, ['coderag', 'scip', 'build', '--output', built], { PATH: path })
    assert.equal(existsSync(canary), false, 'the repository\'s scip-typescript was run')
    assert.equal(existsSync(`${canary}-node`), false, "the repository's node ran the indexer")
    assert.deepEqual(result.indexers.map((i: { name: string }) => i.name), ['scip-typescript'])
    assert.equal(result.commit, repo.git('rev-parse', 'HEAD'))
    assert.equal(result.documents, 2)
    assert.equal(result.skippedDocuments, 0)
    assert.match(result.tool, /^scip-typescript /)
    assert.ok(readFileSync(built).length > 0)
  })

  it('answers def and refs from SCIP for fresh files, with the indexer\'s types', () => {
    const def = vltJson(repo.dir, ['coderag', 'def', 'total'])
    assert.deepEqual(def.definitions.map((d: { path: string; line: number; precision: string; type?: string }) => [d.path, d.line, d.precision, d.type]), [
      ['src/shapes.ts', 15, 'scip', 'function total(shapes: Circle[]): number'],
    ])
    const refs = vltJson(repo.dir, ['coderag', 'refs', 'Circle.area'])
    assert.deepEqual(where(refs.references), CIRCLE_AREA_USES)
    assert.ok(refs.references.every((r: Ref) => r.precision === 'scip'))
    assert.equal(refs.ambiguous, undefined)
    // `new Circle(…)` is a use of the class, though scip-typescript names the constructor there.
    const circle = vltJson(repo.dir, ['coderag', 'refs', 'Circle'])
    assert.deepEqual(where(circle.references), ['src/main.ts:1:9', 'src/main.ts:3:20', 'src/main.ts:3:35', 'src/shapes.ts:15:30'])
    const text = vlt(repo.dir, ['coderag', 'refs', 'Circle.area'])
    assert.equal(text.status, 0)
    assert.match(text.stdout, /src\/main\.ts:5:26 {2}const first = shapes\[0\]!\.area\(\) {2}\(in first\) {2}\[scip\]/)
  })

  it('answers syntactically for a file edited since the index was built', () => {
    writeFileSync(join(repo.dir, 'src/main.ts'), `${FILES['src/main.ts']}// edited\n`)
    try {
      const refs = vltJson(repo.dir, ['coderag', 'refs', 'Circle.area'])
      // Our own resolution cannot type `shapes[0]!` and calls the use ambiguous; SCIP no longer speaks for the file.
      const uses = [...refs.references, ...(refs.ambiguous ?? [])].map((r: Ref) => `${r.path}:${r.line}:${r.precision}`).sort()
      assert.deepEqual(uses, ['src/main.ts:5:syntactic', 'src/main.ts:6:syntactic', 'src/shapes.ts:16:scip'])
    } finally {
      writeFileSync(join(repo.dir, 'src/main.ts'), FILES['src/main.ts'])
    }
  })

  it('reports the imported index in status: its commit, its indexer, and how many of its documents are fresh', () => {
    const scip = (): { commit: string; indexer: string; documents: number; fresh: number; stale: number; importedAt: string } => vltJson(repo.dir, ['coderag', 'status']).scip
    const imported = scip()
    assert.match(imported.indexer, /^scip-typescript /)
    assert.ok(!Number.isNaN(Date.parse(imported.importedAt)), imported.importedAt)
    assert.deepEqual({ ...imported, indexer: '', importedAt: '' }, { commit: repo.git('rev-parse', 'HEAD'), indexer: '', documents: 2, fresh: 2, stale: 0, importedAt: '' })
    writeFileSync(join(repo.dir, 'src/main.ts'), `${FILES['src/main.ts']}// edited\n`)
    try {
      vltJson(repo.dir, ['coderag', 'sync'])
      assert.deepEqual([scip().fresh, scip().stale], [1, 1])
      assert.match(vlt(repo.dir, ['coderag', 'status']).stdout, /^scip {8}2 document\(s\) by scip-typescript \S+ for commit [0-9a-f]{12}, imported \S+: 1 fresh, 1 stale/m)
    } finally {
      writeFileSync(join(repo.dir, 'src/main.ts'), FILES['src/main.ts'])
      vltJson(repo.dir, ['coderag', 'sync'])
    }
    const none = createGitRepo({ files: FILES })
    try {
      none.commit('shapes')
      vltJson(none.dir, ['coderag', 'init'])
      assert.equal(vltJson(none.dir, ['coderag', 'status']).scip, null)
      assert.match(vlt(none.dir, ['coderag', 'status']).stdout, /^scip {8}none imported$/m)
    } finally {
      none.cleanup()
    }
  })

  it('adds to def the definitions only SCIP knows in fresh files, ranked with ours: a constructor\'s parameter property', () => {
    const other = createGitRepo({
      files: {
        'tsconfig.json': FILES['tsconfig.json'],
        'src/disc.ts': 'export class Disc {\n  constructor(public radius: number, scale: number) {}\n}\n',
        'src/radius.ts': 'export function radius(): number {\n  return 1\n}\n',
        'src/main.ts': "import { Disc } from './disc'\nconsole.log(new Disc(2, 1).radius)\n",
      },
    })
    try {
      other.commit('discs')
      const defs = (symbol: string): string[] => vltJson(other.dir, ['coderag', 'def', symbol]).definitions.map((d: { path: string; line: number; kind: string; qualifiedName: string; precision: string }) => `${d.path}:${d.line} ${d.kind} ${d.qualifiedName} ${d.precision}`)
      // Our syntactic table has no field for a parameter property.
      assert.deepEqual(defs('radius'), ['src/radius.ts:1 function radius syntactic'])
      vltJson(other.dir, ['coderag', 'scip', 'build'])
      assert.deepEqual(defs('radius'), ['src/radius.ts:1 function radius scip', 'src/disc.ts:2 field Disc.radius scip'])
      const typed = vltJson(other.dir, ['coderag', 'def', 'Disc.radius']).definitions
      assert.deepEqual(typed.map((d: { line: number; type?: string }) => [d.line, d.type]), [[2, '(property) radius: number']])
      // A plain parameter is no definition of the class.
      assert.equal(vltJson(other.dir, ['coderag', 'def', 'scale']).total, 0)
      // Once the file changes, SCIP no longer speaks for it.
      other.write({ 'src/disc.ts': 'export class Disc {\n  constructor(public radius: number, scale: number) {}\n}\n// edited\n' })
      assert.deepEqual(defs('radius'), ['src/radius.ts:1 function radius scip'])
    } finally {
      other.cleanup()
    }
  })

  it('imports an index.scip the repository commits on its own, for the commit that last changed it', () => {
    const other = createGitRepo({ files: FILES })
    try {
      other.commit('shapes')
      other.write({ 'index.scip': readFileSync(built) })
      const indexed = other.commit('index')
      other.write({ 'README.md': 'later\n' })
      other.commit('later')
      const def = vltJson(other.dir, ['coderag', 'def', 'Circle'])
      assert.equal(def.definitions[0].precision, 'scip')
      const refs = vltJson(other.dir, ['coderag', 'refs', 'Circle.area'])
      assert.deepEqual(where(refs.references), CIRCLE_AREA_USES)
      assert.ok(refs.references.every((r: Ref) => r.precision === 'scip'))
      assert.equal(vltJson(other.dir, ['coderag', 'scip', 'import', 'index.scip']).commit, other.git('rev-parse', 'HEAD'))
      assert.notEqual(indexed, other.git('rev-parse', 'HEAD'))
    } finally {
      other.cleanup()
    }
  })

  it('answers syntactically, with one warning and exit 0, from a corrupt or truncated index.scip', () => {
    for (const bytes of [Buffer.from('not a scip index\n'), readFileSync(built).subarray(0, 200)]) {
      const other = createGitRepo({ files: FILES })
      try {
        other.commit('shapes')
        other.write({ 'index.scip': bytes })
        const run = vlt(other.dir, ['coderag', 'refs', 'Circle.area'])
        assert.equal(run.status, 0, run.stderr)
        const warnings = run.stderr.split('\n').filter((line) => line.startsWith('warning:'))
        assert.equal(warnings.length, 1, run.stderr)
        assert.match(warnings[0]!, /index\.scip is not a readable SCIP index .*answering from the syntactic index/)
        assert.match(run.stdout, /src\/shapes\.ts:16:44/)
        assert.doesNotMatch(run.stdout, /\[scip\]/)
        const def = vltJson(other.dir, ['coderag', 'def', 'Circle'])
        assert.equal(def.definitions[0].precision, 'syntactic')
      } finally {
        other.cleanup()
      }
    }
  })

  it('answers syntactically, with one warning, when the imported record is damaged', () => {
    const record = join(repo.dir, '.vlt', 'scip', 'index.mpk')
    const bytes = readFileSync(record)
    bytes[bytes.length >> 1] ^= 0xff
    writeFileSync(record, bytes)
    const run = vlt(repo.dir, ['coderag', 'def', 'total'])
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stderr.split('\n').filter((line) => line.startsWith('warning:')).length, 1, run.stderr)
    assert.match(run.stderr, /SCIP index .* was damaged/)
    assert.doesNotMatch(run.stdout, /\[scip\]/)
    vltJson(repo.dir, ['coderag', 'scip', 'import', built])
    assert.equal(vltJson(repo.dir, ['coderag', 'def', 'total']).definitions[0].precision, 'scip')
  })

  it('status says a damaged imported record is damaged; verify removes it in one line, as a query would', () => {
    const record = join(repo.dir, '.vlt', 'scip', 'index.mpk')
    const bytes = readFileSync(record)
    bytes[bytes.length >> 1] ^= 0xff
    writeFileSync(record, bytes)
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).scip, null)
    const status = vlt(repo.dir, ['coderag', 'status'])
    assert.equal(status.status, 0, status.stderr)
    assert.match(status.stdout, /^scip {8}none imported$/m)
    assert.deepEqual(status.stderr.split('\n').filter(Boolean), ['warning: the imported SCIP index (.vlt/scip/index.mpk) is damaged; the next query or `git vlt coderag verify` removes it'])
    assert.ok(existsSync(record), 'status repaired something')
    const verify = vlt(repo.dir, ['coderag', 'verify'])
    assert.equal(verify.status, 0, verify.stderr)
    assert.deepEqual(verify.stdout.split('\n').filter((line) => line.includes('scip')), [
      '  repaired  .vlt/scip/index.mpk: damaged, removed: answers are syntactic until a SCIP index is imported again (an offered index.scip is imported again by the next query; else run `git vlt coderag scip import FILE`)',
    ])
    assert.equal(existsSync(record), false)
    assert.equal(vltJson(repo.dir, ['coderag', 'verify']).problems.length, 0)
    vltJson(repo.dir, ['coderag', 'scip', 'import', built])
    assert.equal(vltJson(repo.dir, ['coderag', 'status']).scip.fresh, 2)
  })

  it('leaves out documents whose paths lead outside the repository', () => {
    const hostile = join(repo.dir, '..', `${repo.dir.split('/').pop()}-hostile.scip`)
    const symbol = 'scip-typescript npm . . src/`shapes.ts`/total().'
    writeFileSync(
      hostile,
      scipIndex('hostile', [
        scipDocument('../outside.ts', [{ range: [0, 0, 1], symbol, definition: true }]),
        scipDocument('/etc/passwd', [{ range: [0, 0, 1], symbol }]),
        scipDocument('src/missing.ts', [{ range: [0, 0, 1], symbol }]),
        scipDocument('src/shapes.ts', [{ range: [14, 16, 21], symbol, definition: true }]),
      ]),
    )
    const result = vltJson(repo.dir, ['coderag', 'scip', 'import', hostile])
    assert.deepEqual([result.documents, result.skippedDocuments], [1, 3])
    const refs = vltJson(repo.dir, ['coderag', 'refs', 'total'])
    assert.deepEqual(refs.references.map((r: Ref) => `${r.path}:${r.precision}`).sort(), ['src/main.ts:syntactic', 'src/main.ts:syntactic'])
    assert.equal(refs.definitions[0].precision, 'scip')
  })

  it('does not follow an index.scip link out of the repository, nor a committed scip.path outside it', () => {
    const other = createGitRepo({ files: FILES })
    try {
      other.commit('shapes')
      symlinkSync(built, join(other.dir, 'index.scip'))
      assert.equal(vltJson(other.dir, ['coderag', 'def', 'Circle']).definitions[0].precision, 'syntactic')
      other.write({ 'vlt.toml': `[scip]\npath = "../${built.split('/').pop()}"\n` })
      const run = vlt(other.dir, ['coderag', 'def', 'Circle'])
      assert.equal(run.status, 0, run.stderr)
      assert.match(run.stderr, /scip\.path .* ignored: a repository's file cannot name a SCIP index outside the repository/)
      assert.doesNotMatch(run.stdout, /\[scip\]/)
    } finally {
      other.cleanup()
    }
  })

  it('refuses what is not a SCIP file to import, in one line, exit 1 (2 for a usage mistake)', () => {
    const garbage = join(repo.dir, '..', `${repo.dir.split('/').pop()}-garbage.scip`)
    writeFileSync(garbage, 'garbage')
    const bad = vlt(repo.dir, ['coderag', 'scip', 'import', garbage])
    assert.equal(bad.status, 1)
    assert.match(bad.stderr, /is not a readable SCIP index/)
    assert.doesNotMatch(bad.stderr, /\n\s+at /)
    const missing = vlt(repo.dir, ['coderag', 'scip', 'import', 'nope.scip'])
    assert.equal(missing.status, 2)
    assert.match(missing.stderr, /cannot read .*nope\.scip: ENOENT/)
    assert.equal(vlt(repo.dir, ['coderag', 'scip', 'import', built, '--commit', 'no-such-rev']).status, 2)
  })

  it("says why an indexer failed in one line: its last line of output that is not a stack frame", () => {
    const indexer = join(repo.dir, '..', `${repo.dir.split('/').pop()}-failing`, 'scip-typescript')
    mkdirSync(dirname(indexer))
    writeFileSync(indexer, '#!/bin/sh\necho "Error: no tsconfig.json could be loaded" >&2\necho "    at load (/x/index.js:1:1)" >&2\necho "    at main (/x/index.js:2:2)" >&2\nexit 1\n')
    chmodSync(indexer, 0o755)
    const failed = vlt(repo.dir, ['coderag', 'scip', 'build', '--indexer', indexer])
    assert.deepEqual([failed.status, failed.stderr], [1, 'git vlt: scip-typescript failed (exit 1): Error: no tsconfig.json could be loaded\n'])
  })
})
