import type { Node } from 'web-tree-sitter'
import { hasBlankLineBetween, type LineIndex } from './lines.js'
import { definitionOf, type ChunkSyntax } from './syntax.js'

/**
 * Chunk size bounds, in characters of source (≈ 4 per token). 1,500 characters (~375 tokens)
 * keeps a chunk plus its imports and class header under the 512-token window of small embedding
 * models while still holding a typical function whole; a definition of fewer than 200 characters
 * with the comments above it (2–4 lines) says too little on its own and is merged with its
 * neighbours instead; leftovers
 * under 300 characters (a closing brace, one constant between two functions) join the chunk
 * before them. A single line is never split, so one very long line can exceed the maximum.
 */
export const MAX_CHUNK_CHARS = 1500
export const MIN_DEFINITION_CHARS = 200
export const MIN_CHUNK_CHARS = 300
const MAX_HEADER_CHARS = 400
/** Below this, a node is not even looked at as a definition: it cannot reach the minimum with a comment above. */
const MIN_PROBE_CHARS = 32

/** Header line(s) of a container that was split, carried by the chunks of its members. */
export interface ClassContext {
  /** 0-based line where the header starts. */
  line: number
  text: string
}

/** A definition a piece begins with: kept whole, or the first part of a split one. */
export interface PieceDefinition {
  node: Node
  /** 0-based lines of the definition node itself (without comments attached above it). */
  firstLine: number
  lastLine: number
}

/**
 * A run of whole lines: it starts at `line` and ends where the next piece starts. Pieces cover
 * the file; the enricher trims their blank edges.
 */
export interface Piece {
  line: number
  definition?: PieceDefinition
  /** Headers of the split containers the piece lies in, outermost first. */
  contexts: readonly ClassContext[]
}

/**
 * Cuts a syntax tree into definition-centred pieces, after LlamaIndex's CodeSplitter: siblings
 * accumulate into a piece until it would exceed the maximum, and a node larger than the maximum
 * is recursed into. Unlike CodeSplitter, a definition starts its own piece (with the comments
 * and decorators directly above it) and the run after it starts another, so functions, methods
 * and classes come out whole when they fit; an oversized container is split at its members with
 * its header as context, an oversized function at its statements. Only the root's children and
 * the children of oversized nodes are visited, and sizes come from node indexes, so the cost is
 * a small fraction of parsing.
 */
export function splitTree(root: Node, syntax: ChunkSyntax, lines: LineIndex): Piece[] {
  const splitter = new Splitter(syntax, lines)
  splitter.descend(root)
  return splitter.pieces
}

class Splitter {
  readonly pieces: Piece[] = [{ line: 0, contexts: [] }]
  /** Where the current piece's text starts, to measure it. */
  private open = 0
  private contexts: readonly ClassContext[] = []

  constructor(private readonly syntax: ChunkSyntax, private readonly lines: LineIndex) {}

  descend(node: Node): void {
    this.walk(node.children, node.startIndex, node.endIndex)
  }

