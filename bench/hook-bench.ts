/**
 * Issue 6's hook target: a hook adds at most 30 ms to `git commit`. Three repositories with the
 * same 1,000 files and an indexed-looking `.vlt/` take turns committing a one-file change, so that
 * drift in machine load hits every variant alike:
 *   none     no hooks installed
 *   enqueue  git-vlt's hooks, no CLI to start (what a commit costs when the indexer is busy or absent)
 *   launch   git-vlt's hooks starting a stand-in indexer (node, exits at once) in the background
 * Each commit is timed as a user runs it (wall time of the `git commit` child). Between commits a
 * short pause lets the launched background process finish so it does not slow the next commit.
 *
 * `node --import tsx bench/hook-bench.ts [commits]` (default 40), or through bench/run.ts as `run(args)`.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { installHooks } from '../src/core/hooks/index.js'
import { readQueue } from '../src/core/queue/index.js'
import { ensureVltDir } from '../src/core/store/index.js'

const ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
}

function git(dir: string, ...args: string[]): void {
  const run = spawnSync('git', args, { cwd: dir, env: ENV, encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${run.stderr}`)
}

async function makeRepo(root: string, name: string): Promise<string> {
  const dir = join(root, name)
  git(root, 'init', '-q', '-b', 'main', name)
  for (let i = 0; i < 1000; i++) writeFileSync(join(dir, `file-${i}.c`), `int f${i}(int x) {\n  return x + ${i};\n}\n`)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'initial')
  await ensureVltDir(join(dir, '.vlt'))
  return dir
}

function timedCommit(dir: string, round: number): number {
  writeFileSync(join(dir, 'file-7.c'), `int f7(int x) {\n  return x + ${round};\n}\n`)
  git(dir, 'add', 'file-7.c')
  const started = process.hrtime.bigint()
  git(dir, 'commit', '-q', '-m', `change ${round}`)
  return Number(process.hrtime.bigint() - started) / 1e6
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const round1 = (x: number): number => Math.round(x * 10) / 10

export async function run(args: string[]): Promise<unknown> {
  const commits = Math.max(30, Number(args[0] ?? 40))
  const root = mkdtempSync(join(tmpdir(), 'vlt-hook-bench-'))
  try {
    const repos = { none: await makeRepo(root, 'none'), enqueue: await makeRepo(root, 'enqueue'), launch: await makeRepo(root, 'launch') }
    const cli = join(root, 'stand-in-indexer.mjs')
    writeFileSync(cli, 'process.exit(0)\n')
    await installHooks(repos.enqueue, { launcher: null })
    await installHooks(repos.launch, { launcher: { node: process.execPath, cli } })
    const times: Record<keyof typeof repos, number[]> = { none: [], enqueue: [], launch: [] }
    for (let round = 0; round < commits; round++) {
      for (const variant of Object.keys(repos) as (keyof typeof repos)[]) times[variant].push(timedCommit(repos[variant], round))
      await sleep(60)
    }
    const queued = (await readQueue(join(repos.enqueue, '.vlt'))).batches.length
    if (queued !== commits) throw new Error(`expected ${commits} queued batches, found ${queued}`)
    const none = median(times.none)
    return {
      commits,
      medianCommitMs: { none: round1(none), enqueue: round1(median(times.enqueue)), launch: round1(median(times.launch)) },
      addedMs: { enqueue: round1(median(times.enqueue) - none), launch: round1(median(times.launch) - none) },
      targetMs: 30,
    }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${JSON.stringify(await run(process.argv.slice(2)), null, 2)}\n`)
}
