/**
 * LSP enrichment (US4 AS3): the hover type of a definition and the diagnostics of cited files,
 * from the language servers the user has installed, started lazily, kept by long-lived callers
 * (pool.ts) and time-boxed per query (session.ts).
 */
import { promises as fs } from 'node:fs'
import { join } from 'node:path'
import type { LanguageId } from '../parse/types.js'
import { LspServers } from './pool.js'
import { LspSession, type Diagnostic, type LspOptions } from './session.js'

export { LspSession, type Diagnostic, type LspOptions } from './session.js'
export { LspServers } from './pool.js'
export { LspConnection, LspError } from './connection.js'

/** How a query uses language servers: those a daemon or MCP server keeps (`servers`), else its own for this call. */
export interface LspUse extends LspOptions {
  /** The repository's working tree. */
  root: string
  servers?: LspServers
}

/** Runs `work` in a session of the kept servers, or of servers started for it and killed after. */
async function inSession<T>(use: LspUse, work: (session: LspSession) => Promise<T>): Promise<T> {
  const servers = use.servers ?? new LspServers(use.root)
  const session = new LspSession(servers, use)
  try {
    return await work(session)
  } finally {
    session.end()
    if (!use.servers) servers.close()
  }
}

/** What enrichment needs of a definition (src/core/query's Definition is one). */
export interface TypedDefinition {
  name: string
  path: string
  /** 1-based. */
  line: number
  type?: string
}

/**
 * Adds the language server's hover at each definition's name as its `type`, where none is known
 * yet (an imported SCIP index gives it first). Definitions a server cannot speak for keep none.
 */
export async function addHoverTypes(definitions: TypedDefinition[], languageOf: (path: string) => LanguageId | undefined, use: LspUse): Promise<void> {
  const wanted = definitions.filter((d) => d.type === undefined && languageOf(d.path) !== undefined)
  if (wanted.length === 0) return
  await inSession(use, async (session) => {
    for (const definition of wanted) {
      const column = await nameColumn(use.root, definition)
      if (column === undefined) continue
      const type = await session.hover(definition.path, languageOf(definition.path)!, definition.line, column)
      if (type !== undefined) definition.type = type
    }
  })
}

/** Where the name starts on its definition's line (a definition records its line, not its column). */
async function nameColumn(root: string, definition: TypedDefinition): Promise<number | undefined> {
  const text = await fs.readFile(join(root, definition.path), 'utf8').catch(() => null)
  const line = text?.split('\n')[definition.line - 1]
  if (line === undefined) return undefined
  const match = new RegExp(`(?<![\\w$])${definition.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$])`).exec(line)
  return match?.index
}

/** The diagnostics language servers publish for these files of the working tree (the oracle's cited files). */
export async function diagnosticsOf(files: Array<{ path: string; language: LanguageId }>, use: LspUse): Promise<Diagnostic[]> {
  if (files.length === 0) return []
  return inSession(use, (session) => session.diagnostics(files))
}

/** A diagnostic as compilers print it: `path:line:column: severity: message (source)`, the message's first line. */
export function diagnosticLine(d: Diagnostic): string {
  return `${d.path}:${d.line}:${d.column + 1}: ${d.severity}: ${d.message.split('\n')[0]}${d.source ? ` (${d.source})` : ''}`
}

/** The code files cited by evidence located as `path:line` or `path:start-end`, with their languages; each once. */
export function citedCodeFiles(sources: Array<{ sourceType: string; sourcePath: string }>, languageOf: (path: string) => LanguageId | undefined): Array<{ path: string; language: LanguageId }> {
  const files = new Map<string, LanguageId>()
  for (const source of sources) {
    if (source.sourceType !== 'code') continue
    const path = source.sourcePath.replace(/:\d+(?:-\d+)?$/, '')
    const language = languageOf(path)
    if (language !== undefined) files.set(path, language)
  }
  return [...files].map(([path, language]) => ({ path, language }))
}
