/**
 * `npm run bench -- scale [linux10k|linux …] [--skip=shards,cache,warm]`: issue 20's figures for
 * whole trees, each beside its peers measured in the same run (this VM's speed moves by up to 1.8×
 * between hours): universal-ctags -R and the tree-sitter floor (bench/tree-sitter-floor.ts: the
 * same files only parsed and tags-queried on as many workers).
 *
 * Per corpus: cold `coderag init` (wall, CPU seconds, peak RSS, `.vlt/` size beside the source's);
 * cold CLI latency and peak RSS of status/def/refs/search/map without the daemon (a new process per
 * call, the median of three), the same with one file modified and one untracked (what a user
 * editing the tree waits for; the warm daemon too, unless skipped) and after a small commit (HEAD a
 * delta tree); `coderag verify` (wall, CPU seconds, peak RSS); the warm daemon's p50/p95 for
 * def/refs/search and its resident memory;
 * shards N = 2 and 4 (N = 1 is the cold init) with their merge, checked against the cold init's
 * answers (bench/shard-bench.ts); a fresh clone with an empty `.vlt/` and the remote cache warm
 * (bench/remote-cache-bench.ts, nginx WebDAV on 127.0.0.1). `targets` holds issue 20's "done
 * means" for the corpus, each with the figure it is checked against.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { corpus, directoryBytes, git, warmPageCache, type CorpusName } from './corpus.js'
import { percentiles, type Latency } from './defs-bench.js'
import { cacheRuns } from './remote-cache-bench.js'
import { shardRuns } from './shard-bench.js'
import { timed } from './timed.js'

const BENCH = dirname(fileURLToPath(import.meta.url))
const ROOT = join(BENCH, '..')
const CLI = join(ROOT, 'bin', 'run.js')
const FLOOR = join(BENCH, 'tree-sitter-floor.ts')
const COLD = { ...process.env, GIT_VLT_DAEMON: '0', CI: '1' }
const WARM = { ...process.env, GIT_VLT_DAEMON: '1', CI: '1' }
const QUERIES: Record<string, string[]> = {
  status: ['coderag', 'status'],
  def: ['coderag', 'def', 'kmalloc'],
  refs: ['coderag', 'refs', 'schedule_work'],
  search: ['coderag', 'search', 'allocate dma buffer'],
  map: ['coderag', 'map'],
  // A personalised map, and the oracle (offline), whose context includes a map focused on the files it cites.
  focusedMap: ['coderag', 'map', '--focus', 'kmalloc'],
  oracle: ['oracle', 'how does kmalloc pick a slab cache', '--no-log', '--new'],
}
const WARM_ROUNDS = 12
const MB = 1024 * 1024

const round = (x: number, digits = 2): number => Number(x.toFixed(digits))

async function vlt(dir: string, args: string[], env = COLD) {
  const run = await timed([process.execPath, CLI, ...args, '--json'], dir, env)
  return { ...run, json: JSON.parse(run.stdout) as Record<string, unknown> }
}

/** Bytes of HEAD's files as git lists them (the source the index covers). */
function sourceOf(dir: string): { files: number; bytes: number } {
  const rows = git(dir, 'ls-tree', '-r', '-l', 'HEAD').split('\n').filter(Boolean)
  return { files: rows.length, bytes: rows.reduce((sum, row) => sum + (Number(row.split(/\s+/)[3]) || 0), 0) }
}

/** Each of `names` (QUERIES) without the daemon, a new process per call: the median wall of three, the highest peak RSS. */
async function coldQueries(dir: string, names = Object.keys(QUERIES)) {
  const out: Record<string, { wallMsMedian: number; peakRssMb: number }> = {}
  for (const name of names) {
    const runs = []
    for (let i = 0; i < 3; i++) runs.push(await vlt(dir, QUERIES[name]!))
    out[name] = { wallMsMedian: percentiles(runs.map((run) => run.wallS * 1000)).p50Ms, peakRssMb: Math.max(...runs.map((run) => run.peakRssMb)) }
  }
  return out
}

/**
 * Cold queries with uncommitted work, as a user editing the tree has it: one file of HEAD modified
 * and one untracked file, laid over HEAD's index by each query (the sync before extracts them);
 * and the warm daemon's latency and memory over that tree, unless `warm` is skipped. Not among
 * issue 20's targets, which are measured on a clean tree, but what a user waits for. The tree is
 * clean again (and synced) afterwards.
 */
