import { Args, Flags } from '@oclif/core'
import { terminalProgress } from '../../core/cli/progress.js'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { openQueryContext } from '../../core/query/context.js'
import { DEFAULT_REFS_LIMIT, findReferences, type Reference, type RefsResult } from '../../core/query/refs.js'

export default class CoderagRefs extends VltCommand {
  static override summary = 'Show the uses of a symbol: calls, reads, type references, imports.'
  static override description =
    'SYMBOL is resolved as by `def`; its uses are resolved through imports, receivers and scopes, so that a same-named but unrelated symbol is not reported. ' +
    'Uses that could be of either are listed separately as ambiguous. Definitions are not references (see `def`). ' +
    'Results come in pages of --limit; pass the printed cursor as --cursor for the next one.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> authenticate_user', description: 'Uses of a function.' },
    {
      command: '<%= config.bin %> <%= command.id %> UserService.login --json',
      description: 'Print {symbol, definitions, references: [{path, line, column, context, enclosing}], ambiguous?, mentions, cursor?, suggestions?, freshness}.',
    },
  ]
  static override args = {
    symbol: Args.string({ description: 'name, Class.method, module.name or path:name', required: true }),
  }
  static override flags = {
    limit: Flags.integer({ description: 'At most this many references per page.', default: DEFAULT_REFS_LIMIT, min: 1 }),
    cursor: Flags.string({ description: 'Continue after the page that printed this cursor.' }),
  }

  async run(): Promise<RefsResult> {
    const { args, flags } = await this.parse(CoderagRefs)
    const qctx = await openQueryContext(this.workDir(flags), {
      progress: this.jsonEnabled() ? undefined : terminalProgress(),
      warn: (message) => this.note(message),
    })
    const result = findReferences(qctx, args.symbol, { limit: flags.limit, cursor: flags.cursor })
    if (result.definitions.length === 0 && result.references.length === 0) {
      const hint = result.suggestions?.length ? ` — did you mean ${result.suggestions.join(', ')}?` : ''
      this.log(`No references to ${args.symbol}${hint}`)
      return result
    }
    const line = (ref: Reference): string => `${ref.path}:${ref.line}:${ref.column + 1}  ${ref.context}${ref.enclosing ? `  (in ${ref.enclosing})` : ''}`
    for (const ref of result.references) this.log(line(ref))
    if (result.ambiguous) {
      this.log(`\nAmbiguous (may be another ${args.symbol}):`)
      for (const ref of result.ambiguous) this.log(line(ref))
    }
    if (result.cursor) this.log(`\nMore: --cursor ${result.cursor}`)
    return result
  }
}
