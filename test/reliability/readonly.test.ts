/**
 * `.vlt/` where it cannot be written, on a real repository with the built CLI and a real filesystem
 * fault (test/helpers/mounts.ts: a private mount namespace, so no root is needed):
 *
 * - read-only (a CI cache restored onto a read-only mount): status and every query answer from what
 *   is indexed — the last complete index, with the answers it gives — marked stale in one line and
 *   in `--json`; writers fail in one line; nothing is a stack trace;
 * - full (ENOSPC) at whatever moment a build meets it: one line naming the file, no stack trace, no
 *   temp file left, nothing half-written taken for a record; a query meanwhile answers from the last
 *   complete index; the next run with space completes and `verify` finds the index whole.
 */
import { strict as assert } from 'node:assert'
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI, cliEnv, vlt, vltJson } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'
import { canMount, inMountNamespace, MOUNT_UNAVAILABLE, readOnlyCommand, vltReadOnly } from '../helpers/mounts.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

/** Enough files for a build to pack its records (PACK_MIN_RECORDS). */
const MODULES = 300

function repoFiles(version: number): Record<string, string> {
  const files: Record<string, string> = { 'README.md': `# Meters\n\nVersion ${version}: each meter reads its gauge.\n` }
  for (let i = 0; i < MODULES; i++) {
    files[`meters/m${i % 10}/meter${i}.py`] = [
      `"""Meter ${i}, version ${version}."""`,
      `from meters.m${(i + 1) % 10} import meter${(i + 1) % MODULES}`,
      '',
      `def gauge_${i}(reading):`,
      `    return reading * ${i + 1} + ${version}`,
      '',
      `class Meter${i}:`,
      `    def read(self, reading):`,
      `        return gauge_${i}(reading) + meter${(i + 1) % MODULES}.gauge_${(i + 1) % MODULES}(reading)`,
      '',
    ].join('\n')
  }
  return files
}

/** The queries compared, each with --json. */
const QUERIES: Record<string, string[]> = {
  search: ['coderag', 'search', 'meter gauge reading', '--limit', '5'],
  def: ['coderag', 'def', 'Meter7'],
  refs: ['coderag', 'refs', 'gauge_8'],
  map: ['coderag', 'map', '--tokens', '300'],
}

function answer(result: { freshness?: unknown; warnings?: unknown }): unknown {
  const { freshness: _freshness, warnings: _warnings, ...rest } = result
  return rest
}

const nonEmpty = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '')

