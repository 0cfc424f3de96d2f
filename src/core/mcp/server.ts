/**
 * `git vlt mcp`: the repository's index served to AI agents over MCP. One warm query context per
 * server, refreshed just in time; the oracle context the CLI continues (`.vlt/contexts/`), unless
 * VLT_MCP_CONTEXT names another (ask_oracle may name one per call). Logs go to `log` (stderr):
 * stdout carries JSON-RPC only.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { contextTtlDays, currentContextName, openContext, removeExpiredContexts, validateContextName, type Conversation } from '../conversation/index.js'
import { registerOracleTool } from './oracle-tool.js'
import { registerVltTool, type McpToolEnv } from './tool-kit.js'
import { maxOutputTokens, vltTools } from '../tools/index.js'
import { warmUp } from '../query/warm-up.js'
import { WarmIndex } from './warm-index.js'

export const CLIENT_ID_ENV = 'VLT_MCP_CLIENT_ID'
/** Names the oracle context this server continues (default: the CLI's current one). */
export const CONTEXT_ENV = 'VLT_MCP_CONTEXT'

export interface VltMcpOptions {
  cwd: string
  version: string
  /** Cap of one tool answer in tokens (default from VLT_MCP_MAX_TOKENS, else 20,000). */
  maxTokens?: number
  env?: NodeJS.ProcessEnv
  log: (line: string) => void
}

export interface VltMcp {
  server: McpServer
  index: WarmIndex
  /** Saves the conversation context and stops watching the working tree. */
  close(): Promise<void>
}

export async function createVltMcp(options: VltMcpOptions): Promise<VltMcp> {
  const env = options.env ?? process.env
  const log = options.log
  const maxTokens = maxOutputTokens(options.maxTokens, env)
  const ttlDays = contextTtlDays(env)
  const named = env[CONTEXT_ENV] ? validateContextName(env[CONTEXT_ENV]) : undefined
  const index = await WarmIndex.open(options.cwd, { warn: log, env })
  const vltDir = index.repo.vltDir
  const expired = await removeExpiredContexts(vltDir, ttlDays, Date.now(), named ?? (await currentContextName(vltDir)))
  if (expired > 0) log(`removed ${expired} conversation context(s) idle for more than ${ttlDays} day(s)`)

  const server = new McpServer(
    { name: 'git-vlt', version: options.version },
    { instructions: 'Code index of this git repository (HEAD plus uncommitted edits). Every result carries freshness; a cursor pages on.' },
  )
  /** Open contexts by name: the server's own, and any an ask_oracle call named. */
  const conversations = new Map<string, Promise<Conversation>>()
  const clientId = (): string => env[CLIENT_ID_ENV] || server.server.getClientVersion()?.name || 'default'
  const open = (name: string | undefined): Promise<Conversation> => {
    const key = name ?? ''
    let opened = conversations.get(key)
    if (!opened) {
      opened = openContext(vltDir, index.root, { name, warn: log, env }).catch((error: unknown) => {
        conversations.delete(key)
        throw error
      })
      conversations.set(key, opened)
    }
    return opened
  }
  const toolEnv: McpToolEnv = {
    index,
    maxTokens,
    clientId,
    warn: log,
    conversation: (name) => open(name ?? named),
  }
  for (const spec of vltTools(toolEnv)) registerVltTool(server, toolEnv, spec)
  registerOracleTool(server, toolEnv)
  server.server.onerror = (error) => log(`mcp: ${error.message}`)

  // Load the index and ask it one question of each kind (query/warm-up.ts) while the agent has not asked
  // anything yet: its first call then costs what later ones do. A failure is met again by that call.
  void index
    .get()
    .then(warmUp)
    .catch((error: unknown) => log(`warning: the index is not ready: ${(error as Error).message}`))

  return {
    server,
    index,
    async close() {
      index.close()
      for (const opened of conversations.values()) await (await opened.catch(() => undefined))?.flush()
    },
  }
}
