/**
 * kill -9 at any moment of `coderag init`, `coderag sync` (after commits that change most files) and
 * `gc`, on a real repository with the built CLI, 22 kill points each: half at moments seen from
 * outside (the lock taken, a pack being written, a pack or its index renamed into place, each
 * aggregate and the manifest written, the state replaced, a tree or pack removed), half after
 * delays spread over the command's run (one the run outlived is tried again, earlier: at least
 * 20 kills each). After every kill:
 *
 * - nothing half-written looks finished: every record under `.vlt/` that is not a temp file passes
 *   its checksum, every finished tree (one with a manifest) has its aggregates, every indexed pack
 *   holds what its index lists;
 * - the same command, run again, succeeds without meeting any damage (no warning), leaves no temp
 *   file and no lock;
 * - `coderag verify --json` finds HEAD's index whole, with nothing to repair;
 * - a search answers exactly as on an index built without a kill.
 *
 * Two lanes (clones of the repository) run side by side. The existing single kill of a large init
 * (test/index/robustness.test.ts) checks that finished packs are reused; this suite checks that no
 * kill moment corrupts anything.
 */
import { strict as assert } from 'node:assert'
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { EXTRACTOR_VERSION } from '../../src/core/parse/version.js'
import { checkFraming, decodeRecord } from '../../src/core/store/record.js'
import { MANIFEST_KIND, MANIFEST_VERSION, type TreeManifest } from '../../src/core/index/manifest.js'
import { PACK_INDEX_KIND, PACK_INDEX_VERSION, type PackIndex } from '../../src/core/index/blob-store.js'
import { vltAsync, vltJsonAsync, vltSpawn, type CliRun } from '../helpers/cli.js'
import { createGitRepo, FIXTURE_GIT_ENV, type GitFixture } from '../helpers/git-fixture.js'

/** Files of the repository: enough for a build to pack its records (PACK_MIN_RECORDS = 256). */
const FILES = 260
const LANES = 2
const KILL_POINTS = 22
const MIN_KILLS = 20
/** How often a delay the run outlived is tried again, each time earlier. */
const MAX_RETRIES = 3

function moduleText(i: number, version: number): string {
  return [
    `"""Pump ${i}, revision ${version}."""`,
    `from pumps.p${(i + 1) % 10} import pump${(i + 1) % FILES}`,
    '',
    `def pressure_${i}(flow):`,
    `    return flow * ${i + 1} - ${version}`,
    '',
    `class Pump${i}:`,
    `    def run(self, flow):`,
    `        return pressure_${i}(flow) + pump${(i + 1) % FILES}.pressure_${(i + 1) % FILES}(flow)`,
    '',
  ].join('\n')
}

/** Every file at `version`, except those `keep` says stay at their previous content (`previous`). */
function revision(version: number, changed: (i: number) => boolean, previous: Record<string, string>): Record<string, string> {
  const files: Record<string, string> = {}
  for (let i = 0; i < FILES; i++) {
    const path = `pumps/p${i % 10}/pump${i}.py`
    files[path] = changed(i) ? moduleText(i, version) : previous[path]!
  }
  return files
}

const SEARCH = ['coderag', 'search', 'pump pressure flow', '--limit', '8', '--json']

type Probe = (vlt: string) => boolean

interface Scenario {
  name: string
  /** The killed command, also the one run next. */
  command: string[]
  /** The commit checked out. */
  commit: string
  /** The `.vlt/` the command starts from (none for a cold init). */
  baseline: string | undefined
  /** Moments seen from outside, by name. */
  events: Record<string, Probe>
}

/** Temp files anywhere under `.vlt/`: a writer's (atomic-file.ts) and a lock breaker's claim. */
function tempFiles(vlt: string): string[] {
  if (!existsSync(vlt)) return []
  return readdirSync(vlt, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.vlt-tmp') || name.endsWith('.breaking'))
}

function filesIn(dir: string, suffix: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(suffix)) : []
}

/**
 * What must hold at every instant, killed or not: whatever looks finished is whole. Records (any
 * `.mpk`, `.idx`) pass their framing and checksum; a tree with a manifest has its aggregates (or
 * its anchor's manifest); a pack with an index holds every record the index lists, each sound.
 */
