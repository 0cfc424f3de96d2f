/**
 * The commit index (src/core/commits) on a real long history: a full build, its size, a one-commit
 * update, loading it for queries and a similar-commit query, beside the git work it rests on.
 *
 * Corpus: a bare clone of a mirror under /work/.mirror (default scrapy/scrapy: 11,399 commits, of
 * which 9,276 are not merges; redis/redis, 12,272 and 10,839, is past the issue's 10,000), made once
 * under bench/.work/. Peers, in the same run: `git log --no-merges --raw -M` alone (what listing the
 * changed files costs), and the very `git log` the index reads (`--raw -M -p -U0` with the function
 * patterns) as one process written to /dev/null, so the parse's own share shows (the build runs up
 * to one such process per core, each on a slice of the history).
 *
 * `npm run bench -- commits [owner+name] [runs]` (default scrapy+scrapy, 3 runs; medians).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { loadCommitHistory, syncCommits, commitIndexBytes, readCommitIndex, type CommitsContext } from '../src/core/commits/index.js'
import { openRepo } from '../src/core/git/index.js'
import { ensureVltDir } from '../src/core/store/index.js'
import { WORK } from './corpus.js'

const MIRRORS = '/work/.mirror'
const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' }

function git(dir: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8', maxBuffer: 1 << 30, input })
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** Wall and CPU (user + system of this process) of `fn`, in ms. */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage()
  const started = performance.now()
  const value = await fn()
  const used = process.cpuUsage(cpu)
  return { value, wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 }
}

/** Wall ms of a git command writing to /dev/null, and its CPU ms (user + system, from /usr/bin/time). */
function gitPeer(dir: string, args: string[]): { wallMs: number; cpuMs: number } {
  const started = performance.now()
  const run = spawnSync('bash', ['-c', `/usr/bin/time -f '%U %S' git ${args.map((a) => `'${a}'`).join(' ')} > /dev/null`], { cwd: dir, env: GIT_ENV, encoding: 'utf8' })
  const wallMs = performance.now() - started
  const [user, system] = run.stderr.trim().split('\n').at(-1)!.split(' ').map(Number)
  return { wallMs, cpuMs: ((user ?? 0) + (system ?? 0)) * 1000 }
}

export async function run(args: string[]): Promise<unknown> {
  const name = args[0] ?? 'scrapy+scrapy'
  const runs = Number(args[1] ?? 3)
  const source = join(MIRRORS, name, 'repo')
  if (!existsSync(source)) throw new Error(`missing mirror ${source}`)
  const dir = join(WORK, `commits-${name}.git`)
  if (!existsSync(dir)) {
    mkdirSync(WORK, { recursive: true })
    execFileSync('git', ['clone', '-q', '--bare', '--shared', source, dir], { env: GIT_ENV })
  }
  const head = git(dir, ['rev-parse', 'HEAD']).trim()
  const walked = Number(git(dir, ['rev-list', '--count', head]).trim())
  const nonMerge = Number(git(dir, ['rev-list', '--count', '--no-merges', head]).trim())
  const context = async (): Promise<CommitsContext> => {
    const repo = await openRepo(dir)
    return { repo, paths: await ensureVltDir(repo.vltDir), maxCommits: 0 }
  }
  const warn = (message: string): void => void process.stderr.write(`${message}\n`)
  process.stderr.write(`commits bench on ${name}: ${walked} commits, ${nonMerge} without merges, ${runs} runs\n`)

  // The peers first, on a warm page cache like the builds after them.
  const rawPeer: number[] = []
  const rawPeerCpu: number[] = []
  const logPeer: number[] = []
  const logPeerCpu: number[] = []
  const attributes = join((await context()).paths.commits, 'diff-attributes')
  const build: Array<{ wallMs: number; cpuMs: number }> = []
  let bytes = 0
  for (let r = 0; r < runs; r++) {
    const raw = gitPeer(dir, ['log', '--no-merges', '-z', '--raw', '-M', '--no-abbrev', '--format=%H', head])
    rawPeer.push(raw.wallMs)
    rawPeerCpu.push(raw.cpuMs)
    rmSync((await context()).paths.commits, { recursive: true, force: true })
    const built = await timed(async () => syncCommits(await context(), { warn }))
    build.push({ wallMs: built.wallMs, cpuMs: built.cpuMs })
    const ctx = await context()
    bytes = await commitIndexBytes(ctx.paths, await readCommitIndex(ctx.paths))
    // The same git log the build reads (the attributes file now exists), to /dev/null.
    const log = gitPeer(dir, ['-c', `core.attributesFile=${attributes}`, 'log', '--no-merges', '-z', '--no-textconv', '--no-ext-diff', '--no-abbrev', '--format=%x1e%H%x1f%at%x1f%an%x1f%B', '--raw', '-M', '-p', '-U0', head])
    logPeer.push(log.wallMs)
    logPeerCpu.push(log.cpuMs)
  }

  // One-commit updates: a commit on top of HEAD (same tree, a new message), then a sync.
  const updates: number[] = []
  let tip = head
  for (let r = 0; r < Math.max(5, runs); r++) {
    const tree = git(dir, ['rev-parse', `${tip}^{tree}`]).trim()
    tip = git(dir, ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.invalid', 'commit-tree', tree, '-p', tip, '-m', `Bench update ${r}`]).trim()
    git(dir, ['update-ref', 'HEAD', tip])
    const update = await timed(async () => syncCommits(await context(), { warn }))
    if (update.value.mode !== 'incremental' || update.value.added !== 1) throw new Error(`expected an incremental one-commit update, got ${JSON.stringify(update.value)}`)
    updates.push(update.wallMs)
  }
  git(dir, ['update-ref', 'HEAD', head])
  await syncCommits(await context(), { warn })

  // Loading for queries: the first load of this process (later ones hit the per-process cache).
  const load = await timed(async () => loadCommitHistory(await context(), warn))
  const query = await timed(async () => load.value.similar('retry the request when the download times out', 20))
  const queries = ['cookies are not sent to subdomains', 'feed export fails with unicode file names', 'sitemap spider ignores alternate links', 'proxy authentication header leaks to other hosts', 'fix memory leak in the scheduler queue']
  const warm: number[] = []
  for (let r = 0; r < 20; r++) for (const q of queries) {
    const started = performance.now()
    load.value.similar(q, 20)
    warm.push(performance.now() - started)
  }

  const per10k = (ms: number): number => Math.round((ms * 10_000) / nonMerge)
  const figures = {
    corpus: { mirror: name, commits: walked, indexed: nonMerge },
    build: {
      wallMs: Math.round(median(build.map((b) => b.wallMs))),
      cpuMsInProcess: Math.round(median(build.map((b) => b.cpuMs))),
      wallMsPer10kCommits: per10k(median(build.map((b) => b.wallMs))),
      bytes,
    },
    peers: {
      gitLogRawWallMs: Math.round(median(rawPeer)),
      gitLogRawCpuMs: Math.round(median(rawPeerCpu)),
      gitLogAsReadWallMs: Math.round(median(logPeer)),
      gitLogAsReadCpuMs: Math.round(median(logPeerCpu)),
    },
    oneCommitUpdate: { medianMs: Math.round(median(updates)), maxMs: Math.round(Math.max(...updates)), runs: updates.length },
    load: { wallMs: Math.round(load.wallMs), firstSimilarMs: Math.round(query.wallMs * 10) / 10, warmSimilarP50Ms: Math.round(median(warm) * 100) / 100 },
  }
  return figures
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(await run(process.argv.slice(2)), null, 2)}\n`)
}
