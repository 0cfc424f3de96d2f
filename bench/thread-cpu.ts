/**
 * `node --import tsx bench/thread-cpu.ts <command> [args…]`: where a command's CPU goes, thread by
 * thread: user + system seconds of every thread of the process and of its direct children (git),
 * read from /proc/<pid>/task/<tid>/stat every 200 ms while it runs, the last reading of each thread
 * kept. Node names none of its threads, so they are told apart by when they ran and how much: the
 * main thread is the process's own id; V8's platform threads (GC helpers, the optimising compiler)
 * and libuv's pool start with the process; worker threads start later. /usr/bin/time gives the
 * total only; a CPU profile gives JavaScript's share of each thread, not the compiler's or the GC
 * helpers'. A thread that ends between two readings loses up to 200 ms. Linux only.
 */
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

interface ThreadCpu {
  pid: number
  tid: number
  /** user + system seconds at the last reading. */
  cpuS: number
  /** Seconds from the command's start to the first and last reading that saw the thread. */
  firstS: number
  lastS: number
}

const SAMPLE_MS = 200
const TICKS_PER_SECOND = 100

/** User + system seconds of a thread so far; undefined once it is gone. */
function cpuOf(pid: number, tid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    // Fields after the command name, which may hold spaces and parentheses: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

function sample(root: number, startedMs: number, threads: Map<string, ThreadCpu>): void {
  const atS = (Date.now() - startedMs) / 1000
  for (const pid of [root, ...childrenOf(root)]) {
    let tids: string[]
    try {
      tids = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tids) {
      const cpuS = cpuOf(pid, tid)
      if (cpuS === undefined) continue
      const key = `${pid}/${tid}`
      const known = threads.get(key)
      if (known) Object.assign(known, { cpuS, lastS: atS })
      else threads.set(key, { pid, tid: Number(tid), cpuS, firstS: atS, lastS: atS })
    }
  }
}

async function threadCpu(command: string[]): Promise<{ wallS: number; threads: ThreadCpu[] }> {
  const startedMs = Date.now()
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'ignore', 'inherit'] })
  const threads = new Map<string, ThreadCpu>()
  const timer = setInterval(() => sample(child.pid!, startedMs, threads), SAMPLE_MS)
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  clearInterval(timer)
  if (code !== 0) throw new Error(`${command.join(' ')} exited ${code}`)
  return { wallS: (Date.now() - startedMs) / 1000, threads: [...threads.values()].sort((a, b) => b.cpuS - a.cpuS) }
}

const command = process.argv.slice(2)
if (command.length === 0) throw new Error('usage: thread-cpu.ts <command> [args…]')
const { wallS, threads } = await threadCpu(command)
const total = threads.reduce((sum, thread) => sum + thread.cpuS, 0)
for (const thread of threads.filter((t) => t.cpuS >= 0.1)) {
  const role = thread.tid === thread.pid ? 'main' : ''
  process.stdout.write(`${`${thread.pid}/${thread.tid}`.padEnd(14)} ${thread.cpuS.toFixed(2).padStart(7)} s  ${thread.firstS.toFixed(1)}-${thread.lastS.toFixed(1)} s  ${role}\n`)
}
process.stdout.write(`wall ${wallS.toFixed(1)} s, ${total.toFixed(1)} CPU-s in ${threads.length} threads\n`)
