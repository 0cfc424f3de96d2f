import { VltError } from '../errors.js'
import { askDaemon } from '../daemon/client.js'
import { answerInProcess } from './in-process-query.js'
import { terminalProgress } from './progress.js'
import type { QueryName, QueryResults } from './queries.js'
import type { QueryCli } from './query-cli.js'
import { VltCommand } from './vlt-command.js'

/**
 * Base of the query commands (search, def, refs, map). A query is answered by the repository's
 * daemon when one is running (see src/core/daemon), else in process — after which a daemon is
 * started for the next query. Both paths compute with the same function (src/core/cli/queries.ts)
 * and print through the same renderer (src/core/cli/query-cli.ts), so output, `--json` and exit
 * codes are the same. bin/run.js answers the plain forms of these commands without loading oclif at
 * all (fast-query.ts), the same way; this class serves the rest (`--cwd`, help, what that parser
 * leaves to oclif).
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
      result = await answerInProcess(name, params, cwd, { note: (message) => this.note(message), progress: this.jsonEnabled() ? undefined : terminalProgress() })
      await outcome.launch?.((message) => this.note(message))
    }
    const rendering = cli.render(params, result)
    for (const line of rendering.stdout) this.log(line)
    for (const line of rendering.stderr ?? []) this.note(line)
    return result
  }
}
