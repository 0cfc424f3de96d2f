/**
 * Every tool answer is capped (MCP clients cut long tool output, Claude Code at 25,000 tokens,
 * and a cut the server did not choose loses the cursor). Items are fitted whole, in order; what
 * does not fit is left to the next page, reached with an opaque cursor.
 */
import { createHash } from 'node:crypto'
import { UsageError } from '../errors.js'
import { countTokens } from '../repomap/index.js'

export const DEFAULT_MAX_OUTPUT_TOKENS = 20_000
export const MAX_OUTPUT_TOKENS_ENV = 'VLT_MCP_MAX_TOKENS'
/** Below this an answer cannot hold one search result with its snippet. */
const MIN_OUTPUT_TOKENS = 500

export function maxOutputTokens(flag: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const raw = flag ?? (env[MAX_OUTPUT_TOKENS_ENV] ? Number(env[MAX_OUTPUT_TOKENS_ENV]) : DEFAULT_MAX_OUTPUT_TOKENS)
  if (!Number.isInteger(raw) || raw < MIN_OUTPUT_TOKENS) {
    throw new UsageError(`the MCP output cap must be an integer of at least ${MIN_OUTPUT_TOKENS} tokens, got ${JSON.stringify(flag ?? env[MAX_OUTPUT_TOKENS_ENV])}`)
  }
  return raw
}

/**
 * How many of `items` (taken from the front) fit in `budgetTokens`, given a fixed overhead.
 * An item is counted at its larger rendering (text or JSON), since a client may show either.
 * At least one item is kept so that a page always makes progress.
 */
export function fitItems<T>(items: readonly T[], render: (item: T) => string, overheadTokens: number, budgetTokens: number): number {
  let used = overheadTokens
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    used += Math.max(countTokens(render(item)), countTokens(JSON.stringify(item)))
    if (used > budgetTokens) return Math.max(1, i)
  }
  return items.length
}

export function cutNote(shown: number, total: number | string, cursor: string): string {
  return `Output capped: showing ${shown} of ${total}; call again with cursor "${cursor}" for more.`
}

/** Where a page starts, bound to the tool and the arguments it was made for. */
export interface PageCursor {
  tool: string
  /** Items of the underlying result already shown. */
  offset: number
  /** A cursor of the core function (find_references pages through files). */
  core?: string
  /** Tree the page was computed on: a later tree may order results differently. */
  tree: string
  args: string
}

export function argsKey(args: Record<string, unknown>): string {
  const { cursor: _ignored, ...rest } = args
  const sorted = Object.keys(rest).sort().map((key) => [key, rest[key]])
  return createHash('sha1').update(JSON.stringify(sorted)).digest('hex').slice(0, 12)
}

export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.tool, cursor.offset, cursor.core ?? '', cursor.tree.slice(0, 12), cursor.args])).toString('base64url')
}

export function decodeCursor(text: string, tool: string, args: string): PageCursor {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    parsed = undefined
  }
  if (!Array.isArray(parsed) || parsed.length !== 5 || typeof parsed[0] !== 'string' || !Number.isInteger(parsed[1]) || parsed[1] < 0) {
    throw new UsageError(`cursor ${JSON.stringify(text)} is not a cursor from a previous page`)
  }
  const [owner, offset, core, tree, key] = parsed as [string, number, string, string, string]
  if (owner !== tool) throw new UsageError(`cursor ${JSON.stringify(text)} belongs to ${owner}, not ${tool}`)
  if (key !== args) throw new UsageError(`cursor ${JSON.stringify(text)} was made for other arguments: repeat the call's arguments unchanged with the cursor`)
  return { tool, offset, core: core || undefined, tree, args: key }
}
