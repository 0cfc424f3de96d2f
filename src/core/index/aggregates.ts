/**
 * The per-tree aggregates: BM25 index, symbol table and code graph. One set per git tree; an
 * incremental build loads its parent tree's set, patches the changed paths, `finish()`es and
 * saves under the new tree (the parent's files are never rewritten).
 */
import { join } from 'node:path'
import { CodeGraph, SymbolTable } from '../graph/index.js'
import { Bm25Index } from '../search/index.js'
import { readRecord, writeRecord } from '../store/index.js'
import { CorruptFileError } from '../errors.js'
import type { BlobSummary } from './blob-task.js'

export const BM25_RECORD_KIND = 'bm25'
export const BM25_RECORD_VERSION = 1
export const SYMBOLS_RECORD_KIND = 'symbols'
export const SYMBOLS_RECORD_VERSION = 1
export const GRAPH_RECORD_KIND = 'graph'
export const GRAPH_RECORD_VERSION = 1

export type IndexedSummary = Extract<BlobSummary, { skipped?: undefined }>

export interface TreeAggregates {
  addFile(path: string, summary: IndexedSummary): void
  removeFile(path: string): void
  /** Resolves the imports and edges the changes affect and recomputes PageRank; once per build. */
  finish(): { edges: number }
  stats(): { edges: number; nodes: number; symbols: number }
  readonly bm25: Bm25Index
  readonly symbols: SymbolTable
  readonly graph: CodeGraph
}

class Aggregates implements TreeAggregates {
  constructor(readonly bm25: Bm25Index, readonly symbols: SymbolTable, readonly graph: CodeGraph) {}

  addFile(path: string, summary: IndexedSummary): void {
    this.bm25.addFile(path, summary.analyzed)
    this.symbols.addFile(path, summary)
  }

  removeFile(path: string): void {
    this.bm25.removeFile(path)
    this.symbols.removeFile(path)
  }

  finish(): { edges: number } {
    this.graph.update(this.symbols.commit())
    return { edges: this.graph.edgeCount }
  }

  stats(): { edges: number; nodes: number; symbols: number } {
    return { edges: this.graph.edgeCount, nodes: this.graph.nodeCount, symbols: this.symbols.symbolCount }
  }
}

export function createAggregates(): TreeAggregates {
  const symbols = new SymbolTable()
  return new Aggregates(new Bm25Index(), symbols, new CodeGraph(symbols))
}

function paths(treeDir: string): { bm25: string; symbols: string; graph: string } {
  return { bm25: join(treeDir, 'bm25.mpk'), symbols: join(treeDir, 'symbols.mpk'), graph: join(treeDir, 'graph.mpk') }
}

/** Throws CorruptFileError when a file is missing, damaged or of another version (the caller rebuilds). */
export async function loadAggregates(treeDir: string): Promise<TreeAggregates> {
  const files = paths(treeDir)
  const [bm25Data, symbolsData, graphData] = await Promise.all([
    readRecord<unknown>(files.bm25, BM25_RECORD_KIND, BM25_RECORD_VERSION),
    readRecord<unknown>(files.symbols, SYMBOLS_RECORD_KIND, SYMBOLS_RECORD_VERSION),
    readRecord<unknown>(files.graph, GRAPH_RECORD_KIND, GRAPH_RECORD_VERSION),
  ])
  const present = (data: unknown, path: string): unknown => {
    if (data === undefined) throw new CorruptFileError(path, 'missing')
    return data
  }
  const symbols = SymbolTable.fromSnapshot(present(symbolsData, files.symbols), files.symbols)
  const graph = CodeGraph.fromSnapshot(present(graphData, files.graph), symbols, files.graph)
  const bm25 = Bm25Index.fromSnapshot(present(bm25Data, files.bm25), files.bm25)
  return new Aggregates(bm25, symbols, graph)
}

export async function saveAggregates(treeDir: string, aggregates: TreeAggregates): Promise<void> {
  const files = paths(treeDir)
  const { data, remap } = aggregates.symbols.snapshot()
  await Promise.all([
    writeRecord(files.symbols, SYMBOLS_RECORD_KIND, SYMBOLS_RECORD_VERSION, data),
    writeRecord(files.graph, GRAPH_RECORD_KIND, GRAPH_RECORD_VERSION, aggregates.graph.snapshot(remap)),
    writeRecord(files.bm25, BM25_RECORD_KIND, BM25_RECORD_VERSION, aggregates.bm25.snapshot()),
  ])
}
