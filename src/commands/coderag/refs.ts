import { Args, Flags } from '@oclif/core'
import { refsCli } from '../../core/cli/query-cli.js'
import { QueryCommand } from '../../core/cli/query-command.js'
import { DEFAULT_REFS_LIMIT, type RefsResult } from '../../core/query/refs.js'

export default class CoderagRefs extends QueryCommand {
  static override summary = 'Show the uses of a symbol: calls, reads, type references, imports.'
  static override description =
    'SYMBOL is resolved as by `def`; its uses are resolved through imports, receivers and scopes, so that a same-named but unrelated symbol is not reported. ' +
    'Uses that could be of either are listed separately as ambiguous. Definitions are not references (see `def`). ' +
    'A page holds at most --limit references and at most --limit ambiguous uses: it ends before the first use that does not fit, so a name with many ambiguous uses answers fast. ' +
    'Pass the printed cursor as --cursor for the next page; the pages together list every use once, in the order one page without a limit would. ' +
    'In files an imported SCIP index (`coderag scip`) is fresh for, uses come from it (precision "scip", none ambiguous); elsewhere from our own resolution ("syntactic").'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> authenticate_user', description: 'Uses of a function.' },
    {
      command: '<%= config.bin %> <%= command.id %> UserService.login --json',
      description: 'Print {symbol, definitions, references: [{path, line, column, context, enclosing, precision: "scip"|"syntactic"}], ambiguous?, mentions, cursor?, suggestions?, freshness}.',
    },
  ]
  static override args = {
    symbol: Args.string({ description: 'name, Class.method, module.name or path:name', required: true }),
  }
  static override flags = {
    lsp: Flags.boolean({
      description: "Add the hover type of each definition from the installed language server (typescript-language-server, pyright-langserver, gopls, rust-analyzer, clangd; never the repository's), within [lsp] timeout_ms. On by default with [lsp] enabled = true in your config.",
    }),
    limit: Flags.integer({ description: 'At most this many references, and this many ambiguous uses, per page.', default: DEFAULT_REFS_LIMIT, min: 1 }),
    cursor: Flags.string({ description: 'Continue after the page that printed this cursor.' }),
  }

  async run(): Promise<RefsResult> {
    const { args, flags } = await this.parse(CoderagRefs)
    return this.query('refs', refsCli, args, flags)
  }
}