function assertNothingHalfWritten(vlt: string, when: string): void {
  if (!existsSync(vlt)) return
  for (const name of readdirSync(vlt, { recursive: true, encoding: 'utf8' })) {
    const path = join(vlt, name)
    if ((name.endsWith('.mpk') || name.endsWith('.idx')) && lstatSync(path).isFile()) checkFraming(readFileSync(path), path)
  }
  const trees = join(vlt, 'trees')
  for (const tree of existsSync(trees) ? readdirSync(trees) : []) {
    const manifestPath = join(trees, tree, 'manifest.mpk')
    if (!existsSync(manifestPath)) continue
    const manifest = decodeRecord<TreeManifest>(readFileSync(manifestPath), MANIFEST_KIND, MANIFEST_VERSION, manifestPath)
    const needed = manifest.aggregatesTree === tree ? ['bm25', 'symbols', 'graph'].map((part) => join(trees, tree, `${part}.mpk`)) : [join(trees, manifest.aggregatesTree, 'manifest.mpk')]
    for (const path of needed) assert.ok(existsSync(path), `${when}: tree ${tree.slice(0, 12)} looks finished but ${path} is missing`)
  }
  const packs = join(vlt, 'objects', String(EXTRACTOR_VERSION), 'packs')
  for (const idx of filesIn(packs, '.idx')) {
    const index = decodeRecord<PackIndex>(readFileSync(join(packs, idx)), PACK_INDEX_KIND, PACK_INDEX_VERSION, idx)
    const pack = readFileSync(join(packs, index.pack))
    index.keys.forEach((_, i) => checkFraming(pack.subarray(index.offsets[i]!, index.offsets[i]! + index.lengths[i]!), `${index.pack}@${index.offsets[i]}`))
  }
}

interface Outcome {
  point: string
  killed: boolean
}

