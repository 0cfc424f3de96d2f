/**
 * A warm process's first query of each kind costs several times a later one: it opens what the
 * index opens lazily (BM25's file table and dictionary index, the term associations, the symbol
 * table's and the graph's tables) and runs code not compiled yet. Linux full, load 7: the first refs
 * took 200 ms and the first search 380-470 ms, the next ones 25 and 30-70 ms. So the daemon asks one
 * of each itself once the index is loaded, before it answers a client (the first client waits for
 * the load anyway), and the MCP server does while its agent has not asked anything yet.
 *
 * The questions name a symbol the index defines (a search for it runs the BM25, code-view and
 * symbol paths alike), offline: no embedding provider, no language model, no language server.
 */
import type { QueryContext } from './context.js'
import { findDefinitions } from './def.js'
import { findReferences } from './refs.js'
import { searchCode } from './search/index.js'

/** Code files looked at for a defined name: the first few normally have one. */
const FILES_TRIED = 50

export async function warmUp(qctx: QueryContext): Promise<void> {
  const name = definedName(qctx)
  if (name === undefined) return
  await searchCode(qctx, name, { provider: null, rerank: 'offline' })
  findDefinitions(qctx, name)
  findReferences(qctx, name)
}

/** A name defined in one of the first indexed code files, if any (text files define none). */
function definedName(qctx: QueryContext): string | undefined {
  let tried = 0
  for (const { path, language } of qctx.files.values()) {
    if (language === 'text') continue
    const name = qctx.aggregates.symbols.definitions(path)[0]?.name
    if (name) return name
    if (++tried === FILES_TRIED) return undefined
  }
  return undefined
}