async function dirtyQueries(dir: string, skip: Set<string>) {
  const modified = git(dir, 'ls-files', '*.c').split('\n').filter(Boolean)[0]!
  appendFileSync(join(dir, modified), '\n/* an edit in progress */\n')
  writeFileSync(join(dir, 'scratch-notes.txt'), 'notes taken while editing\n')
  try {
    await vlt(dir, ['coderag', 'sync'])
    const cold = await coldQueries(dir)
    return { modified, untracked: 'scratch-notes.txt', ...cold, ...(!skip.has('warm') && { warm: await warmQueries(dir) }) }
  } finally {
    rmSync(join(dir, 'scratch-notes.txt'), { force: true })
    git(dir, 'checkout', '-q', '--', modified)
    await vlt(dir, ['coderag', 'sync'])
  }
}

/**
 * Cold queries after a small commit: HEAD's tree is then stored as a delta on the tree indexed in
 * full (index/build.ts, deltaLimit), and each query lays the delta's files over that tree's
 * aggregates. The commit is undone (and the tree synced) afterwards.
 */
async function committedQueries(dir: string) {
  const modified = git(dir, 'ls-files', '*.c').split('\n').filter(Boolean)[1]!
  appendFileSync(join(dir, modified), '\nint bench_committed_helper(void) { return 0; }\n')
  git(dir, 'commit', '-q', '-a', '-m', 'bench: a small commit')
  try {
    await vlt(dir, ['coderag', 'sync'])
    return { modified, ...(await coldQueries(dir)) }
  } finally {
    git(dir, 'reset', '-q', '--hard', 'HEAD~1')
    await vlt(dir, ['coderag', 'sync'])
  }
}

function cliSync(dir: string, args: string[]): { ms: number; stdout: string } {
  const started = process.hrtime.bigint()
  const child = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28, env: WARM })
  if (child.status !== 0) throw new Error(`git vlt ${args.join(' ')} exited ${child.status}: ${child.stderr.trim().split('\n').slice(-3).join(' | ')}`)
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, stdout: child.stdout }
}

/** Resident and peak resident memory of a process, from /proc. */
function memoryOf(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0)
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) }
}

async function warmQueries(dir: string) {
  cliSync(dir, ['daemon', 'stop'])
  const started = JSON.parse(cliSync(dir, ['daemon', 'start', '--json']).stdout) as { daemon: { pid: number } }
  // Started answers at once; the first query waits for the daemon to load the index.
  const firstServedMs = Math.round(cliSync(dir, [...QUERIES.def!, '--json']).ms)
  const latency = (name: string): Latency => percentiles(Array.from({ length: WARM_ROUNDS }, () => cliSync(dir, [...QUERIES[name]!, '--json']).ms))
  const out = { def: latency('def'), refs: latency('refs'), search: latency('search') }
  const memory = memoryOf(started.daemon.pid)
  cliSync(dir, ['daemon', 'stop'])
  await sleep(200)
  return { firstServedMs, ...out, daemon: memory }
}

