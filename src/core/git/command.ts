import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { VltError } from '../errors.js'

/** A git command that exited non-zero; `status` is git's exit status, `stderr` its complaint. */
export class GitError extends VltError {
  constructor(
    readonly args: readonly string[],
    readonly status: number | null,
    readonly stderr: string,
  ) {
    super(`git ${subcommand(args)} failed: ${complaint(stderr) ?? `exit status ${status}`}`)
    this.name = 'GitError'
  }
}

export interface GitRun {
  cwd: string
  /** Written to stdin, then stdin is closed; without it stdin is /dev/null. */
  input?: string | Buffer
  /** Git may take optional locks: `git status` then refreshes .git/index (see gitEnv). */
  optionalLocks?: boolean
}

/**
 * Environment for every git child: messages in English because a few are matched
 * (e.g. "not a git repository"); output parsing never depends on the locale. No optional locks
 * unless asked: `git status` would refresh and rewrite .git/index, holding index.lock while it
 * runs (0.6 s on Linux), and a user's own `git add` or `commit` meanwhile (our hooks sync right
 * after theirs, agents run git beside our queries) would fail on the lock.
 */
export function gitEnv(optionalLocks = false): NodeJS.ProcessEnv {
  return optionalLocks ? { ...process.env, LC_ALL: 'C' } : { ...process.env, LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' }
}

export function spawnGit(args: readonly string[], cwd: string, stdin: 'pipe' | 'ignore', optionalLocks = false): ChildProcess {
  return spawn('git', args, { cwd, env: gitEnv(optionalLocks), stdio: [stdin, 'pipe', 'pipe'] })
}

/** Runs git to completion and returns its stdout; rejects with GitError on a non-zero exit. */
export function runGit(args: readonly string[], run: GitRun): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawnGit(args, run.cwd, run.input === undefined ? 'ignore' : 'pipe', run.optionalLocks)
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk))
    child.on('error', (error) => reject(spawnFailure(error, run.cwd)))
    child.on('close', (status) => {
      if (status === 0) resolve(Buffer.concat(out))
      else reject(new GitError(args, status, Buffer.concat(err).toString('utf8')))
    })
    if (run.input !== undefined) {
      // EPIPE when git exits without reading its input; the exit status tells the story.
      child.stdin!.on('error', () => {})
      child.stdin!.end(run.input)
    }
  })
}

/**
 * Runs git and hands its stdout to `onData` chunk by chunk as it comes (a whole `git log -p` of a
 * large history is tens of megabytes: parsed as it streams, it is never held at once). Resolves
 * when git exits 0; rejects with GitError otherwise, or with what `onData` threw (git is then killed).
 */
export function streamGit(args: readonly string[], run: GitRun, onData: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnGit(args, run.cwd, run.input === undefined ? 'ignore' : 'pipe', run.optionalLocks)
    const err: Buffer[] = []
    let failure: unknown
    child.stdout!.on('data', (chunk: Buffer) => {
      if (failure !== undefined) return
      try {
        onData(chunk)
      } catch (error) {
        failure = error
        child.kill()
      }
    })
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk))
    child.on('error', (error) => reject(spawnFailure(error, run.cwd)))
    child.on('close', (status) => {
      if (failure !== undefined) reject(failure)
      else if (status === 0) resolve()
      else reject(new GitError(args, status, Buffer.concat(err).toString('utf8')))
    })
    if (run.input !== undefined) {
      child.stdin!.on('error', () => {})
      child.stdin!.end(run.input)
    }
  })
}

/** Turns a failure to start git (not a failure of git) into one actionable line. */
export function spawnFailure(error: NodeJS.ErrnoException, cwd: string): VltError {
  if (error.code === 'ENOENT' && existsSync(cwd)) return new VltError('git was not found on PATH — git vlt needs git (2.31 or newer) installed')
  if (error.code === 'ENOENT') return new VltError(`directory does not exist: ${cwd}`)
  return new VltError(`could not run git: ${error.message}`)
}

function subcommand(args: readonly string[]): string {
  return args.find((arg) => !arg.startsWith('-')) ?? ''
}

/** git's first "fatal:"/"error:" line, else its first line. */
function complaint(stderr: string): string | undefined {
  const lines = stderr.split('\n').map((line) => line.trim()).filter(Boolean)
  const fatal = lines.find((line) => /^(fatal|error):/.test(line))
  return (fatal ?? lines[0])?.replace(/^(fatal|error):\s*/, '')
}

/** What `git --version` prints, e.g. "git version 2.39.5". */
export async function gitVersion(): Promise<string> {
  return (await runGit(['--version'], { cwd: process.cwd() })).toString('utf8').trim()
}
