/**
 * Issue 16's localization benchmark: given a request in words, name the files to change.
 *
 * A case is a real commit (gen-localize: a message that describes a change, 1–3 existing source
 * files modified, tests and docs not gold); its message is the query and the source files it
 * changed are the gold. Each case is answered by the repository as it stood at the commit's
 * parent: one clone per repository, cases in commit order, `git checkout --detach <parent>` then
 * the product's own sync (in process, as `git vlt coderag sync` runs it: only changed blobs are
 * extracted), checked to hold exactly the parent's tree (else the index is rebuilt from scratch
 * and counted). Every ranker of localize-rankers.ts answers every case in the same run; the first
 * 10 unique paths of each ranking are scored with hit@1/5/10 and recall@5 per repository, for the
 * tuning half and the held-out half separately (tune on the first, report the second), with the
 * mean over repositories and each ranker's delta from plain BM25 over whole files, the baseline.
 *
 * Timings (this machine's speed varies by up to 1.8× between hours, so each sits beside peers
 * timed in the same run): per repository the sync after each checkout, opening the index, each
 * ranker's query latency (p50, p90), and universal-ctags over the same tree and `git rev-list
 * --count` over the same history.
 *
 *   npm run bench -- localize [--repos scrapy,gson] [--half tuning|heldout|both] [--cases N] [--rankers a,b]
 *   npm run bench -- localize --generate        (redraw the committed cases: see localize-corpora.ts)
 *
 * --cases N runs at most N cases of each half per repository (a fixed sample), for short tuning runs.
 * Corpora: localize-corpora.ts (pinned commits, how to clone them). Adding a ranker: localize-rankers.ts.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { initIndex, syncIndex, type TreeManifest } from '../src/core/index/index.js'
import { openQueryContext, type QueryContext } from '../src/core/query/context.js'
import { treeAssociations } from '../src/core/semantic/model-store.js'
import { git } from './corpus.js'
import { cloneOf, CORPORA, generateCases, HALVES, readCases, selectCases, type Corpus, type Half, type LocalizeCase } from './localize-corpora.js'
import { CommitMessages, WholeFileBm25 } from './localize-reference.js'
import { BASELINE, cliIn, RANKERS, type LocalizeContext, type Ranker } from './localize-rankers.js'
import { goldRanks, halfFigures, qualityTable, spread, timingTable, type CaseOutcome, type CorpusTimings, type HalfFigures } from './localize-report.js'

interface Options {
  corpora: Corpus[]
  halves: Half[]
  perHalf: number
  rankers: Ranker[]
  generate: boolean
}

function parseOptions(args: string[]): Options {
  const options: Options = { corpora: [...CORPORA], halves: [...HALVES], perHalf: Infinity, rankers: [...RANKERS], generate: false }
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!
    if (flag === '--generate') {
      options.generate = true
      continue
    }
    const value = args[++i]
    if (value === undefined) throw new Error(`${flag} needs a value`)
    if (flag === '--repos') options.corpora = value.split(',').map((name) => pick(CORPORA, name, 'repository'))
    else if (flag === '--half') options.halves = value === 'both' ? [...HALVES] : [pick(HALVES.map((name) => ({ name })), value, 'half').name]
    else if (flag === '--cases') options.perHalf = positive(value)
    else if (flag === '--rankers') options.rankers = RANKERS.filter((r) => r.name === BASELINE || value.split(',').map((name) => pick(RANKERS, name, 'ranker')).includes(r))
    else throw new Error(`unknown option ${flag}`)
  }
  return options
}

function pick<T extends { name: string }>(list: readonly T[], name: string, what: string): T {
  const found = list.find((item) => item.name === name)
  if (!found) throw new Error(`unknown ${what} ${name} (one of ${list.map((item) => item.name).join(', ')})`)
  return found
}

function positive(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new Error(`--cases needs a positive integer, not ${value}`)
  return n
}

const msSince = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e6

/** What indexing one case's parent cost, and whether the sync failed or the index had to be rebuilt from scratch. */
interface Indexed {
  qctx: QueryContext
  syncMs: number
  openMs: number
  syncFailed: boolean
  reinitialised: boolean
}

/**
 * Checks out `parent` and syncs the index to it. A sync that throws is counted and followed by a
 * cold build from the cached blob records (the index state removed, so nothing is patched; its
 * time counts as the sync's). The result must be the parent's tree with each indexed file's blob
 * as git has it; if not, the index is rebuilt from scratch (and counted). Opening includes the term
 * associations a warm index learns on load, so query latencies are warm.
 */
