/**
 * Issue 6's end-to-end figure: from `git commit` of a one-file change, with the hooks installed
 * and a commit policy that makes one file due at once (`file_threshold = 1`), to the index
 * holding the new tree — hook, queue, detached background `coderag sync --queued`, incremental
 * build. Target ≤ 1 s. Measured on the corpora of bench/corpus.ts (hooks removed afterwards).
 */
import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { corpus, git, type CorpusName } from './corpus.js'

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'run.js')
const ROUNDS = 5

function vlt(cwd: string, ...args: string[]): string {
  return execFileSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, CI: '1' } })
}

/** Waits until the background indexer started after `since` has finished; returns when it did. */
async function indexerFinished(dir: string, since: number): Promise<number> {
  const state = join(dir, '.vlt', 'queue', 'indexer-state.json')
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (existsSync(state)) {
      const value = JSON.parse(readFileSync(state, 'utf8')) as { finishedAt: string | null; startedAt: string; lastResult: string | null; lastError: string | null }
      if (value.finishedAt && Date.parse(value.startedAt) >= since - 5) {
        if (value.lastResult !== 'ok') throw new Error(`background indexer failed: ${value.lastError}`)
        return Date.parse(value.finishedAt)
      }
    }
    await sleep(5)
  }
  throw new Error('the background indexer did not finish within 60 s')
}

async function benchCorpus(name: CorpusName) {
  const dir = corpus(name)
  const base = git(dir, 'rev-parse', 'HEAD').trim()
  git(dir, 'reset', '-q', '--hard', base)
  vlt(dir, 'coderag', 'sync')
  const policy = join(dir, 'vlt.toml')
  writeFileSync(policy, '[coderag.delta]\nfile_threshold = 1\n')
  // The untracked vlt.toml is part of the working tree: index it once so rounds measure only the commit.
  vlt(dir, 'coderag', 'sync')
  vlt(dir, 'hooks', 'install')
  const files = git(dir, 'ls-files').split('\n').filter(Boolean)
  const rounds: Array<{ commitMs: number; toIndexedMs: number }> = []
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const victim = files[Math.floor((files.length * (round + 1)) / (ROUNDS + 1))]!
      appendFileSync(join(dir, victim), name === 'django' ? `\n\ndef vlt_commit_bench_${round}(x):\n    return x\n` : `\nint vlt_commit_bench_${round}(int x) { return x; }\n`)
      const started = Date.now()
      git(dir, 'commit', '-q', '-am', `bench: one-file change ${round}`)
      const committed = Date.now()
      const finished = await indexerFinished(dir, started)
      const status = JSON.parse(vlt(dir, 'coderag', 'status', '--json')) as { treeHash: string }
      if (status.treeHash !== git(dir, 'rev-parse', 'HEAD^{tree}').trim()) throw new Error('the index does not hold the new tree')
      rounds.push({ commitMs: committed - started, toIndexedMs: finished - started })
    }
  } finally {
    vlt(dir, 'hooks', 'uninstall')
    rmSync(policy, { force: true })
    git(dir, 'reset', '-q', '--hard', base)
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  return {
    corpus: name,
    files: files.length,
    rounds,
    gitCommitMsMedian: median(rounds.map((r) => r.commitMs)),
    commitToIndexedMsMedian: median(rounds.map((r) => r.toIndexedMs)),
  }
}

export async function run(args: string[]): Promise<unknown> {
  const names = (args.length ? args : ['django', 'linux10k']) as CorpusName[]
  const results = []
  for (const name of names) results.push(await benchCorpus(name))
  return { machine: `${process.platform} ${process.arch}, node ${process.version}`, target: 'commit to updated index ≤ 1000 ms', results }
}
