import { VltError } from '../errors.js'
import { answerRebuildingDamage } from '../index/damage.js'
import { askDaemon } from '../daemon/client.js'
import { terminalProgress } from './progress.js'
import type { QueryName, QueryParams, QueryResults } from './queries.js'
import type { QueryCli } from './query-cli.js'
import { VltCommand } from './vlt-command.js'

/**
 * Base of the query commands (search, def, refs, map). A query is answered by the repository's
 * daemon when one is running (see src/core/daemon), else in process — after which a daemon is
 * started for the next query. Both paths compute with the same function (src/core/cli/queries.ts)
 * and print through the same renderer (src/core/cli/query-cli.ts), so output, `--json` and exit
 * codes are the same. bin/run.js asks a running daemon without loading oclif at all (fast-query.ts).
 *
 * The query modules are imported only for the in-process path: a served query loads little more
 * than oclif.
 */
export abstract class QueryCommand extends VltCommand {
  protected async query<N extends QueryName, A, F>(name: N, cli: QueryCli<N, A, F>, args: A, flags: F & { cwd?: string }): Promise<QueryResults[N]> {
    const cwd = this.workDir(flags)
    const params = cli.params(args, flags)
    const outcome = await askDaemon(cwd, name, params)
    let result: QueryResults[N]
    if (outcome.served) {
      for (const note of outcome.reply.notes) this.note(note)
      if (outcome.reply.type === 'error') throw new VltError(outcome.reply.message, outcome.reply.exitCode)
      result = outcome.reply.result as QueryResults[N]
    } else {
      result = await this.inProcess(name, params, cwd)
      await outcome.launch?.((message) => this.note(message))
    }
    const rendering = cli.render(params, result)
    for (const line of rendering.stdout) this.log(line)
    for (const line of rendering.stderr ?? []) this.note(line)
    return result
  }

  /** Damage found in what the query reads after loading: see answerRebuildingDamage. */
  private async inProcess<N extends QueryName>(name: N, params: QueryParams[N], cwd: string): Promise<QueryResults[N]> {
    return answerRebuildingDamage(() => this.answer(name, params, cwd))
  }

  private async answer<N extends QueryName>(name: N, params: QueryParams[N], cwd: string): Promise<QueryResults[N]> {
    const [{ openQueryContext }, { QUERIES }] = await Promise.all([import('../query/context.js'), import('./queries.js')])
    const progress = this.jsonEnabled() ? undefined : terminalProgress()
    const indexWarnings: string[] = []
    const note = (message: string): void => this.note(message)
    const qctx = await openQueryContext(cwd, {
      progress,
      warn: (message) => {
        indexWarnings.push(message)
        note(message)
      },
    })
    return QUERIES[name](qctx, params, { note, indexWarnings, progress })
  }
}