async function indexAt(dir: string, parent: string, warn: (message: string) => void): Promise<Indexed> {
  git(dir, 'checkout', '-q', '-f', '--detach', parent)
  const synced = process.hrtime.bigint()
  let tree: string
  let syncFailed = false
  try {
    tree = (await syncIndex(dir, { warn })).treeHash
  } catch (error) {
    warn(`sync at ${parent.slice(0, 12)} failed (${String(error).split('\n')[0]}): built cold from the cached blob records`)
    syncFailed = true
    rmSync(join(dir, '.vlt', 'state.mpk'), { force: true })
    tree = (await initIndex(dir, { warn })).treeHash
  }
  const syncMs = msSince(synced)
  const opened = process.hrtime.bigint()
  let qctx = await openQueryContext(dir, { noSync: true, warn })
  await treeAssociations(qctx)
  const openMs = msSince(opened)
  const reinitialised = !holdsTree(dir, parent, tree, qctx.manifest)
  if (reinitialised) {
    warn(`the index synced at ${parent.slice(0, 12)} is not its tree: rebuilt from scratch`)
    rmSync(join(dir, '.vlt'), { recursive: true, force: true })
    await initIndex(dir, { warn })
    qctx = await openQueryContext(dir, { noSync: true, warn })
    if (!holdsTree(dir, parent, qctx.manifest.treeHash, qctx.manifest)) throw new Error(`${dir}: even a fresh index does not hold ${parent}'s tree`)
    await treeAssociations(qctx)
  }
  return { qctx, syncMs, openMs, syncFailed, reinitialised }
}

/** The sync reported `parent`'s tree and the loaded manifest is that tree, every file at git's blob. */
function holdsTree(dir: string, parent: string, synced: string, manifest: TreeManifest): boolean {
  const tree = git(dir, 'rev-parse', `${parent}^{tree}`).trim()
  const blobs = new Map(git(dir, 'ls-tree', '-r', '-z', parent).split('\0').filter(Boolean).map((line) => {
    const tab = line.indexOf('\t')
    return [line.slice(tab + 1), line.slice(0, tab).split(' ')[2]!] as const
  }))
  return synced === tree && manifest.treeHash === tree && manifest.files.every((file) => blobs.get(file.path) === file.blob)
}

interface CorpusRun {
  outcomes: CaseOutcome[]
  timings: CorpusTimings
  /** Syncs that threw (a product defect: the case still runs, on a cold build). */
  syncFailures: number
  reinitialised: number
  /** Cases whose checkout left uncommitted changes the index laid over the tree (should be 0). */
  dirtyCheckouts: number
}

interface Samples {
  sync: number[]
  open: number[]
  reference: number[]
  rank: Map<string, number[]>
}

async function runCorpus(corpus: Corpus, cases: LocalizeCase[], rankers: readonly Ranker[], warn: (message: string) => void): Promise<CorpusRun> {
  const started = Date.now()
  const dir = cloneOf(corpus)
  rmSync(join(dir, '.vlt'), { recursive: true, force: true })
  const wholeFiles = new WholeFileBm25()
  const history = new CommitMessages(dir, corpus.pin)
  const samples: Samples = { sync: [], open: [], reference: [], rank: new Map(rankers.map((r) => [r.name, []])) }
  const outcomes: CaseOutcome[] = []
  const checks = { syncFailures: 0, reinitialised: 0, dirtyCheckouts: 0 }
  let files = 0
  for (const c of cases) {
    const indexed = await indexAt(dir, c.parent, warn)
    samples.sync.push(indexed.syncMs)
    samples.open.push(indexed.openMs)
    if (indexed.syncFailed) checks.syncFailures++
    if (indexed.reinitialised) checks.reinitialised++
    if (indexed.qctx.freshness.overlayFiles > 0) checks.dirtyCheckouts++
    files = indexed.qctx.files.size
    const updated = process.hrtime.bigint()
    wholeFiles.update(dir, indexed.qctx.files)
    history.reachFrom(dir, c.parent)
    samples.reference.push(msSince(updated))
    const ctx: LocalizeContext = { corpus: corpus.name, dir, parent: c.parent, index: indexed.qctx, wholeFiles, history, cli: cliIn(dir) }
    outcomes.push(await answer(ctx, c, rankers, samples.rank))
  }
  const last = cases[cases.length - 1]!.parent
  const timings: CorpusTimings = {
    cases: cases.length,
    files,
    commits: Number(git(dir, 'rev-list', '--count', last).trim()),
    firstSyncMs: Math.round(samples.sync[0]!),
    syncMs: spread(samples.sync.slice(1)),
    openMs: spread(samples.open),
    referenceMs: spread(samples.reference),
    rankMs: Object.fromEntries([...samples.rank].map(([name, times]) => [name, spread(times)])),
    peers: peers(dir, last),
    wallS: Math.round((Date.now() - started) / 1000),
    loadAverage1m: +loadavg()[0]!.toFixed(1),
  }
  return { outcomes, timings, ...checks }
}

