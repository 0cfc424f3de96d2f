import { Flags } from '@oclif/core'
import { VltCommand } from '../core/cli/vlt-command.js'
import { createVltMcp } from '../core/mcp/server.js'
import { StdioJsonRpcTransport } from '../core/mcp/stdio-transport.js'

export default class Mcp extends VltCommand {
  static override summary = 'Serve the code index, threads and a shared conversation context to AI agents over MCP (stdio).'
  static override description = `Runs a Model Context Protocol server on stdin/stdout for the repository (the current one or --repo). \
Tools: search_code, find_definition, find_references, get_repo_map, search_notes, search_history, thread_push, thread_read. \
The index stays warm in memory and follows new commits and uncommitted edits.

The server continues the oracle context git vlt oracle continues (.vlt/contexts/; VLT_MCP_CONTEXT names another, \
ask_oracle takes a context argument): later calls resolve "it" to the symbol last discussed, lean search towards the files \
in play, and say what earlier exchanges established about a symbol. VLT_MCP_CLIENT_ID replaces the MCP client name \
as the author of thread entries and in the context.

Environment: VLT_MCP_MAX_TOKENS (answer cap, default 20000), VLT_MCP_CONTEXT (context name), VLT_MCP_CONTEXT_BUDGET (default 16000), \
VLT_MCP_CONTEXT_TTL_DAYS (default 7), VLT_MCP_CHECK_MS (change check interval when the working tree cannot be watched).`

  static override enableJsonFlag = false
  static override examples = [
    { command: 'claude mcp add --scope project vlt -- git vlt mcp', description: 'Register with Claude Code (writes .mcp.json).' },
    { command: '<%= config.bin %> <%= command.id %> --repo ~/src/app --max-tokens 8000', description: 'Serve another repository with smaller answers.' },
  ]

  static override flags = {
    repo: Flags.directory({ description: 'Repository to serve (default: the current directory).', exists: true }),
    'max-tokens': Flags.integer({ description: 'Cap of one tool answer, in tokens (characters / 4).', min: 500 }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Mcp)
    const log = (line: string): void => {
      process.stderr.write(`${line}\n`)
    }
    const mcp = await createVltMcp({ cwd: flags.repo ?? this.workDir(flags), version: this.config.version, maxTokens: flags['max-tokens'], log })
    const transport = new StdioJsonRpcTransport()
    const closed = new Promise<void>((resolve) => {
      mcp.server.server.onclose = resolve
      process.stdin.once('end', resolve)
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    await mcp.server.connect(transport)
    await closed
    await mcp.close()
    await mcp.server.close()
  }
}
