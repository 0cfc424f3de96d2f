/**
 * A query answered in this process, as a query command does when no daemon serves it: the oclif
 * command (query-command.ts) and bin/run.js's fast path (fast-query.ts) both call this, so that
 * they answer alike. The query modules are imported here, on first use: a query a daemon serves
 * never loads them.
 */
import type { OpenedRepo } from '../git/working-tree.js'
import { answerRebuildingDamage } from '../index/damage.js'
import type { Progress } from './progress.js'
import type { QueryName, QueryParams, QueryResults } from './queries.js'

export interface InProcessIo {
  /** A line for stderr, or nothing (`--json`): warnings, notes. */
  note(message: string): void
  /** The just-in-time sync's progress (a terminal's only). */
  progress?: Progress
}

/** Opens HEAD's query context (synced first) and runs the query; damage found after loading is rebuilt and the query run again. */
export async function answerInProcess<N extends QueryName>(name: N, params: QueryParams[N], cwd: string, io: InProcessIo): Promise<QueryResults[N]> {
  // git reads the working tree (the sync's `git status`, ~0.3 s on Linux's 78k files) while the
  // query modules load; an answer run again after damage opens the repository afresh.
  let early: Promise<OpenedRepo> | undefined = import('../git/working-tree.js').then(({ openRepoReading }) => openRepoReading(cwd, true))
  early.catch(() => {})
  return answerRebuildingDamage(async () => {
    const opened = early
    early = undefined
    const [{ openQueryContext }, { QUERIES }] = await Promise.all([import('../query/context.js'), import('./queries.js')])
    const indexWarnings: string[] = []
    const qctx = await openQueryContext(cwd, {
      ...(opened ? { opened } : {}),
      progress: io.progress,
      warn: (message) => {
        indexWarnings.push(message)
        io.note(message)
      },
    })
    return QUERIES[name](qctx, params, { note: io.note, indexWarnings, progress: io.progress })
  })
}