/** Every ranker's answer to one case, scored; each ranker's latency appended to `latencies`. */
async function answer(ctx: LocalizeContext, c: LocalizeCase, rankers: readonly Ranker[], latencies: Map<string, number[]>): Promise<CaseOutcome> {
  const outcome: CaseOutcome = { id: c.id, corpus: ctx.corpus, half: c.half, goldRanks: {} }
  for (const ranker of rankers) {
    const started = process.hrtime.bigint()
    const ranking = await ranker.rank(ctx, c.query)
    latencies.get(ranker.name)!.push(msSince(started))
    outcome.goldRanks[ranker.name] = goldRanks(ranking, c.gold)
  }
  return outcome
}

/** Median of three runs of each peer, on the tree and history of `commit` (checked out). */
function peers(dir: string, commit: string): CorpusTimings['peers'] {
  const median = (run: () => void): number => {
    const times = [0, 1, 2].map(() => {
      const started = process.hrtime.bigint()
      run()
      return msSince(started)
    })
    return Math.round(times.sort((a, b) => a - b)[1]!)
  }
  const tags = join(mkdtempSync(join(tmpdir(), 'vlt-localize-')), 'tags')
  const ctagsMs = median(() => execFileSync('ctags', ['-R', '--exclude=.vlt', '--exclude=.git', '-f', tags, '.'], { cwd: dir, stdio: 'ignore' }))
  rmSync(tags, { force: true })
  const revListMs = median(() => git(dir, 'rev-list', '--count', commit))
  return { ctagsMs, revListMs }
}

export async function run(args: string[]): Promise<unknown> {
  const options = parseOptions(args)
  if (options.generate) return Object.fromEntries(options.corpora.map((corpus) => [corpus.name, generateCases(corpus)]))
  execFileSync('ctags', ['--version'])
  const started = Date.now()
  const loadAtStart = loadavg()
  const warnings: string[] = []
  const rankers = options.rankers.map((r) => r.name)
  const outcomes: CaseOutcome[] = []
  const timings: Record<string, CorpusTimings> = {}
  const checks: Record<string, Pick<CorpusRun, 'syncFailures' | 'reinitialised' | 'dirtyCheckouts'>> = {}
  for (const corpus of options.corpora) {
    const cases = selectCases(readCases(corpus), options.halves, options.perHalf)
    process.stderr.write(`localize: ${corpus.name} (${cases.length} cases)…\n`)
    const warn = (message: string): void => {
      warnings.push(`${corpus.name}: ${message}`)
      process.stderr.write(`${corpus.name}: ${message}\n`)
    }
    const result = await runCorpus(corpus, cases, options.rankers, warn)
    outcomes.push(...result.outcomes)
    timings[corpus.name] = result.timings
    checks[corpus.name] = { syncFailures: result.syncFailures, reinitialised: result.reinitialised, dirtyCheckouts: result.dirtyCheckouts }
  }
  const names = options.corpora.map((corpus) => corpus.name)
  const quality = Object.fromEntries(options.halves.map((half) => [half, halfFigures(outcomes.filter((o) => o.half === half), names, rankers)])) as Partial<Record<Half, HalfFigures>>
  const report = [...options.halves.map((half) => qualityTable(half, quality[half]!, rankers)), timingTable(timings, rankers)].join('\n\n')
  process.stderr.write(`\n${report}\n\n`)
  return {
    machine: `${process.platform} ${process.arch}, node ${process.version}`,
    startedAt: new Date(started).toISOString(),
    wallS: Math.round((Date.now() - started) / 1000),
    loadAverage: { atStart: loadAtStart.map((x) => +x.toFixed(2)), atEnd: loadavg().map((x) => +x.toFixed(2)) },
    options: { repos: names, halves: options.halves, casesPerHalf: Number.isFinite(options.perHalf) ? options.perHalf : 'all' },
    corpora: options.corpora.map((corpus) => ({ ...corpus, cases: countHalves(outcomes.filter((o) => o.corpus === corpus.name)), ...checks[corpus.name] })),
    rankers: options.rankers.map(({ name, describe }) => ({ name, describe })),
    quality,
    timings,
    warnings,
    report,
    // Per case for the tuning half only: the held-out half is reported in aggregate, never case by case.
    tuningCases: outcomes.filter((o) => o.half === 'tuning').map(({ id, goldRanks }) => ({ id, goldRanks })),
  }
}

function countHalves(outcomes: CaseOutcome[]): Record<Half, number> {
  return { tuning: outcomes.filter((o) => o.half === 'tuning').length, heldout: outcomes.filter((o) => o.half === 'heldout').length }
}
