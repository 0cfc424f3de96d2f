/**
 * bin/run.js's way around oclif for the commands agents and git hooks run all the time: loading
 * @oclif/core costs ~70 ms, often more than the command itself. Each fast path takes only the forms
 * it serves exactly as the oclif command would and returns false for anything else.
 */
import { daemonDisabledByEnv } from '../daemon/env.js'
import { plainRepoLocation, type DaemonLocation } from '../daemon/locate.js'
import { reportCommandError } from './plain-output.js'
import { QUERY_CLIS } from './query-cli.js'

/**
 * Runs `argv` and returns true when a fast path serves it; false leaves it to oclif. A bug is
 * reported in one line, as the oclif command would (VltCommand): the fast paths take `--json`
 * only as a flag of their own.
 */
export async function tryFastPath(argv: readonly string[]): Promise<boolean> {
  if (argv[0] !== 'coderag' || argv[1] === undefined) return false
  // As oclif does: a reader that stops early (`| head`) is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
  })
  try {
    if (argv[1] === 'sync') return await (await import('./fast-sync.js')).tryFastSync(argv)
    if (Object.hasOwn(QUERY_CLIS, argv[1])) {
      const located = locateForDaemon()
      return await (await import('./fast-query.js')).tryFastQuery(argv, located)
    }
  } catch (error) {
    reportCommandError(`coderag ${argv[1]}`, error, true, argv.includes('--json'))
    return true
  }
  return false
}

/**
 * Where the repository is, for the daemon's socket: found by looking for `.git` when the repository
 * is a plain one (daemon/locate.ts), else asked of git (`rev-parse`, ~5-10 ms) while the query
 * path's modules load, rather than after. Undefined when no daemon is to be asked; a failure is the
 * client's to meet (it then answers in process, which reports it).
 */
function locateForDaemon(): Promise<DaemonLocation> | undefined {
  if (daemonDisabledByEnv()) return undefined
  const plain = plainRepoLocation(process.cwd())
  if (plain) return Promise.resolve(plain)
  const located = import('../git/repo.js').then(({ locateRepo }) => locateRepo(process.cwd()))
  located.catch(() => {})
  return located
}
