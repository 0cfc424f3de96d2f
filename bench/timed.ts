/**
 * One command under /usr/bin/time: wall seconds, CPU seconds (user + sys of it and its children:
 * worker threads, git) and peak resident memory. Asynchronous, so several can run at once (shards).
 */
import { spawn } from 'node:child_process'

export interface Timed {
  wallS: number
  cpuS: number
  peakRssMb: number
  stdout: string
}

export function timed(cmd: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Timed> {
  const started = process.hrtime.bigint()
  const child = spawn('/usr/bin/time', ['-f', '%U %S %M', ...cmd], { cwd, env })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      const wallS = Number(process.hrtime.bigint() - started) / 1e9
      if (code !== 0) return reject(new Error(`${cmd.join(' ')} in ${cwd} exited ${code}: ${stderr.trim().split('\n').slice(-4).join(' | ')}`))
      const [user, system, rssKb] = stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number]
      resolve({ wallS: Number(wallS.toFixed(3)), cpuS: Number((user + system).toFixed(2)), peakRssMb: Math.round(rssKb / 1024), stdout })
    })
  })
}
