/**
 * `git vlt mcp`: the repository's index served to AI agents over MCP. One warm query context per
 * server, refreshed just in time; one conversation context per client, persisted under `.vlt/`.
 * Logs go to `log` (stderr): stdout carries JSON-RPC only.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { loadConfig } from '../config/index.js'
import { contextBudget, contextTtlDays, Conversation, ExtractiveCompressor, LlmCompressor, removeExpiredContexts, type Compressor } from '../conversation/index.js'
import { VltError } from '../errors.js'
import { createLlmClient } from '../llm/index.js'
import { registerOracleTool } from './oracle-tool.js'
import { registerVltTool, type McpToolEnv } from './tool-kit.js'
import { maxOutputTokens, vltTools } from '../tools/index.js'
import { WarmIndex } from './warm-index.js'

export const CLIENT_ID_ENV = 'VLT_MCP_CLIENT_ID'

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
  const budget = contextBudget(env)
  const ttlDays = contextTtlDays(env)
  const index = await WarmIndex.open(options.cwd, { warn: log, env })
  const expired = await removeExpiredContexts(index.repo.vltDir, ttlDays)
  if (expired > 0) log(`removed ${expired} conversation context(s) idle for more than ${ttlDays} day(s)`)
  const compressor = await chooseCompressor(index.root, log)

  const server = new McpServer(
    { name: 'git-vlt', version: options.version },
    { instructions: 'Code index of this git repository (HEAD plus uncommitted edits). Every result carries freshness; a cursor pages on.' },
  )
  let conversation: Promise<Conversation> | undefined
  const clientId = (): string => env[CLIENT_ID_ENV] || server.server.getClientVersion()?.name || 'default'
  const toolEnv: McpToolEnv = {
    index,
    maxTokens,
    clientId,
    warn: log,
    conversation: () => {
      conversation ??= Conversation.open(index.repo.vltDir, clientId(), { budget, ttlDays, compressor, warn: log }).catch((error: unknown) => {
        conversation = undefined
        throw error
      })
      return conversation
    },
  }
  for (const spec of vltTools(toolEnv)) registerVltTool(server, toolEnv, spec)
  registerOracleTool(server, toolEnv)
  server.server.onerror = (error) => log(`mcp: ${error.message}`)

  // Warm the index before the first call needs it.
  index.get().catch((error: unknown) => log(`warning: the index is not ready: ${(error as Error).message}`))

  return {
    server,
    index,
    async close() {
      index.close()
      const open = await conversation?.catch(() => undefined)
      await open?.flush()
    },
  }
}

async function chooseCompressor(root: string, log: (line: string) => void): Promise<Compressor> {
  try {
    const client = createLlmClient((await loadConfig(root)).llm, { role: 'summarise' })
    return client ? new LlmCompressor(client, log) : new ExtractiveCompressor()
  } catch (error) {
    if (!(error instanceof VltError)) throw error
    log(`warning: ${error.message}; the conversation context is compressed extractively`)
    return new ExtractiveCompressor()
  }
}
