/**
 * The oracle context (seed 001 OracleContext) one repository clone keeps per name — shared by
 * `git vlt oracle`, the MCP server and the web app: what earlier questions and tool calls found,
 * the decisions stated, a compressed summary, persisted as records in `.vlt/contexts/`.
 */
export {
  contextBudget,
  contextTtlDays,
  Conversation,
  currentContextName,
  decisionsIn,
  deleteContext,
  DEFAULT_CONTEXT,
  listContexts,
  removeExpiredContexts,
  setCurrentContext,
  type ContextListing,
  type ConversationState,
  type Decision,
  type Exchange,
  type NewExchange,
} from './conversation.js'
export { ExtractiveCompressor, LlmCompressor, type Compressor } from './compression.js'
export { chooseCompressor, openContext, validateContextName, type ContextChoice } from './open.js'
export { contextBlock, exchangeCitation, isRecallQuestion, recallAnswer } from './recall.js'
