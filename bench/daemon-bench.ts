/**
 * `npm run bench -- daemon [warmRounds] [inProcessRounds]`: wall time of `git vlt coderag
 * search|def|refs` as a user's shell sees it (Node start-up included) on Linux 10k, answered by
 * the repository's warm daemon and in process (GIT_VLT_DAEMON=0), plus the very first call, which
 * runs in process and launches the daemon, and the floor of Node + oclif (`--version`).
 */
import { spawnSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { corpus } from './corpus.js'
import { percentiles, type Latency } from './defs-bench.js'

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'run.js')
const SEARCHES = ['allocate dma buffer', 'spin_lock_irqsave', 'where is kmalloc called when the device probes', 'reset the phy after the link goes down', 'parse device tree properties']
const SYMBOLS = ['kmalloc', 'mutex_lock', 'platform_get_irq', 'devm_kzalloc', 'schedule_work', 'copy_from_user']
const COMMANDS = {
  search: (i: number) => ['coderag', 'search', SEARCHES[i % SEARCHES.length]!, '--json'],
  def: (i: number) => ['coderag', 'def', SYMBOLS[i % SYMBOLS.length]!, '--json'],
  refs: (i: number) => ['coderag', 'refs', SYMBOLS[i % SYMBOLS.length]!, '--json'],
}
type CommandName = keyof typeof COMMANDS

function cli(dir: string, args: string[], daemon: boolean): { ms: number; stdout: string } {
  const started = process.hrtime.bigint()
  const child = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26, env: { ...process.env, CI: '1', GIT_VLT_DAEMON: daemon ? '1' : '0' } })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (child.status !== 0) throw new Error(`git vlt ${args.join(' ')} exited ${child.status}: ${child.stderr.trim().split('\n').slice(-3).join(' | ')}`)
  return { ms, stdout: child.stdout }
}

function served(dir: string): number | null {
  return (JSON.parse(cli(dir, ['daemon', 'status', '--json'], true).stdout) as { daemon: { served: number } | null }).daemon?.served ?? null
}

function measure(dir: string, rounds: number, daemon: boolean): Record<CommandName, Latency> {
  const out = {} as Record<CommandName, Latency>
  for (const name of Object.keys(COMMANDS) as CommandName[]) {
    const times: number[] = []
    for (let i = 0; i < rounds; i++) times.push(cli(dir, COMMANDS[name](i), daemon).ms)
    out[name] = percentiles(times)
  }
  return out
}

export async function run(args: string[]): Promise<unknown> {
  const warmRounds = Number(args[0] ?? 12)
  const inProcessRounds = Number(args[1] ?? 5)
  const dir = corpus('linux10k')
  const loadBefore = loadavg()[0]
  cli(dir, ['coderag', 'sync'], false)
  cli(dir, ['daemon', 'stop'], true)
  // The first call of a session: nobody is listening, so it runs in process and launches the daemon.
  const first = cli(dir, COMMANDS.search(0), true).ms
  const launched = Date.now()
  while (served(dir) === null) {
    if (Date.now() - launched > 60_000) throw new Error('the daemon did not come up within 60 s')
    await sleep(50)
  }
  // The first served query waits for the daemon to finish loading the index.
  const firstServed = cli(dir, COMMANDS.def(0), true).ms
  const readyMs = Date.now() - launched
  const servedBefore = served(dir)!
  const warm = measure(dir, warmRounds, true)
  const servedByDaemon = served(dir)! - servedBefore
  cli(dir, ['daemon', 'stop'], true)
  const inProcess = measure(dir, inProcessRounds, false)
  const floor = percentiles(Array.from({ length: 5 }, () => cli(dir, ['--version'], false).ms))
  return {
    corpus: 'linux10k',
    loadAverage: { before: +loadBefore.toFixed(2), after: +loadavg()[0]!.toFixed(2) },
    firstCall: { inProcessAndLaunchMs: Math.round(first), daemonLoadedAfterMs: readyMs, firstServedMs: Math.round(firstServed) },
    daemonWarm: { ...warm, servedByDaemon },
    inProcess: inProcess,
    nodeAndOclifFloor: floor,
    targetMs: 400,
  }
}