describe('a .vlt that cannot be written (built CLI, real filesystem faults)', function () {
  this.timeout(600_000)
  before(function () {
    if (canMount()) return
    console.log(`      skipped: ${MOUNT_UNAVAILABLE}`)
    this.skip()
  })

  describe('read-only', () => {
    let repo: GitFixture
    let vltDir: string
    let lastTree: string
    const complete: Record<string, any> = {}

    before(function () {
      if (!canMount()) return this.skip()
      repo = createGitRepo({ files: repoFiles(0) })
      vltDir = join(repo.dir, '.vlt')
      vltJson(repo.dir, ['coderag', 'init'])
      lastTree = repo.git('rev-parse', 'HEAD^{tree}')
      for (const [name, args] of Object.entries(QUERIES)) complete[name] = vltJson(repo.dir, args)
      // A commit and an edit the read-only index knows nothing about: the just-in-time sync would write.
      repo.write({ 'meters/m0/meter0.py': 'def gauge_0(reading):\n    return 0\n' })
      repo.commit('simplify meter 0')
      repo.write({ 'meters/m1/meter1.py': 'def gauge_1(reading):\n    return 1\n' })
    })
    after(() => repo?.cleanup())

    it('every query answers from the last complete index, marked stale in one line and in --json', async () => {
      for (const [name, args] of Object.entries(QUERIES)) {
        const text = await vltReadOnly(repo.dir, vltDir, args.filter((arg) => arg !== '--json'))
        assert.equal(text.status, 0, `${name}: ${text.stderr}`)
        assert.notEqual(text.stdout.trim(), '', name)
        // map's own line (its token count) aside, stderr holds that one line.
        assert.deepEqual(nonEmpty(text.stderr).filter((line) => !line.startsWith('(')), [
          `warning: cannot write ${vltDir}/locks/index.lock: read-only file system (EROFS); answering from the last complete index (tree ${lastTree.slice(0, 12)}), which may be stale`,
        ], name)
        const json = await vltReadOnly(repo.dir, vltDir, [...args, '--json'])
        assert.equal(json.status, 0, `${name}: ${json.stderr}`)
        const result = JSON.parse(json.stdout)
        assert.equal(result.freshness.treeHash, lastTree, name)
        assert.equal(result.freshness.stale, true, name)
        assert.equal(result.freshness.staleReason, 'read-only', name)
        assert.deepEqual(answer(result), answer(complete[name]), name)
      }
    })

    it('status and the oracle work from what is there; writers fail in one line, never a stack trace', async () => {
      const status = await vltReadOnly(repo.dir, vltDir, ['coderag', 'status', '--json'])
      assert.equal(status.status, 0, status.stderr)
      assert.equal(JSON.parse(status.stdout).treeHash, lastTree)
      assert.equal(JSON.parse(status.stdout).integrity.complete, true)

      const oracle = await vltReadOnly(repo.dir, vltDir, ['oracle', 'where is Meter7 defined'])
      assert.equal(oracle.status, 0, oracle.stderr)
      assert.match(oracle.stdout, /meters\/m7\/meter7\.py/)
      // The session log is not written either: the same one line covers it.
      assert.equal(nonEmpty(oracle.stderr).filter((line) => /EROFS|read-only/.test(line)).length, 1, oracle.stderr)

      for (const args of [['coderag', 'sync'], ['coderag', 'init'], ['thread', 'push', 'decisions', 'use meters']]) {
        const run = await vltReadOnly(repo.dir, vltDir, args)
        assert.equal(run.status, 1, `${args.join(' ')}: ${run.stderr}`)
        assert.equal(nonEmpty(run.stderr).length, 1, run.stderr)
        assert.match(run.stderr, new RegExp(`^git vlt: cannot write ${vltDir}/\\S+: read-only file system \\(EROFS\\)\\n$`))
      }
    })

    it('the MCP server answers stale too', async () => {
      const [command, ...args] = readOnlyCommand(vltDir, [process.execPath, CLI, 'mcp'])
      const transport = new StdioClientTransport({ command: command!, args, cwd: repo.dir, env: cliEnv({ VLT_MCP_CHECK_MS: '0' }) as Record<string, string>, stderr: 'pipe' })
      const client = new Client({ name: 'readonly-test', version: '1.0.0' })
      await client.connect(transport)
      try {
        const result = (await client.callTool({ name: 'find_definition', arguments: { symbol: 'Meter7' } })) as { isError?: boolean; structuredContent?: any }
        assert.equal(result.isError, undefined)
        assert.deepEqual(result.structuredContent.freshness, { treeHash: lastTree, stale: true, staleReason: 'read-only' })
        assert.deepEqual(result.structuredContent.definitions, complete.def.definitions)
      } finally {
        await client.close()
      }
    })

    it('a folder the user may not write (EACCES) reads the same', async function () {
      // Root writes through permissions: only a user can see this fault.
      if (process.getuid?.() === 0) return this.skip()
      const folders = [vltDir, ...readdirSync(vltDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => join(entry.parentPath, entry.name))]
      for (const folder of folders) chmodSync(folder, 0o555)
      try {
        const run = vlt(repo.dir, [...QUERIES.def!, '--json'])
        assert.equal(run.status, 0, run.stderr)
        assert.equal(JSON.parse(run.stdout).freshness.staleReason, 'read-only')
        assert.deepEqual(answer(JSON.parse(run.stdout)), answer(complete.def))
      } finally {
        for (const folder of folders) chmodSync(folder, 0o755)
      }
    })
  })

  describe('full (ENOSPC)', () => {
    let repo: GitFixture
    let out: string
    /** Commits by name, and each one's answers on a whole index. */
    const commits: Record<string, string> = {}
    const expected: Record<string, any> = {}
    /** Free bytes left on the tmpfs before a sync of many changed files: each fails at another write, or not at all. */
    const LEVELS = [4 << 10, 40 << 10, 160 << 10, 400 << 10, 700 << 10]

    before(function () {
      if (!canMount()) return this.skip()
      repo = createGitRepo({ files: repoFiles(0) })
      commits.base = repo.git('rev-parse', 'HEAD')
      LEVELS.forEach((_, i) => {
        repo.git('checkout', '-q', commits.base!)
        repo.write(repoFiles(i + 1))
        commits[`v${i + 1}`] = repo.commit(`version ${i + 1}`)
      })
      // Answers of each commit on an index on disk, for comparison; then `.vlt` goes.
      for (const name of Object.keys(commits)) {
        repo.git('checkout', '-q', commits[name]!)
        expected[name] = vltJson(repo.dir, QUERIES.def!)
      }
      rmSync(join(repo.dir, '.vlt'), { recursive: true, force: true })
      out = mkdtempSync(join(tmpdir(), 'vlt-enospc-'))
    })
    after(() => {
      repo?.cleanup()
      if (out) rmSync(out, { recursive: true, force: true })
    })

    /** The script's helpers: `step NAME command…` records its output; `temps NAME` lists leftover temp files. */
    const prelude = `
      step() { local name=$1; shift; set +e; "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"; echo $? >"$OUT/$name.rc"; set -e; }
      vlt() { "$VLT_NODE" "$VLT_CLI_JS" "$@"; }
      temps() { find .vlt \\( -name '*.vlt-tmp' -o -name '*.breaking' \\) -print >"$OUT/$1.temps"; }
      fill() { local avail; avail=$(df -B1 --output=avail .vlt | tail -1); rm -f .vlt/filler; avail=$(df -B1 --output=avail .vlt | tail -1); if [ "$avail" -gt "$1" ]; then fallocate -l $((avail - $1)) .vlt/filler; fi; }
      mkdir -p .vlt
    `
    const read = (name: string) => ({
      status: Number(readFileSync(join(out, `${name}.rc`), 'utf8')),
      stdout: readFileSync(join(out, `${name}.out`), 'utf8'),
      stderr: readFileSync(join(out, `${name}.err`), 'utf8'),
    })
    const temps = (name: string): string[] => nonEmpty(readFileSync(join(out, `${name}.temps`), 'utf8'))
    const env = () => ({ OUT: out, VLT_NODE: process.execPath, VLT_CLI_JS: CLI })

    /** A failure is one line naming the file under .vlt/ and the fault; never a stack trace. */
    function assertOneLineFault(run: { status: number; stderr: string }, what: string): void {
      assert.equal(run.status, 1, `${what}: ${run.stderr}`)
      assert.deepEqual(nonEmpty(run.stderr).length, 1, `${what}: ${run.stderr}`)
      assert.match(run.stderr, new RegExp(`^git vlt: cannot write ${repo.dir}/\\.vlt/\\S+: no space left on device \\(ENOSPC\\)\\n$`), what)
    }

    it('init on a disk too small, whichever write meets it: one line, nothing left behind; with room, the next init completes whole', async () => {
      repo.git('checkout', '-q', commits.base!)
      // The index takes about 350 KB: these fail writing the pack, its index, the symbols, the graph, BM25, the manifest.
      const sizes = ['64k', '224k', '256k', '260k', '288k', '304k']
      const rounds = sizes.map((size, i) => `
        mount -t tmpfs -o size=${size} tmpfs .vlt
        step init${i} vlt coderag init
        temps init${i}
        mount -o remount,size=64m .vlt
        step reinit${i} vlt coderag init --json
        temps reinit${i}
        step verify${i} vlt coderag verify --json
        step def${i} vlt ${QUERIES.def!.join(' ')} --json
        umount .vlt
      `)
      const ran = await inMountNamespace(repo.dir, `${prelude}\n${rounds.join('\n')}`, env())
      assert.equal(ran.status, 0, ran.stderr)
      let failed = 0
      sizes.forEach((size, i) => {
        const init = read(`init${i}`)
        if (init.status !== 0) {
          failed++
          assertOneLineFault(init, `init on ${size}`)
        }
        assert.deepEqual(temps(`init${i}`), [], size)
        assert.equal(read(`reinit${i}`).status, 0, `${size}: ${read(`reinit${i}`).stderr}`)
        assert.equal(JSON.parse(read(`reinit${i}`).stdout).files, MODULES + 1, size)
        assert.deepEqual(temps(`reinit${i}`), [], size)
        const verify = JSON.parse(read(`verify${i}`).stdout)
        assert.deepEqual([verify.whole, verify.problems], [true, []], `${size}: ${read(`verify${i}`).stdout}`)
        assert.deepEqual(answer(JSON.parse(read(`def${i}`).stdout)), answer(expected.base), size)
      })
      assert.ok(failed >= 5, `${failed} of ${sizes.length} inits met a full disk`)
    })

    it('a sync that runs out of space at any moment: one line, no temp file, queries answer meanwhile, the next sync with room completes whole', async () => {
      repo.git('checkout', '-q', commits.base!)
      const levels = LEVELS.map((free, i) => `
        git checkout -q ${commits[`v${i + 1}`]}
        fill ${free}
        step sync${i} vlt coderag sync
        temps sync${i}
        step def${i} vlt ${QUERIES.def!.join(' ')} --json
        rm -f .vlt/filler
        step resync${i} vlt coderag sync
        temps resync${i}
        step verify${i} vlt coderag verify --json
        step fresh${i} vlt ${QUERIES.def!.join(' ')} --json
      `)
      const script = `${prelude}
        mount -t tmpfs -o size=64m tmpfs .vlt
        step init vlt coderag init
        ${levels.join('\n')}
      `
      const ran = await inMountNamespace(repo.dir, script, env())
      assert.equal(ran.status, 0, ran.stderr)
      assert.equal(read('init').status, 0, read('init').stderr)
      let failed = 0
      LEVELS.forEach((free, i) => {
        const at = `${free >> 10} KB free`
        const sync = read(`sync${i}`)
        if (sync.status !== 0) {
          failed++
          assertOneLineFault(sync, `sync with ${at}`)
        }
        assert.deepEqual(temps(`sync${i}`), [], at)
        // Meanwhile a query answers: from the new tree if it got that far, else from the last complete one.
        const def = read(`def${i}`)
        assert.equal(def.status, 0, `${at}: ${def.stderr}`)
        const answered = JSON.parse(def.stdout)
        const version = answered.freshness.treeHash === repo.git('rev-parse', `${commits[`v${i + 1}`]}^{tree}`) ? `v${i + 1}` : i === 0 ? 'base' : `v${i}`
        assert.deepEqual(answer(answered), answer(expected[version]), `${at}: answered from ${version}`)
        if (answered.freshness.stale) assert.equal(answered.freshness.staleReason, 'disk-full', at)
        assert.equal(read(`resync${i}`).status, 0, `${at}: ${read(`resync${i}`).stderr}`)
        assert.deepEqual(temps(`resync${i}`), [], at)
        const verify = JSON.parse(read(`verify${i}`).stdout)
        assert.deepEqual([verify.whole, verify.problems], [true, []], `${at}: ${read(`verify${i}`).stdout}`)
        const fresh = JSON.parse(read(`fresh${i}`).stdout)
        assert.equal(fresh.freshness.stale, false, at)
        assert.deepEqual(answer(fresh), answer(expected[`v${i + 1}`]), at)
      })
      assert.ok(failed >= 3, `${failed} of ${LEVELS.length} syncs met a full disk`)
    })
  })
})
