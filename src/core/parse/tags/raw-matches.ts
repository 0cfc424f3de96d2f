import type { Node, Query, Tree } from 'web-tree-sitter'
import { wasmBinding, type WasmBinding } from '../grammars.js'

/** Ints per capture in web-tree-sitter's match buffer: capture index, then the node (id, start, row, column, tree-local address). */
const CAPTURE_INTS = 6
/** Ints per node in the transfer buffer. */
const NODE_INTS = 5

/** What web-tree-sitter keeps on its objects without declaring it: the wasm addresses. */
interface Addressed {
  0: number
}
/** The query's own predicate closures (`#eq?`, `#match?`, `#any-of?` …), which read `name` and `node.text` of each capture. */
interface PredicateQuery {
  textPredicates: Array<Array<(captures: Array<{ name: string; node: { text: string } }>) => boolean>>
}

/**
 * A query's matches over a tree, read straight out of wasm memory. `Query.matches` builds a Node
 * object per capture (seven getValue calls each) and every `endIndex` read marshals the node
 * back; on a 10,000-file C init that was 5 CPU-seconds plus the garbage. Here a match is a
 * position in one copied Int32Array, and a capture's end, end position or Node is asked for only
 * when a caller needs it. Filtering by the query's text predicates is web-tree-sitter's own.
 */
export class RawMatches {
  readonly #data: Int32Array
  readonly #offsets: number[]
  readonly #tree: Tree
  readonly #wasm: WasmBinding

  /** `progress` is called as the query runs; once it returns true the query stops, with the matches found so far. */
  constructor(query: Query, tree: Tree, source: string, progress?: () => boolean) {
    const wasm = wasmBinding()
    const root = tree.rootNode
    writeNode(wasm, (root as unknown as Addressed)[0], root.id, root.startIndex, root.startPosition.row, root.startPosition.column)
    const none = 0xffffffff
    wasm.currentQueryProgressCallback = progress ?? null
    try {
      wasm._ts_query_matches_wasm((query as unknown as Addressed)[0], (tree as unknown as Addressed)[0], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, none, none)
    } finally {
      wasm.currentQueryProgressCallback = null
    }
    const heap = wasm.HEAP32
    const transfer = wasm.transferBuffer >> 2
    const count = heap[transfer]!
    const address = heap[transfer + 1]!
    // Walk once to find the end, then copy the whole result out and free it.
    let end = address >> 2
    for (let i = 0; i < count; i++) end += 2 + heap[end + 1]! * CAPTURE_INTS
    const data = heap.slice(address >> 2, end)
    wasm._free(address)
    this.#data = data
    this.#tree = tree
    this.#wasm = wasm

    const predicates = (query as unknown as PredicateQuery).textPredicates
    this.#offsets = []
    for (let at = 0; at < data.length; at += 2 + data[at + 1]! * CAPTURE_INTS) {
      const tests = predicates[data[at]!]!
      if (tests.length > 0) {
        const captures = this.#predicateCaptures(at, query, source)
        if (!tests.every((test) => test(captures))) continue
      }
      this.#offsets.push(at)
    }
  }

  get count(): number {
    return this.#offsets.length
  }

  pattern(match: number): number {
    return this.#data[this.#offsets[match]!]!
  }

  /** The first capture of a match; its captures are consecutive. */
  firstCapture(match: number): number {
    return this.#offsets[match]! + 2
  }

  captureCount(match: number): number {
    return this.#data[this.#offsets[match]! + 1]!
  }

  /** Captures are addressed by position: `firstCapture(m) + k * CAPTURE_STRIDE`. */
  static readonly CAPTURE_STRIDE = CAPTURE_INTS

  captureIndex(capture: number): number {
    return this.#data[capture]!
  }

  start(capture: number): number {
    return this.#data[capture + 2]!
  }

  row(capture: number): number {
    return this.#data[capture + 3]!
  }

  column(capture: number): number {
    return this.#data[capture + 4]!
  }

  end(capture: number): number {
    this.#marshal(capture)
    return this.#wasm._ts_node_end_index_wasm((this.#tree as unknown as Addressed)[0])
  }

  /** End row and column, as Node.endPosition gives them. */
  endPosition(capture: number): { row: number; column: number } {
    this.#marshal(capture)
    this.#wasm._ts_node_end_point_wasm((this.#tree as unknown as Addressed)[0])
    const heap = this.#wasm.HEAP32
    const transfer = this.#wasm.transferBuffer >> 2
    return { row: heap[transfer]! >>> 0, column: heap[transfer + 1]! >>> 0 }
  }

  /** The capture as a web-tree-sitter Node, for readers that walk it (imports). Null only if the tree has no node with its id. */
  node(capture: number): Node | null {
    const id = this.#data[capture + 1]
    let node = this.#tree.rootNode.descendantForIndex(this.start(capture), this.end(capture))
    while (node && node.id !== id) node = node.parent
    return node
  }

  #marshal(capture: number): void {
    const data = this.#data
    writeNode(this.#wasm, data[capture + 5]!, data[capture + 1]!, data[capture + 2]!, data[capture + 3]!, data[capture + 4]!)
  }

  #predicateCaptures(at: number, query: Query, source: string): Array<{ name: string; node: { text: string } }> {
    const captures = []
    const n = this.#data[at + 1]!
    for (let k = 0, capture = at + 2; k < n; k++, capture += CAPTURE_INTS) {
      const start = this.start(capture)
      const end = this.end(capture)
      captures.push({ name: query.captureNames[this.captureIndex(capture)]!, node: { text: source.slice(start, end) } })
    }
    return captures
  }
}

function writeNode(wasm: WasmBinding, address: number, id: number, start: number, row: number, column: number): void {
  const heap = wasm.HEAP32
  const at = wasm.transferBuffer >> 2
  heap[at] = id
  heap[at + 1] = start
  heap[at + 2] = row
  heap[at + 3] = column
  heap[at + NODE_INTS - 1] = address
}
