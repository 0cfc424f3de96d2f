/**
 * bin/run.js's way around oclif for the commands agents and git hooks run all the time: loading
 * @oclif/core costs ~70 ms, often more than the command itself. Each fast path takes only the forms
 * it serves exactly as the oclif command would and returns false for anything else.
 */
import { QUERY_CLIS } from './query-cli.js'

/** Runs `argv` and returns true when a fast path serves it; false leaves it to oclif. */
export async function tryFastPath(argv: readonly string[]): Promise<boolean> {
  if (argv[0] !== 'coderag' || argv[1] === undefined) return false
  // As oclif does: a reader that stops early (`| head`) is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
  })
  if (argv[1] === 'sync') return (await import('./fast-sync.js')).tryFastSync(argv)
  if (Object.hasOwn(QUERY_CLIS, argv[1])) return (await import('./fast-query.js')).tryFastQuery(argv)
  return false
}
