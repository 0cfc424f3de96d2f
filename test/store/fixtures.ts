import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { once } from 'node:events'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures')

/** Runs test/store/fixtures/<name>.ts in its own node process (through tsx, like mocha). */
export function spawnFixture(name: string, args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, ['--import', 'tsx', join(FIXTURES, `${name}.ts`), ...args], { stdio: 'pipe' })
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  return child
}

/** Resolves with the first stdout line matching `pattern`; rejects if the child exits first. */
export function waitForLine(child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = ''
    let stderr = ''
    const onData = (text: string) => {
      buffered += text
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      const hit = lines.find((line) => pattern.test(line))
      if (hit !== undefined) {
        cleanup()
        resolve(hit)
      }
    }
    const onErr = (text: string) => {
      stderr += text
    }
    const onExit = (code: number | null, signal: string | null) => {
      cleanup()
      reject(new Error(`fixture exited (${code ?? signal}) before printing ${pattern}\n${stderr}`))
    }
    const cleanup = () => {
      child.stdout.off('data', onData)
      child.stderr.off('data', onErr)
      child.off('exit', onExit)
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onErr)
    child.on('exit', onExit)
  })
}

/** Waits until the child has exited and been reaped; returns how it ended. */
export async function exited(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode }
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null]
  return { code, signal }
}
