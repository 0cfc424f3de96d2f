/**
 * Files laid over a stored symbol table and graph for queries (see overlaid-table.ts and
 * overlaid-graph.ts), and what materialising them means: the stored graph read with the whole
 * table as stored, then the files applied to the table and the graph patched, as a build patches
 * them. Whichever part first needs more than the view materialises both, once.
 */
import type { GraphFile } from './graph-file.js'
import { OverlaidGraph } from './overlaid-graph.js'
import { OverlaidTable, TableView, type LaidFiles } from './overlaid-table.js'
import type { SymbolsFile } from './symbols-file.js'

export type { LaidFiles } from './overlaid-table.js'

export interface LaidParts {
  symbols: OverlaidTable
  /** The graph, its stored file opened on first use (a lookup by name needs only the table). */
  graph(): OverlaidGraph
}

export function layOver(symbolsFile: SymbolsFile, openGraph: () => GraphFile, laid: LaidFiles): LaidParts {
  let graph: OverlaidGraph | undefined
  let materialized = false
  const view = new TableView(symbolsFile, laid, () => {
    if (materialized) return
    materialized = true
    table.dropView()
    const whole = graphOf()
    whole.dropView()
    // The stored graph describes the table as stored: read before the table changes.
    whole.load()
    for (const [path, content] of laid) {
      if (content) table.addFile(path, content)
      else table.removeFile(path)
    }
    whole.update(table.commit())
  })
  const table = new OverlaidTable(symbolsFile, view)
  const graphOf = (): OverlaidGraph => (graph ??= new OverlaidGraph(openGraph(), table, view))
  return { symbols: table, graph: graphOf }
}
