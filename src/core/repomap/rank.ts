/**
 * Ranking a tree's definitions for the map. PageRank runs over the code graph, whose symbol nodes
 * receive rank through the references resolved to them and whose file nodes receive it through
 * imports. As in Aider, a file's own rank is then handed to its definitions — here in proportion
 * to the rank their references brought them (equally when none has any), so a much-imported
 * header's most-used declarations rise with it. A definition therefore scores at most its file's
 * total rank, which lets `topDefinitions` visit files best first and stop as soon as no remaining
 * file can beat the entries it already has: a 1k-token map of a 10k-file tree reads the
 * definitions of a few dozen files, not all of them.
 */
import type { SymbolInfo, SymbolTable } from '../graph/index.js'
import type { RankedEntries } from './fit.js'
import type { MapLine, Placed } from './render.js'

/** Node ranks as the map reads them, by node number (see `CodeGraph.fileNode`). */
export interface NodeRanks {
  ranks: Float64Array
  /** A rank no node is below: with PageRank's uniform teleport, (1 − damping) / nodes. */
  floor: number
}

/**
 * The files a map ranks, in path order, as the graph numbers their nodes: all that ranking reads
 * before it knows which files it keeps. A stored graph answers from its rank slices alone, so a
 * default map of a large tree reads the definitions of the few files it shows, never the whole
 * symbol table.
 */
export interface MapFiles {
  readonly count: number
  /** The path of file `i`, read only for the files kept. */
  path(i: number): string
  /** The node of file `i`, its symbol nodes following it; -1 when the graph lacks the file. */
  base(i: number): number
  /** How many symbol nodes (distinct qualified names) file `i` has. */
  symbols(i: number): number
}

/** A signature longer than this is cut: one sprawling prototype should not eat a small budget. */
const MAX_SIGNATURE = 160
/** Guards the scope chain against a malformed (cyclic) one. */
const MAX_DEPTH = 16

interface Candidate {
  /** Position of the file in visiting order: ties go to the file visited first. */
  visit: number
  /** The file's position in `MapFiles`. */
  file: number
  /** The definition's symbol node within the file (first-definition order). */
  node: number
  score: number
}

/**
 * The `limit` best definitions of `files` (one per qualified name and file, its first), best
 * first; ties go to the file visited first, then to the earlier definition. Scores are computed
 * from node ranks alone; a definition is placed (its file's definitions read) only when fitting
 * looks at it.
 */
export function topDefinitions(table: SymbolTable, files: MapFiles, ranks: NodeRanks, limit: number): RankedDefinitions {
  // Files by bound, best first; ties in path order, which is the files' order.
  const bounds = new Float64Array(files.count)
  for (let i = 0; i < files.count; i++) bounds[i] = scoreBound(files, i, ranks)
  const order = Uint32Array.from({ length: files.count }, (_, i) => i).sort((a, b) => bounds[b]! - bounds[a]! || a - b)
  const kept = new ScoreHeap(limit)
  const found: Candidate[] = []
  for (let visit = 0; visit < order.length && limit > 0; visit++) {
    const file = order[visit]!
    const bound = bounds[file]!
    // Later files' definitions score at most `bound` and lose ties to those already kept.
    if (kept.full && bound <= kept.min) break
    const names = files.symbols(file)
    const base = files.base(file)
    // Thousands of files are visited when many rank near the floor: no allocation per file.
    const own = (node: number): number => (base < 0 ? 0 : ranks.ranks[base + 1 + node]!)
    let sum = 0
    for (let node = 0; node < names; node++) sum += own(node)
    const fileRank = base < 0 ? 0 : ranks.ranks[base]!
    for (let node = 0; node < names; node++) {
      const score = own(node) + fileRank * (sum > 0 ? own(node) / sum : 1 / names)
      if (kept.offer(score)) found.push({ visit, file, node, score })
    }
  }
  found.sort((a, b) => b.score - a.score || a.visit - b.visit || a.node - b.node)
  return new RankedDefinitions(table, files, found.slice(0, limit))
}

/** Ranked definitions, each placed in its file (its line and enclosing definitions) when first asked for. */
export class RankedDefinitions implements RankedEntries {
  private readonly placedFiles = new Map<number, PlacedFile>()
  private readonly entries: Array<Placed | undefined> = []

  constructor(private readonly table: SymbolTable, private readonly files: MapFiles, private readonly found: readonly Candidate[]) {}

  get length(): number {
    return this.found.length
  }

  path(i: number): string {
    return this.placedFile(this.found[i]!.file).path
  }

  placed(i: number): Placed {
    let entry = this.entries[i]
    if (!entry) {
      const { file, node } = this.found[i]!
      const lines = this.placedFile(file)
      entry = this.entries[i] = lines.placed(lines.nodeName(node))
    }
    return entry
  }

  /** The best `limit` (a prefix: the ranking is the same at any limit above them), placed as they are here. */
  prefix(limit: number): RankedEntries {
    return limit >= this.length ? this : { length: limit, path: (i) => this.path(i), placed: (i) => this.placed(i) }
  }

  private placedFile(file: number): PlacedFile {
    let lines = this.placedFiles.get(file)
    if (!lines) this.placedFiles.set(file, (lines = new PlacedFile(this.table, this.files.path(file))))
    return lines
  }
}

