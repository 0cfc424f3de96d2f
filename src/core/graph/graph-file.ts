/**
 * The stored code graph (`graph` record, version 2), laid out so a query reads what it needs: the
 * rank of a definition (`def` breaking a tie) or of a file (search's ranking), and the default
 * repo map's ranking, read the ranks block, not the edges, and never the whole symbol table.
 * Anything needing the edges (personalised PageRank: a scoped or focused map; a build patching the
 * graph) reads the edges block and the whole table.
 *
 * A block record (block-file.ts); its directory's meta is { files, nodes, edges } and its blocks:
 *   0  { bases, ranks }: the first node of each file in path order (files + 1 entries, the last the
 *      node count: a file's node, then its symbols' in definition order) and PageRank by node
 *   1  the edges: a GraphSnapshot (code-graph.ts) without its ranks
 * (1: one msgpack snapshot, decoded whole, with the whole symbol table, by every query using it.)
 */
import { CorruptFileError } from '../errors.js'
import { BlockFile, blockFileParts, BlockSink } from './block-file.js'
import type { GraphSnapshot } from './code-graph.js'

export const GRAPH_KIND = 'graph'
export const GRAPH_VERSION = 2

interface Meta {
  files: number
  nodes: number
  edges: number
}

/** Node numbering and PageRank of a stored graph. */
export interface StoredRanks {
  bases: Uint32Array
  ranks: Float64Array
}

const RANKS_BLOCK = 0
const EDGES_BLOCK = 1

/** The record's parts for a graph's snapshot and the node bases it was ranked over. */
export function encodeGraphFile(snapshot: GraphSnapshot, bases: Uint32Array): Uint8Array[] {
  const { ranks, ...edges } = snapshot
  const meta: Meta = { files: bases.length - 1, nodes: ranks.length, edges: edges.from.length }
  const blocks = new BlockSink()
  blocks.add({ bases, ranks })
  blocks.add(edges)
  return [...blockFileParts(GRAPH_KIND, GRAPH_VERSION, meta, blocks)]
}

/** A stored graph opened for reading by block. */
export class GraphFile {
  private ranked: StoredRanks | undefined

  private constructor(private readonly file: BlockFile, readonly meta: Meta) {}

  get path(): string {
    return this.file.path
  }

  /** Checks the record's header and directory; throws CorruptFileError (missing, damaged, another version). */
  static open(path: string): GraphFile {
    const file = BlockFile.open(path, GRAPH_KIND, GRAPH_VERSION)
    const meta = file.meta as Meta
    const shaped = typeof meta === 'object' && meta !== null && [meta.files, meta.nodes, meta.edges].every((n) => Number.isInteger(n) && n >= 0)
    if (!shaped || file.blockCount !== 2) throw new CorruptFileError(path, 'malformed block directory')
    return new GraphFile(file, meta)
  }

  /** The node bases and ranks, checked against the directory. */
  ranks(): StoredRanks {
    if (!this.ranked) {
      const block = this.file.read(RANKS_BLOCK) as StoredRanks
      const { files, nodes } = this.meta
      if (!(block?.bases instanceof Uint32Array) || !(block.ranks instanceof Float64Array) || block.bases.length !== files + 1 || block.bases[files] !== nodes || block.ranks.length !== nodes) {
        throw new CorruptFileError(this.path, 'malformed graph ranks')
      }
      this.ranked = block
    }
    return this.ranked
  }

  /** The whole graph as `CodeGraph.fromSnapshot` takes it. */
  snapshot(): unknown {
    const edges = this.file.read(EDGES_BLOCK)
    if (typeof edges !== 'object' || edges === null) throw new CorruptFileError(this.path, 'malformed graph edges')
    return { ...edges, ranks: this.ranks().ranks }
  }
}