describe('kill -9 during init, sync and gc (built CLI, real repository)', function () {
  this.timeout(900_000)
  let origin: GitFixture
  let work: string
  const commits: Record<string, string> = {}
  const trees: Record<string, string> = {}
  /** Search answers on indexes no kill touched, by commit name. */
  const reference: Record<string, unknown> = {}
  const baselines: Record<string, string> = {}
  const started = Date.now()

  const answer = (result: { freshness?: unknown; warnings?: unknown }): unknown => {
    const { freshness: _freshness, warnings: _warnings, ...rest } = result
    return rest
  }

  function clone(name: string, commit: string): string {
    const dir = join(work, name)
    execFileSync('git', ['clone', '-q', origin.dir, dir], { env: { ...process.env, ...FIXTURE_GIT_ENV } })
    execFileSync('git', ['checkout', '-q', commit], { cwd: dir, env: { ...process.env, ...FIXTURE_GIT_ENV } })
    return dir
  }

  async function expectOk(dir: string, args: string[]): Promise<CliRun> {
    const run = await vltAsync(dir, args)
    assert.equal(run.status, 0, `git vlt ${args.join(' ')}: ${run.stderr}`)
    return run
  }

  before(async () => {
    // A: every file; B: all but a few changed (a sync that packs); C: 200 of those changed again (loose records).
    let files = revision(0, () => true, {})
    origin = createGitRepo({ files })
    commits.A = origin.git('rev-parse', 'HEAD')
    files = revision(1, (i) => i < 257, files)
    origin.write(files)
    commits.B = origin.commit('revision 1')
    files = revision(2, (i) => i < 200, files)
    origin.write(files)
    commits.C = origin.commit('revision 2')
    for (const name of ['A', 'B', 'C']) trees[name] = origin.git('rev-parse', `${commits[name]}^{tree}`)
    work = realpathSync(mkdtempSync(join(tmpdir(), 'vlt-kill-')))

    // Baselines: the index at A (for the sync to B), and at A, B and C (for gc at C).
    const base = clone('baseline', commits.A!)
    await expectOk(base, ['coderag', 'init'])
    reference.A = answer(await vltJsonAsync(base, SEARCH.slice(0, -1)))
    baselines.sync = join(work, 'vlt-at-A')
    cpSync(join(base, '.vlt'), baselines.sync, { recursive: true })
    for (const name of ['B', 'C']) {
      execFileSync('git', ['checkout', '-q', commits[name]!], { cwd: base })
      await expectOk(base, ['coderag', 'sync'])
      reference[name] = answer(await vltJsonAsync(base, SEARCH.slice(0, -1)))
    }
    baselines.gc = join(work, 'vlt-at-ABC')
    cpSync(join(base, '.vlt'), baselines.gc, { recursive: true })
  })
  after(() => {
    origin?.cleanup()
    if (work) rmSync(work, { recursive: true, force: true })
    // The suite's cost, for CI's budget.
    console.log(`      kill suite: ${((Date.now() - started) / 1000).toFixed(1)} s`)
  })

  const packsOf = (vlt: string): string => join(vlt, 'objects', String(EXTRACTOR_VERSION), 'packs')
  const treeFile = (vlt: string, name: string, file: string): string => join(vlt, 'trees', trees[name]!, file)

  /** Kills the command at each point in turn (in LANES clones side by side) and checks what it left. */
  async function killRepeatedly(scenario: Scenario): Promise<Outcome[]> {
    const lanes = Array.from({ length: LANES }, (_, i) => clone(`${scenario.name}-${i}`, scenario.commit))
    // One undisturbed run measures how long the command takes, for the delays.
    const measured = Date.now()
    restore(lanes[0]!, scenario)
    await expectOk(lanes[0]!, scenario.command)
    const duration = Date.now() - measured
    const events = Object.entries(scenario.events)
    const delays = KILL_POINTS - events.length
    const points: Array<{ name: string; probe: Probe | number; retries?: number }> = [
      ...events.map(([name, probe]) => ({ name, probe })),
      ...Array.from({ length: delays }, (_, i) => {
        const ms = Math.round(duration * (0.1 + (0.85 * (i + Math.random())) / delays))
        return { name: `after ${ms} ms`, probe: ms }
      }),
    ]
    const outcomes: Outcome[] = []
    let next = 0
    let failed = false
    // The first failure stops both lanes, and the test waits for the other to stop: no run outlives it.
    const settled = await Promise.allSettled(
      lanes.map(async (dir) => {
        while (next < points.length && !failed) {
          const point = points[next++]!
          try {
            const outcome = await killOnce(dir, scenario, point.name, point.probe)
            outcomes.push(outcome)
            // A run faster than the measured one (the machine's load varies) finished first: again, earlier (up to MAX_RETRIES times).
            const retries = point.retries ?? 0
            if (!outcome.killed && typeof point.probe === 'number' && retries < MAX_RETRIES) {
              const ms = Math.round(point.probe * 0.6)
              points.push({ name: `after ${ms} ms (retried: it had finished before ${point.probe} ms)`, probe: ms, retries: retries + 1 })
            }
          } catch (error) {
            failed = true
            throw error
          }
        }
      }),
    )
    const failure = settled.find((lane) => lane.status === 'rejected')
    if (failure) throw failure.reason
    return outcomes
  }

  function restore(dir: string, scenario: Scenario): void {
    rmSync(join(dir, '.vlt'), { recursive: true, force: true })
    if (scenario.baseline) cpSync(scenario.baseline, join(dir, '.vlt'), { recursive: true })
  }

  async function killOnce(dir: string, scenario: Scenario, point: string, probe: Probe | number): Promise<Outcome> {
    const vlt = join(dir, '.vlt')
    const at = `${scenario.name}, kill ${point}`
    restore(dir, scenario)
    const child = vltSpawn(dir, scenario.command)
    const exited = once(child, 'exit')
    const start = Date.now()
    let killed = false
    while (child.exitCode === null && child.signalCode === null) {
      const due = typeof probe === 'number' ? Date.now() - start >= probe : probe(vlt)
      if (due) {
        killed = child.kill('SIGKILL')
        break
      }
      assert.ok(Date.now() - start < 120_000, `${at}: the moment never came`)
      await sleep(1)
    }
    await exited
    killed &&= child.signalCode === 'SIGKILL'
    assertNothingHalfWritten(vlt, `${at}, right after`)

    const rerun = await vltAsync(dir, [...scenario.command, '--json'])
    assert.equal(rerun.status, 0, `${at}: the next ${scenario.command.join(' ')} failed: ${rerun.stderr}`)
    assert.doesNotMatch(rerun.stderr, /warning/i, `${at}: the next run met damage`)
    assert.deepEqual(tempFiles(vlt), [], `${at}: temp files after the next run`)
    assert.equal(existsSync(join(vlt, 'locks', 'index.lock')), false, `${at}: a lock left behind`)

    const verify = await vltAsync(dir, ['coderag', 'verify', '--json'])
    assert.equal(verify.status, 0, `${at}: verify: ${verify.stderr}${verify.stdout}`)
    const verdict = JSON.parse(verify.stdout)
    assert.deepEqual([verdict.whole, verdict.problems], [true, []], `${at}: verify: ${verify.stdout}`)

    const search = await vltAsync(dir, SEARCH)
    assert.equal(search.status, 0, `${at}: search: ${search.stderr}`)
    const found = JSON.parse(search.stdout)
    assert.equal(found.freshness.stale, false, at)
    const name = Object.keys(commits).find((key) => commits[key] === scenario.commit)!
    assert.deepEqual(answer(found), reference[name], `${at}: the answer differs from an index built without a kill`)
    assertNothingHalfWritten(vlt, `${at}, after the next run`)
    return { point, killed }
  }

  function assertKilledEnough(outcomes: Outcome[], name: string): void {
    const killed = outcomes.filter((outcome) => outcome.killed).length
    console.log(`      ${name}: ${killed} of ${outcomes.length} runs killed, none left anything corrupt`)
    assert.ok(killed >= MIN_KILLS, `${name}: only ${killed} of ${outcomes.length} runs were killed before they finished (${outcomes.filter((o) => !o.killed).map((o) => o.point).join(', ')})`)
  }

  it('init: killed at 22 moments, the next init completes whole and answers as an undisturbed one', async () => {
    const outcomes = await killRepeatedly({
      name: 'init',
      command: ['coderag', 'init'],
      commit: commits.A!,
      baseline: undefined,
      events: {
        'once the lock is taken': (vlt) => existsSync(join(vlt, 'locks', 'index.lock')),
        'while a pack is written': (vlt) => filesIn(packsOf(vlt), '.vlt-tmp').length > 0,
        'once a pack is in place': (vlt) => filesIn(packsOf(vlt), '.pack').length > 0,
        'once a pack index is in place': (vlt) => filesIn(packsOf(vlt), '.idx').length > 0,
        'once the tree folder exists': (vlt) => existsSync(join(vlt, 'trees', trees.A!)),
        'once the symbols are written': (vlt) => existsSync(treeFile(vlt, 'A', 'symbols.mpk')),
        'once the graph is written': (vlt) => existsSync(treeFile(vlt, 'A', 'graph.mpk')),
        'once BM25 is written': (vlt) => existsSync(treeFile(vlt, 'A', 'bm25.mpk')),
        'once the manifest is written': (vlt) => existsSync(treeFile(vlt, 'A', 'manifest.mpk')),
        'once the overlay is written': (vlt) => existsSync(join(vlt, 'overlay', 'overlay.mpk')),
        'once the state is written': (vlt) => existsSync(join(vlt, 'state.mpk')),
        'while the lock is released': (vlt) => existsSync(join(vlt, 'state.mpk')) && !existsSync(join(vlt, 'locks', 'index.lock')),
      },
    })
    assertKilledEnough(outcomes, 'init')
  })

  it('sync after a commit changing most files: killed at 22 moments, the next sync completes whole', async () => {
    const packsBefore = filesIn(packsOf(baselines.sync!), '.pack').length
    const stateBefore = readFileSync(join(baselines.sync!, 'state.mpk'))
    const outcomes = await killRepeatedly({
      name: 'sync',
      command: ['coderag', 'sync'],
      commit: commits.B!,
      baseline: baselines.sync,
      events: {
        'once the lock is taken': (vlt) => existsSync(join(vlt, 'locks', 'index.lock')),
        'while a pack is written': (vlt) => filesIn(packsOf(vlt), '.vlt-tmp').length > 0,
        'once the new pack is in place': (vlt) => filesIn(packsOf(vlt), '.pack').length > packsBefore,
        'once its index is in place': (vlt) => filesIn(packsOf(vlt), '.idx').length > packsBefore,
        'once the tree folder exists': (vlt) => existsSync(join(vlt, 'trees', trees.B!)),
        'once the symbols are written': (vlt) => existsSync(treeFile(vlt, 'B', 'symbols.mpk')),
        'once the graph is written': (vlt) => existsSync(treeFile(vlt, 'B', 'graph.mpk')),
        'once BM25 is written': (vlt) => existsSync(treeFile(vlt, 'B', 'bm25.mpk')),
        'once the manifest is written': (vlt) => existsSync(treeFile(vlt, 'B', 'manifest.mpk')),
        'once the state is replaced': (vlt) => !readFileSync(join(vlt, 'state.mpk')).equals(stateBefore),
      },
    })
    assertKilledEnough(outcomes, 'sync')
  })

  it('gc of two old trees and their packs: killed at 22 moments, the next gc completes and the index is whole', async () => {
    const packsBefore = filesIn(packsOf(baselines.gc!), '.pack')
    const stateBefore = readFileSync(join(baselines.gc!, 'state.mpk'))
    const outcomes = await killRepeatedly({
      name: 'gc',
      command: ['gc', '--keep', '1'],
      commit: commits.C!,
      baseline: baselines.gc,
      events: {
        'once the lock is taken': (vlt) => existsSync(join(vlt, 'locks', 'index.lock')),
        'once the oldest manifest is removed': (vlt) => !existsSync(treeFile(vlt, 'A', 'manifest.mpk')),
        'once the oldest tree is removed': (vlt) => !existsSync(join(vlt, 'trees', trees.A!)),
        'once the second tree is removed': (vlt) => !existsSync(join(vlt, 'trees', trees.B!)),
        'while a pack is rewritten': (vlt) => filesIn(packsOf(vlt), '.vlt-tmp').length > 0,
        'once a rewritten pack is in place': (vlt) => filesIn(packsOf(vlt), '.pack').some((pack) => !packsBefore.includes(pack)),
        'once an old pack is removed': (vlt) => filesIn(packsOf(vlt), '.pack').filter((pack) => packsBefore.includes(pack)).length < packsBefore.length,
        'once the state is replaced': (vlt) => existsSync(join(vlt, 'state.mpk')) && !readFileSync(join(vlt, 'state.mpk')).equals(stateBefore),
      },
    })
    assertKilledEnough(outcomes, 'gc')
  })
})