/**
 * A definition scores its own rank plus its share of its file node's, so at most the file's total
 * less the floor of each of its other symbols.
 */
function scoreBound(files: MapFiles, i: number, ranks: NodeRanks): number {
  const symbols = files.symbols(i)
  return symbols === 0 ? 0 : fileTotal(files, i, ranks) - (symbols - 1) * ranks.floor
}

/** A file's node plus its symbol nodes. */
function fileTotal(files: MapFiles, i: number, ranks: NodeRanks): number {
  const base = files.base(i)
  if (base < 0) return 0
  let sum = 0
  for (let node = base; node <= base + files.symbols(i); node++) sum += ranks.ranks[node]!
  return sum
}

/** A file's definitions as map lines, with their enclosing definitions. */
class PlacedFile {
  /** The first definition of each qualified name, in definition order: the order of the file's symbol nodes. */
  private first: Map<string, SymbolInfo> | undefined
  private readonly lines = new Map<string, MapLine>()
  private nodeNames: string[] | undefined

  constructor(private readonly table: SymbolTable, readonly path: string) {}

  /** The file's definitions, read on first use: an entry's path is wanted before it is placed. */
  private get definitions(): Map<string, SymbolInfo> {
    if (!this.first) {
      this.first = new Map()
      for (const info of this.table.definitions(this.path)) if (!this.first.has(info.qualifiedName)) this.first.set(info.qualifiedName, info)
    }
    return this.first
  }

  /** The qualified name of the file's symbol node `node`. */
  nodeName(node: number): string {
    this.nodeNames ??= [...this.definitions.keys()]
    const name = this.nodeNames[node]
    if (name === undefined) throw new Error(`the code graph numbers more symbols in ${this.path} than its ${this.nodeNames.length} definitions`)
    return name
  }

  placed(qualifiedName: string): Placed {
    const info = this.definitions.get(qualifiedName)!
    const ancestors: MapLine[] = []
    for (let parent = this.parentOf(info); parent && ancestors.length < MAX_DEPTH; parent = this.parentOf(parent)) ancestors.unshift(this.line(parent))
    return { ...this.line(info), path: this.path, ancestors }
  }

  private parentOf(info: SymbolInfo): SymbolInfo | undefined {
    return info.scope === info.qualifiedName ? undefined : this.definitions.get(info.scope)
  }

  private line(info: SymbolInfo): MapLine {
    let line = this.lines.get(info.qualifiedName)
    if (!line) {
      let depth = 0
      for (let parent = this.parentOf(info); parent && depth < MAX_DEPTH; parent = this.parentOf(parent)) depth++
      line = { key: `${this.path}#${info.qualifiedName}`, line: info.line, depth, text: signatureText(info) }
      this.lines.set(info.qualifiedName, line)
    }
    return line
  }
}

/** The signature on one line, without a body; a definition without one shows its kind and name. */
function signatureText(info: SymbolInfo): string {
  const text = withoutBody(info.signature.replace(/\s+/g, ' ').trim()) || `${info.kind} ${info.name}`
  return text.length > MAX_SIGNATURE ? `${text.slice(0, MAX_SIGNATURE - 1)}…` : text
}

const MACRO_HEAD = /^#\s*define\s+\w+(?:\([^)]*\))?/

/**
 * Some declarations' signatures are the whole declaration (a C struct with its fields, a macro
 * with its replacement): the map shows their heads. A brace inside parentheses is a parameter's
 * type and stays, and so does a type alias's body (`type X = { … }`), which is the declaration.
 */
function withoutBody(text: string): string {
  const macro = MACRO_HEAD.exec(text)
  if (macro) return macro[0]
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '(' || c === '[') depth++
    else if (c === ')' || c === ']') depth--
    else if (c === '{' && depth === 0) {
      const head = text.slice(0, i).trimEnd()
      return head.endsWith('=') ? text : head
    }
  }
  return text
}

/** The `limit` largest scores offered so far (a binary min-heap): the bar a new entry must pass. */
class ScoreHeap {
  private readonly heap: number[] = []

  constructor(private readonly limit: number) {}

  get full(): boolean {
    return this.heap.length >= this.limit
  }

  get min(): number {
    return this.heap[0] ?? 0
  }

  /** Keeps `score` if it is among the best `limit`; a score equal to the bar loses (it came later). */
  offer(score: number): boolean {
    const heap = this.heap
    if (heap.length < this.limit) {
      heap.push(score)
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1
        if (heap[parent]! <= heap[i]!) break
        ;[heap[parent], heap[i]] = [heap[i]!, heap[parent]!]
        i = parent
      }
      return true
    }
    if (score <= heap[0]!) return false
    heap[0] = score
    for (let i = 0; ; ) {
      const left = 2 * i + 1
      const right = left + 1
      let smallest = i
      if (left < heap.length && heap[left]! < heap[smallest]!) smallest = left
      if (right < heap.length && heap[right]! < heap[smallest]!) smallest = right
      if (smallest === i) break
      ;[heap[smallest], heap[i]] = [heap[i]!, heap[smallest]!]
      i = smallest
    }
    return true
  }
}
