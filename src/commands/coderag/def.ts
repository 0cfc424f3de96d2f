import { Args, Flags } from '@oclif/core'
import { defCli } from '../../core/cli/query-cli.js'
import { QueryCommand } from '../../core/cli/query-command.js'
import { DEFAULT_DEF_LIMIT, type DefResult } from '../../core/query/def.js'

export default class CoderagDef extends QueryCommand {
  static override summary = 'Show where a symbol is defined, best match first.'
  static override description =
    'SYMBOL is a name (`authenticate_user`), a qualified name (`UserService.login`, `Foo::bar`), a module-qualified name (`app.auth.login`) or `path:name`. ' +
    'The qualified name typed beats a bare-name match; definitions beat declarations and prototypes; code beats tests; then PageRank; then the shorter path. ' +
    'An unknown symbol is not an error: the list is empty and the closest defined names are suggested. ' +
    'Each definition says its precision: "scip" when an imported SCIP index (`coderag scip`) is fresh for its file and agrees, with the indexer\'s `type`; else "syntactic". A definition only that index knows (a constructor\'s parameter property) is listed too, in a fresh file.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> UserService.login', description: 'Definitions of a method.' },
    { command: '<%= config.bin %> <%= command.id %> UserService.login --lsp', description: "With the language server's type of each definition." },
    {
      command: '<%= config.bin %> <%= command.id %> src/auth.py:login --json',
      description: 'Print {symbol, definitions: [{name, qualifiedName, kind, path, line, endLine, signature, precision: "scip"|"syntactic", type?}], total, suggestions?, freshness}.',
    },
  ]
  static override args = {
    symbol: Args.string({ description: 'name, Class.method, module.name or path:name', required: true }),
  }
  static override flags = {
    lsp: Flags.boolean({
      description: "Add the hover type of each definition from the installed language server (typescript-language-server, pyright-langserver, gopls, rust-analyzer, clangd; never the repository's), within [lsp] timeout_ms. On by default with [lsp] enabled = true in your config.",
    }),
    limit: Flags.integer({ description: 'At most this many definitions.', default: DEFAULT_DEF_LIMIT, min: 1 }),
  }

  async run(): Promise<DefResult> {
    const { args, flags } = await this.parse(CoderagDef)
    return this.query('def', defCli, args, flags)
  }
}
