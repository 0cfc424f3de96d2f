/**
 * Opening the oracle context a caller continues: the one named, else the current one (the CLI's
 * `--context`/`--new` move the pointer; the MCP server and the web app follow it), with the
 * configured model's summaries when an LLM is set up and extractive ones otherwise.
 */
import { loadConfig } from '../config/index.js'
import { UsageError, VltError } from '../errors.js'
import { createLlmClient } from '../llm/index.js'
import { unlessUnwritable } from '../store/index.js'
import { ExtractiveCompressor, LlmCompressor, type Compressor } from './compression.js'
import { contextBudget, contextTtlDays, Conversation, currentContextName, setCurrentContext } from './conversation.js'

export interface ContextChoice {
  /** A named context (created when new); default: the current one. */
  name?: string
  /** Start it afresh (`--new`). Without a name, a new one named after the time. */
  fresh?: boolean
  /** Make it the current one (the CLI does; the MCP server and the web app only follow). */
  makeCurrent?: boolean
  warn: (message: string) => void
  env?: NodeJS.ProcessEnv
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

export function validateContextName(name: string): string {
  if (!NAME.test(name)) throw new UsageError(`a context name is 1 to 64 letters, digits, '.', '_' or '-' (starting with a letter or digit), not ${JSON.stringify(name)}`)
  return name
}

export async function openContext(vltDir: string, root: string, choice: ContextChoice): Promise<Conversation> {
  const env = choice.env ?? process.env
  const name = choice.name !== undefined ? validateContextName(choice.name) : choice.fresh ? freshName() : await currentContextName(vltDir)
  const conversation = await Conversation.open(vltDir, name, {
    budget: contextBudget(env),
    ttlDays: contextTtlDays(env),
    compressor: await chooseCompressor(root, choice.warn),
    warn: choice.warn,
    fresh: choice.fresh,
  })
  // A `.vlt/` that cannot be written is told once by the command (store/fault.ts): the context then lives for this run only.
  if (choice.makeCurrent && name !== (await currentContextName(vltDir))) {
    await unlessUnwritable(() => setCurrentContext(vltDir, name)).catch((error: unknown) => choice.warn(`warning: could not make ${name} the current oracle context: ${(error as Error).message}`))
  }
  return conversation
}

/** `--new` without a name: one per minute is plenty for a person; a second in the same minute gets a suffix. */
function freshName(now = new Date()): string {
  return `ctx-${now.toISOString().slice(0, 16).replace(/[-:T]/g, '')}-${Math.random().toString(36).slice(2, 6)}`
}

/** The summarise role's model writes the summary when one is configured; the extractive compressor otherwise. */
export async function chooseCompressor(root: string, warn: (message: string) => void): Promise<Compressor> {
  try {
    const client = createLlmClient((await loadConfig(root)).llm, { role: 'summarise' })
    return client ? new LlmCompressor(client, warn) : new ExtractiveCompressor()
  } catch (error) {
    if (!(error instanceof VltError)) throw error
    warn(`warning: ${error.message}; the oracle context is compressed extractively`)
    return new ExtractiveCompressor()
  }
}
