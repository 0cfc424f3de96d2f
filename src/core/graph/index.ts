/** Per-tree symbol table and code graph (with PageRank), both patchable file by file. */
export { checkStoredTable, SymbolTable, SYMBOLS_SNAPSHOT_VERSION, type SymbolInfo, type FileImport, type ReferencePosting, type TableChanges, type SymbolsSnapshot, type SnapshotRows } from './symbol-table.js'
export { CodeGraph, GRAPH_SNAPSHOT_VERSION, type GraphSnapshot, type NodeAttributes, type EdgeAttributes } from './code-graph.js'
export { AMBIGUITY_LIMIT, PRIVATE_WEIGHT, EDGE_TYPES, type EdgeType } from './edges.js'
export { pagerank, prepareEdges, PAGERANK_TOLERANCE, type WeightedEdges, type PreparedEdges, type PagerankOptions } from './pagerank.js'
export { resolveImport, type ImportSpec, type ImportTarget } from './imports.js'
export type { FileContent } from './file-symbols.js'
export { encodeSymbolsFile, SymbolsFile, SYMBOLS_VERSION, type KeyedDefinition } from './symbols-file.js'
export { encodeGraphFile, encodeRankedGraph, GraphFile, GRAPH_VERSION, packGraphEdges, type PackedEdges } from './graph-file.js'
