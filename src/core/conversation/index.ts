/**
 * The conversation context an MCP client or the web app (`git vlt ui`) keeps with a repository:
 * what earlier questions and tool calls found, persisted in `.vlt/mcp/contexts/<client>.json`.
 */
export { contextBudget, contextTtlDays, Conversation, removeExpiredContexts, type Exchange, type NewExchange } from './conversation.js'
export { ExtractiveCompressor, LlmCompressor, type Compressor } from './compression.js'
