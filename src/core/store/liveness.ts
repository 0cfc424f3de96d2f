import { readFileSync } from 'node:fs'

/**
 * When the process started, in clock ticks since boot (Linux `/proc/<pid>/stat` field 22), or
 * undefined where /proc is unavailable. A pid plus its start time names one process for good, so a
 * lock left by a dead process is not mistaken for a live one that later got the same pid.
 */
export function processStartTicks(pid: number): string | undefined {
  const stat = procStat(pid)
  return stat?.[19]
}

/**
 * Whether `pid` is a running process on this host (and, when `startTicks` is known, the same
 * process that recorded it). Zombies count as dead: they will never release anything.
 */
export function isProcessAlive(pid: number, startTicks?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  const stat = procStat(pid)
  if (!stat) return true
  if (stat[0] === 'Z' || stat[0] === 'X') return false
  return startTicks === undefined || stat[19] === startTicks
}

/**
 * Whether `pid` is stopped (SIGSTOP, Ctrl-Z, a debugger): alive, so its locks are not stale, but
 * it will do nothing until someone resumes it. False where /proc is unavailable (not knowable).
 */
export function isProcessStopped(pid: number): boolean {
  const state = Number.isInteger(pid) && pid > 0 ? procStat(pid)?.[0] : undefined
  return state === 'T' || state === 't'
}

/** Fields of /proc/<pid>/stat after the command name, starting with the state (field 3). */
function procStat(pid: number): string[] | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1')
  } catch {
    return undefined
  }
  // The command name is parenthesised and may itself contain spaces and parentheses.
  return text.slice(text.lastIndexOf(')') + 2).split(' ')
}
