/**
 * `npm run bench -- shards [linux10k|django]`: a CI matrix on one machine. N clones each run
 * `coderag init --shard K/N` at once (child processes, timed by /usr/bin/time), then a fresh clone
 * runs `coderag merge` over their `.vlt` directories; beside a single cold `coderag init` of the
 * same corpus in the same run (the peer). Reported per N: the slowest shard's wall, the merge's
 * wall, their sum, CPU seconds, and whether def/refs/search answer as after the single init.
 * This machine has 2 cores, so N parallel shards share them: the figures show the merge's cost and
 * that the split is even, not the speed-up of N machines.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { corpus, git, type CorpusName } from './corpus.js'

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'run.js')
const ENV = { ...process.env, GIT_VLT_DAEMON: '0', CI: '1' }
const QUERIES = [['coderag', 'def', 'main'], ['coderag', 'refs', 'init'], ['coderag', 'search', 'allocate memory', '--limit', '10']]

interface Timed {
  wallS: number
  cpuS: number
  peakRssMb: number
  json: Record<string, unknown>
}

/** One CLI run under /usr/bin/time, without blocking the others started beside it. */
function timed(cwd: string, args: string[]): Promise<Timed> {
  const started = Date.now()
  const child = spawn('/usr/bin/time', ['-f', '%U %S %M', process.execPath, CLI, ...args, '--json'], { cwd, env: ENV })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`vlt ${args.join(' ')} in ${cwd} exited ${code}: ${stderr}`))
      const [user, system, rssKb] = stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number]
      resolve({ wallS: (Date.now() - started) / 1000, cpuS: Number((user + system).toFixed(1)), peakRssMb: Math.round(rssKb / 1024), json: JSON.parse(stdout) })
    })
  })
}

function answers(cwd: string): string {
  return QUERIES.map((args) => spawnSync(process.execPath, [CLI, ...args, '--json'], { cwd, env: ENV, encoding: 'utf8', maxBuffer: 1 << 26 }).stdout.replace(/"(durationMs|overlayFiles)": *\d+/g, '')).join('\n')
}

export async function run(args: string[]): Promise<unknown> {
  const name = (args[0] ?? 'linux10k') as CorpusName
  const source = corpus(name)
  const work = mkdtempSync(join(tmpdir(), 'vlt-shard-bench-'))
  const clone = (label: string): string => {
    const dir = join(work, label)
    git(work, 'clone', '-q', '--no-hardlinks', source, dir)
    return dir
  }
  try {
    const loadBefore = loadavg()[0]!
    const singleDir = clone('single')
    const single = await timed(singleDir, ['coderag', 'init'])
    const expected = answers(singleDir)
    const runs = []
    for (const count of [2, 4]) {
      const dirs = Array.from({ length: count }, (_, i) => clone(`n${count}-shard${i + 1}`))
      const shards = await Promise.all(dirs.map((dir, i) => timed(dir, ['coderag', 'init', '--shard', `${i + 1}/${count}`])))
      const mergeDir = clone(`n${count}-merge`)
      const merge = await timed(mergeDir, ['coderag', 'merge', ...dirs.map((dir) => join(dir, '.vlt'))])
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
      corpus: name,
      cores: 2,
      loadAverage: { before: loadBefore, after: loadavg()[0] },
      singleInit: { wallS: single.wallS, cpuS: single.cpuS, peakRssMb: single.peakRssMb },
      sharded: runs,
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
