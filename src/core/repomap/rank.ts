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
import type { FileSymbols } from '../graph/file-symbols.js'
import type { SymbolInfo, SymbolTable } from '../graph/index.js'
import type { MapLine, Placed } from './render.js'

export interface RankedDefinition extends Placed {
  qualifiedName: string
  score: number
}

/** Node ranks as the map reads them, by node number (see `CodeGraph.fileNode`). */
export interface NodeRanks {
  ranks: Float64Array
  /** A file's node, its symbol nodes following it; -1 when the graph lacks the file. */
  fileNode(file: FileSymbols): number
  /** A rank no node is below: with PageRank's uniform teleport, (1 − damping) / nodes. */
  floor: number
}

/** A signature longer than this is cut: one sprawling prototype should not eat a small budget. */
const MAX_SIGNATURE = 160
/** Guards the scope chain against a malformed (cyclic) one. */
const MAX_DEPTH = 16

interface Candidate {
  /** Position of the file in visiting order: ties go to the file visited first. */
  visit: number
  file: FileSymbols
  /** The definition's symbol node within the file (first-definition order). */
  node: number
  score: number
}

/**
 * The `limit` best definitions of `files` (one per qualified name and file, its first), best
 * first; ties go to the file visited first, then to the earlier definition. Scores are computed
 * from node ranks alone; signatures are read only for the definitions kept.
 */
export function topDefinitions(table: SymbolTable, files: readonly FileSymbols[], ranks: NodeRanks, limit: number): RankedDefinition[] {
  const order = files
    .map((file) => ({ file, bound: scoreBound(file, ranks) }))
    .sort((a, b) => b.bound - a.bound || (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0))
  const kept = new ScoreHeap(limit)
  const found: Candidate[] = []
  for (let visit = 0; visit < order.length && limit > 0; visit++) {
    const { file, bound } = order[visit]!
    // Later files' definitions score at most `bound` and lose ties to those already kept.
    if (kept.full && bound <= kept.min) break
    const names = file.symbolNodes()
    const base = ranks.fileNode(file)
    const own = Array.from(names, (_, node) => (base < 0 ? 0 : ranks.ranks[base + 1 + node]!))
    const sum = own.reduce((total, rank) => total + rank, 0)
    const fileRank = base < 0 ? 0 : ranks.ranks[base]!
    for (let node = 0; node < names.length; node++) {
      const score = own[node]! + fileRank * (sum > 0 ? own[node]! / sum : 1 / names.length)
      if (kept.offer(score)) found.push({ visit, file, node, score })
    }
  }
  found.sort((a, b) => b.score - a.score || a.visit - b.visit || a.node - b.node)
  const placed = new Map<FileSymbols, PlacedFile>()
  return found.slice(0, limit).map(({ file, node, score }) => {
    let lines = placed.get(file)
    if (!lines) placed.set(file, (lines = new PlacedFile(table, file.path)))
    const qualifiedName = table.strings.get(file.symbolNodes()[node]!)
    return { ...lines.placed(qualifiedName), qualifiedName, score }
  })
}

/**
 * A definition scores its own rank plus its share of its file node's, so at most the file's total
 * less the floor of each of its other symbols.
 */
function scoreBound(file: FileSymbols, ranks: NodeRanks): number {
  const symbols = file.symbolNodes().length
  return symbols === 0 ? 0 : fileTotal(file, ranks) - (symbols - 1) * ranks.floor
}

/** A file's node plus its symbol nodes. */
function fileTotal(file: FileSymbols, ranks: NodeRanks): number {
  const base = ranks.fileNode(file)
  if (base < 0) return 0
  let sum = 0
  for (let node = base; node <= base + file.symbolNodes().length; node++) sum += ranks.ranks[node]!
  return sum
}

/** A file's definitions as map lines, with their enclosing definitions. */
class PlacedFile {
  private readonly first = new Map<string, SymbolInfo>()
  private readonly lines = new Map<string, MapLine>()

  constructor(table: SymbolTable, private readonly path: string) {
    for (const info of table.definitions(path)) if (!this.first.has(info.qualifiedName)) this.first.set(info.qualifiedName, info)
  }

  placed(qualifiedName: string): Placed {
    const info = this.first.get(qualifiedName)!
    const ancestors: MapLine[] = []
    for (let parent = this.parentOf(info); parent && ancestors.length < MAX_DEPTH; parent = this.parentOf(parent)) ancestors.unshift(this.line(parent))
    return { ...this.line(info), path: this.path, ancestors }
  }

  private parentOf(info: SymbolInfo): SymbolInfo | undefined {
    return info.scope === info.qualifiedName ? undefined : this.first.get(info.scope)
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