async function scaleCorpus(name: CorpusName, skip: Set<string>) {
  const dir = corpus(name)
  git(dir, 'reset', '-q', '--hard', 'HEAD')
  cliSync(dir, ['daemon', 'stop'])
  rmSync(join(dir, '.vlt'), { recursive: true, force: true })
  const source = sourceOf(dir)
  warmPageCache(dir)
  const loadBefore = loadavg()[0]!

  const cold = await vlt(dir, ['coderag', 'init'])
  const vltBytes = directoryBytes(join(dir, '.vlt'))
  const parts = Object.fromEntries(['objects', 'trees', 'commits'].map((part) => [part, round(directoryBytes(join(dir, '.vlt', part)) / MB, 1)]))

  const tags = join(mkdtempSync(join(tmpdir(), 'vlt-scale-ctags-')), 'tags')
  const ctags = await timed(['ctags', '-R', '--exclude=.vlt', '--exclude=.git', '-f', tags, '.'], dir)
  const tagsMb = round(statSync(tags).size / MB, 1)
  rmSync(dirname(tags), { recursive: true, force: true })
  const floorRun = await timed([process.execPath, '--import', 'tsx', FLOOR, dir], ROOT)
  const floor = { wallS: (JSON.parse(floorRun.stdout) as { wallS: number }).wallS, cpuS: floorRun.cpuS, peakRssMb: floorRun.peakRssMb }

  const queries = await coldQueries(dir)
  const dirty = await dirtyQueries(dir, skip)
  const committed = await committedQueries(dir)
  // Every record read and decoded, the aggregates a block at a time: its memory should not grow with the tree.
  const verified = await vlt(dir, ['coderag', 'verify'])
  const verify = { wallS: round(verified.wallS, 1), cpuS: verified.cpuS, peakRssMb: verified.peakRssMb, whole: verified.json.whole }
  const warm = skip.has('warm') ? undefined : await warmQueries(dir)
  const shards = skip.has('shards') ? undefined : await shardRuns(dir, [2, 4], dir)
  const cache = skip.has('cache') ? undefined : await cacheRuns(dir, cold)

  const initWallPerCtags = round(cold.wallS / ctags.wallS, 1)
  const initWallPerFloor = round(cold.wallS / floor.wallS)
  // Beside the wall ratio: what the init computes beyond the floor, however well its threads overlap.
  // The floor's CPU counts its process's tsx start (~1.5 CPU-s here) where its wallS starts at the
  // workers, so this ratio reads a few hundredths low.
  const initCpuPerFloor = round(cold.cpuS / floor.cpuS)
  const vltMb = round(vltBytes / MB, 1)
  const sourceMb = round(source.bytes / MB, 1)
  const whole = name === 'linux'
  const targets = {
    ...(whole
      ? {
          initPeakRssMbAtMost1536: { value: cold.peakRssMb, met: cold.peakRssMb <= 1536 },
          initWallAtMost6xCtags: { value: initWallPerCtags, met: initWallPerCtags <= 6 },
          vltMbAtMost1536: { value: vltMb, met: vltMb <= 1536 },
          coldDefRefsAtMost1s: { value: Math.max(queries.def!.wallMsMedian, queries.refs!.wallMsMedian), met: Math.max(queries.def!.wallMsMedian, queries.refs!.wallMsMedian) <= 1000 },
          coldSearchAtMost2s: { value: queries.search!.wallMsMedian, met: queries.search!.wallMsMedian <= 2000 },
          ...(warm && {
            warmSearchP50AtMost100ms: { value: warm.search.p50Ms, met: warm.search.p50Ms <= 100 },
            daemonRssMbAtMost1024: { value: warm.daemon.rssMb, met: warm.daemon.rssMb <= 1024 },
          }),
        }
      : {
          initAtMost1_5xFloor: { value: initWallPerFloor, met: initWallPerFloor <= 1.5 },
          initPeakRssMbAtMost600: { value: cold.peakRssMb, met: cold.peakRssMb <= 600 },
        }),
    vltAtMostSource: { value: round(vltMb / sourceMb), met: vltMb <= sourceMb },
    ...(cache && { warmCacheAtMost20PercentOfCold: { value: cache.warmShareOfCold, met: cache.warmShareOfCold <= 0.2 } }),
    ...(shards && { shardedSameAnswers: { value: shards.sharded.map((run) => run.sameAnswers), met: shards.sharded.every((run) => run.sameAnswers) } }),
  }

  return {
    corpus: name,
    source: { files: source.files, mb: sourceMb },
    loadAverage: { before: round(loadBefore), after: round(loadavg()[0]!) },
    coldInit: {
      wallS: round(cold.wallS, 1),
      cpuS: cold.cpuS,
      peakRssMb: cold.peakRssMb,
      vltMb,
      vltParts: parts,
      wallPerCtags: initWallPerCtags,
      wallPerFloor: initWallPerFloor,
      cpuPerFloor: initCpuPerFloor,
      indexed: { files: cold.json.files, chunks: cold.json.chunks, symbols: cold.json.symbols, edges: cold.json.edges },
    },
    ctags: { wallS: round(ctags.wallS, 1), cpuS: ctags.cpuS, peakRssMb: ctags.peakRssMb, tagsMb },
    treeSitterFloor: floor,
    coldQueries: queries,
    dirtyQueries: dirty,
    committedQueries: committed,
    verify,
    ...(warm && { warm }),
    ...(shards && { shards }),
    ...(cache && { cache }),
    targets,
  }
}

const corporaOf = (args: string[]): CorpusName[] => {
  const names = args.filter((arg) => !arg.startsWith('--')) as CorpusName[]
  return names.length ? names : ['linux10k']
}

/** bench/results/scale.json for Linux 10k (the default), scale-<corpora>.json for others. */
export function resultName(args: string[]): string {
  const names = corporaOf(args)
  return names.join() === 'linux10k' ? 'scale' : `scale-${names.join('-')}`
}

export async function run(args: string[]): Promise<unknown> {
  execFileSync('ctags', ['--version'])
  const skip = new Set(args.filter((arg) => arg.startsWith('--skip=')).flatMap((arg) => arg.slice('--skip='.length).split(',')))
  const results = []
  for (const name of corporaOf(args)) results.push(await scaleCorpus(name, skip))
  return { machine: `${process.platform} ${process.arch}, node ${process.version}, 2 cores`, results }
}