  /** Pieces for the children of a node's text `from..to`; text between them (a string's content) is cut at lines. */
  private walk(children: Node[], from: number, to: number): void {
    let covered = from
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!
      const start = child.startIndex
      const end = child.endIndex
      if (start - covered > MAX_CHUNK_CHARS) this.windows(covered, start)
      covered = end
      if (end - start >= MIN_PROBE_CHARS && this.definition(children, i, end)) continue
      if (end - this.open <= MAX_CHUNK_CHARS) continue
      if (end - start > MAX_CHUNK_CHARS) this.descend(child)
      else this.begin(this.lines.lineOf(start), start)
    }
    if (to - covered > MAX_CHUNK_CHARS) this.windows(covered, to)
  }

  /** Gives a definition its own piece (split when oversized); false when the node is none. */
  private definition(children: Node[], index: number, end: number): boolean {
    const node = children[index]!
    const definition = definitionOf(node, this.syntax)
    if (!definition) return false
    const lines = this.lines
    const start = node.startIndex
    const prefix = this.attachedPrefix(children, index)
    if (end - prefix < MIN_DEFINITION_CHARS) return false
    // Comments above a definition that fits are left out rather than make it overflow.
    const lead = end - prefix <= MAX_CHUNK_CHARS || end - start > MAX_CHUNK_CHARS ? prefix : start
    const lastLine = lines.lineOf(end - 1)
    this.begin(lines.lineOf(lead), lead, { node, firstLine: lines.lineOf(start), lastLine })
    if (end - this.open > MAX_CHUNK_CHARS) {
      const outer = this.contexts
      if (definition.role === 'container') {
        this.contexts = [...outer, { line: lines.lineOf(start), text: containerHeader(definition.inner, lines) }]
      }
      // Straight into the wrapped definition: `export`, decorators and `const x =` stay in this piece.
      const inner = definition.inner
      this.descend(inner)
      this.contexts = outer
      // What a wrapper holds after it: `struct s {…} table[] = {…};`.
      if (end - inner.endIndex > MAX_CHUNK_CHARS) {
        this.walk(node.children.filter((child) => child.startIndex >= inner.endIndex), inner.endIndex, end)
      }
    }
    this.begin(lastLine + 1, end)
    return true
  }

  /** Text no child covers (a huge comment, string or string content): cut at line boundaries. */
  private windows(from: number, to: number): void {
    const lines = this.lines
    const last = lines.lineOf(to - 1)
    for (let line = lines.lineOf(from) + 1; line <= last; line++) {
      if (lines.end(line) - this.open > MAX_CHUNK_CHARS) this.begin(line, lines.start(line))
    }
  }

  /** Start of the comments, decorators and attributes directly above `children[index]` (no blank line between). */
  private attachedPrefix(children: Node[], index: number): number {
    const { comments, prefixes } = this.syntax
    const source = this.lines.source
    let at = children[index]!.startIndex
    for (let i = index - 1; i >= 0; i--) {
      const previous = children[i]!
      if (previous.startIndex < this.open) break
      const type = previous.type
      if (!comments.has(type) && !prefixes.has(type)) break
      if (hasBlankLineBetween(source, previous.endIndex, at) || !this.lines.startsLine(previous.startIndex)) break
      at = previous.startIndex
    }
    return at
  }

  /**
   * Starts a piece at `line`. Two cuts on one line make one piece, which is about the
   * definition if either cut was one, else lies at the level of the later cut (the run after a
   * split class, not after its last method); no piece is empty of lines.
   */
  private begin(line: number, at: number, definition?: PieceDefinition): void {
    if (line >= this.lines.count) {
      this.open = at
      return
    }
    const current = this.pieces[this.pieces.length - 1]!
    if (line > current.line) this.pieces.push({ line, definition, contexts: this.contexts })
    else if (line === current.line && (definition || !current.definition)) {
      current.definition = definition
      current.contexts = this.contexts
    }
    // Measured from the start of the piece's first line, as its text will be.
    this.open = this.lines.start(this.pieces[this.pieces.length - 1]!.line)
  }
}

/**
 * A container's header: its text from the start of its first line up to its body, e.g.
 * `class Foo(Base):`, `export class Foo<T> extends Bar`, `impl<T> Display for Wrapper<T>`; the
 * first line when the grammar has no body field (Go `type Server struct {`). Decorators above
 * are left out: chunks carry them separately.
 */
export function containerHeader(inner: Node, lines: LineIndex): string {
  const first = lines.lineOf(inner.startIndex)
  const body = inner.childForFieldName('body')
  const end = body && body.startIndex > inner.startIndex ? body.startIndex : lines.end(first)
  const text = lines.source.slice(lines.start(first), end).trimEnd()
  return text.length > MAX_HEADER_CHARS ? text.slice(0, MAX_HEADER_CHARS) : text
}
