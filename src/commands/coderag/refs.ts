import { Args, Flags } from '@oclif/core'
import { QueryCommand, type Rendering } from '../../core/cli/query-command.js'
import { DEFAULT_REFS_LIMIT, type Reference, type RefsResult } from '../../core/query/refs.js'

export default class CoderagRefs extends QueryCommand {
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
    return this.query('refs', { symbol: args.symbol, limit: flags.limit, cursor: flags.cursor }, flags, (result) => render(args.symbol, result))
  }
}

function render(symbol: string, result: RefsResult): Rendering {
  if (result.definitions.length === 0 && result.references.length === 0) {
    const hint = result.suggestions?.length ? ` — did you mean ${result.suggestions.join(', ')}?` : ''
    return { stdout: [`No references to ${symbol}${hint}`] }
  }
  const line = (ref: Reference): string => `${ref.path}:${ref.line}:${ref.column + 1}  ${ref.context}${ref.enclosing ? `  (in ${ref.enclosing})` : ''}`
  const lines = result.references.map(line)
  if (result.ambiguous) lines.push(`\nAmbiguous (may be another ${symbol}):`, ...result.ambiguous.map(line))
  if (result.cursor) lines.push(`\nMore: --cursor ${result.cursor}`)
  return { stdout: lines }
}
