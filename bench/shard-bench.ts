/**
 * `npm run bench -- shards [linux10k|linux|django]`: a CI matrix on one machine. N clones each run
 * `coderag init --shard K/N` at once (child processes, timed by /usr/bin/time), then a fresh clone
 * runs `coderag merge` over their `.vlt` directories; beside a single cold `coderag init` of the
 * same corpus in the same run (the peer). Reported per N: the slowest shard's wall, the merge's
 * wall, their sum, CPU seconds, and whether def/refs/search answer as after the single init.
 * This machine has 2 cores, so N parallel shards share them: the figures show the merge's cost and
 * that the split is even, not the speed-up of N machines.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { corpus, git, type CorpusName } from './corpus.js'
import { timed, type Timed } from './timed.js'

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'run.js')
const ENV = { ...process.env, GIT_VLT_DAEMON: '0', CI: '1' }
const QUERIES = [['coderag', 'def', 'main'], ['coderag', 'refs', 'init'], ['coderag', 'search', 'allocate memory', '--limit', '10']]

/** One CLI run under /usr/bin/time, without blocking the others started beside it. */
async function vlt(cwd: string, args: string[]): Promise<Timed & { json: Record<string, unknown> }> {
  const run = await timed([process.execPath, CLI, ...args, '--json'], cwd, ENV)
  return { ...run, json: JSON.parse(run.stdout) }
}

function answers(cwd: string): string {
  return QUERIES.map((args) => spawnSync(process.execPath, [CLI, ...args, '--json'], { cwd, env: ENV, encoding: 'utf8', maxBuffer: 1 << 26 }).stdout.replace(/"(durationMs|overlayFiles)": *\d+/g, '')).join('\n')
}

/** bench/results/shards.json for Linux 10k (the default), shards-<corpus>.json for another. */
export function resultName(args: string[]): string {
  const name = args[0] ?? 'linux10k'
  return name === 'linux10k' ? 'shards' : `shards-${name}`
}

export async function run(args: string[]): Promise<unknown> {
  const name = (args[0] ?? 'linux10k') as CorpusName
  return { corpus: name, cores: 2, ...(await shardRuns(corpus(name), [2, 4])) }
}

/**
 * For each count N: N shards at once in clones of the source repository, then their merge, checked
 * against the answers of a single cold init — of a clone made here, or of `indexed` when the caller
 * has one already (the scale bench: a whole-Linux init takes a quarter of an hour).
 */
export async function shardRuns(source: string, counts: number[], indexed?: string) {
  const work = mkdtempSync(join(tmpdir(), 'vlt-shard-bench-'))
  const clone = (label: string): string => {
    const dir = join(work, label)
    git(work, 'clone', '-q', '--no-hardlinks', source, dir)
    return dir
  }
  try {
    const loadBefore = loadavg()[0]!
    const single = indexed ? undefined : await vlt(clone('single'), ['coderag', 'init'])
    const expected = answers(indexed ?? join(work, 'single'))
    const runs = []
    for (const count of counts) {
      const dirs = Array.from({ length: count }, (_, i) => clone(`n${count}-shard${i + 1}`))
      const shards = await Promise.all(dirs.map((dir, i) => vlt(dir, ['coderag', 'init', '--shard', `${i + 1}/${count}`])))
      const mergeDir = clone(`n${count}-merge`)
      const merge = await vlt(mergeDir, ['coderag', 'merge', ...dirs.map((dir) => join(dir, '.vlt'))])
      const slowest = Math.max(...shards.map((shard) => shard.wallS))
      runs.push({
        shards: count,
        shardFiles: shards.map((shard) => shard.json.files),
        slowestShardWallS: slowest,
        shardCpuS: shards.map((shard) => shard.cpuS),
        shardPeakRssMb: Math.max(...shards.map((shard) => shard.peakRssMb)),
        mergeWallS: merge.wallS,
        mergeCpuS: merge.cpuS,
        mergePeakRssMb: merge.peakRssMb,
        mergeExtracted: merge.json.extracted,
        totalWallS: Number((slowest + merge.wallS).toFixed(1)),
        sameAnswers: answers(mergeDir) === expected,
      })
      for (const dir of [...dirs, mergeDir]) rmSync(dir, { recursive: true, force: true })
    }
    return {
      loadAverage: { before: loadBefore, after: loadavg()[0] },
      ...(single && { singleInit: { wallS: single.wallS, cpuS: single.cpuS, peakRssMb: single.peakRssMb } }),
      sharded: runs,
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
