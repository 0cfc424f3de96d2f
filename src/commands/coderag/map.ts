import { Args, Flags } from '@oclif/core'
import { mapCli } from '../../core/cli/query-cli.js'
import { QueryCommand } from '../../core/cli/query-command.js'
import { DEFAULT_MAP_TOKENS, type RepoMap } from '../../core/repomap/index.js'

export default class CoderagMap extends QueryCommand {
  static override summary = 'Print a map of the repository: its most important files, classes and functions with their signatures.'
  static override description = `An Aider-style repository map of HEAD plus uncommitted edits (synced first): files, each
followed by the signatures of its definitions, nested by scope (methods under their class).
Definitions are ranked by PageRank over the graph of definitions and the references between
them; a SCOPE (a directory or path prefix) restricts the map to the files under it and
personalises the ranking towards them, and --focus does the same for files and symbols.

The map is fitted to --tokens (counted as characters / 4) by searching over how many of the
best definitions to show: it is never over budget.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'The whole repository in about 1024 tokens.' },
    { command: '<%= config.bin %> <%= command.id %> src/core --tokens 2048', description: 'Only src/core, in up to 2048 tokens.' },
    { command: '<%= config.bin %> <%= command.id %> --focus src/auth.py --focus UserService.login', description: 'Lean towards a file and a method and what surrounds them.' },
    {
      command: '<%= config.bin %> <%= command.id %> --json',
      description: 'Print {scope, tokens, files, symbolsIncluded, symbolsTotal, map, freshness: {treeHash, stale, overlayFiles}}.',
    },
  ]

  static override args = {
    scope: Args.string({ description: 'A directory or path prefix to map (default: the whole repository).' }),
  }

  static override flags = {
    tokens: Flags.integer({ char: 't', description: 'Token budget of the map.', default: DEFAULT_MAP_TOKENS, min: 1 }),
    focus: Flags.string({ char: 'f', description: 'A file path or symbol (`name`, `Class.method`, `path:name`) to lean towards; repeatable.', multiple: true }),
  }

  async run(): Promise<RepoMap> {
    const { args, flags } = await this.parse(CoderagMap)
    return this.query('map', mapCli, args, flags)
  }
}
