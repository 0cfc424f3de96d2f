import type { Node } from 'web-tree-sitter'
import type { ParsedLanguageId } from '../languages.js'
import type { Tags } from '../tags/index.js'
import type { Chunk, SymbolDef } from '../types.js'
import { definitionText, locateDefinition, widen, type DefinitionNodes, type DefinitionText } from './definition.js'
import { ChunkImports } from './imports.js'
import { layoutPieces, type Span } from './layout.js'
import type { LineIndex } from './lines.js'
import { containerHeader, splitTree } from './split.js'
import { chunkKind, isClassKind, isDefinitionKind, SymbolFinder } from './symbols.js'
import { chunkSyntax, definitionOf, type ChunkSyntax } from './syntax.js'

export { MAX_CHUNK_CHARS, MIN_CHUNK_CHARS, MIN_DEFINITION_CHARS } from './split.js'
export { LineIndex } from './lines.js'

/** Approximate tokens: ~4 characters each for code and English alike. */
export function approximateTokens(chars: number): number {
  return Math.ceil(chars / 4)
}

const NO_TEXT: DefinitionText = { decorators: '', docstring: '' }

/**
 * Definition-centred chunks of a parsed file (see splitTree), each enriched with the symbol it is
 * about. The symbol of a chunk that begins with a definition is that definition's; any other
 * chunk is about the innermost definition containing all of its lines ('' at module level).
 */
export function chunkTree(root: Node, language: ParsedLanguageId, lines: LineIndex, tags: Tags): Chunk[] {
  const syntax = chunkSyntax(language)
  const spans = layoutPieces(splitTree(root, syntax, lines), lines)
  const enricher = new Enricher(root, language, syntax, lines, tags)
  return spans.map((span) => enricher.chunk(span))
}

class Enricher {
  private readonly finder: SymbolFinder
  private readonly imports: ChunkImports
  private classes?: Map<string, SymbolDef>
  private lastSymbol?: SymbolDef
  private lastText: DefinitionText = NO_TEXT

  constructor(
    private readonly root: Node,
    private readonly language: ParsedLanguageId,
    private readonly syntax: ChunkSyntax,
    private readonly lines: LineIndex,
    private readonly tags: Tags,
  ) {
    this.finder = new SymbolFinder(tags.symbols)
    this.imports = new ChunkImports(tags.imports, language, root, lines)
  }

  chunk(span: Span): Chunk {
    const { first, last, piece } = span
    const definition = piece.definition
    const symbol = (definition && this.finder.definedAt(definition.firstLine + 1, definition.lastLine + 1))
      || this.finder.enclosing(first + 1, last + 1)
    const body = this.lines.text(first, last)
    const imports = this.imports.usedIn(body, first + 1, last + 1)
    const classContext = this.classContext(span, symbol)
    const text = symbol ? this.definitionText(symbol, span) : NO_TEXT
    return {
      kind: chunkKind(symbol),
      name: symbol?.name ?? '',
      qualifiedName: symbol?.qualifiedName ?? '',
      language: this.language,
      startLine: first + 1,
      endLine: last + 1,
      imports,
      classContext,
      signature: symbol?.signature ?? '',
      decorators: text.decorators,
      docstring: text.docstring,
      body,
      tokenCount: approximateTokens(imports.length + classContext.length + body.length),
    }
  }

  /** Decorators and docstring, once per symbol (a split function's chunks share them). */
  private definitionText(symbol: SymbolDef, span: Span): DefinitionText {
    if (symbol === this.lastSymbol) return this.lastText
    this.lastSymbol = symbol
    const nodes = isDefinitionKind(symbol.kind) ? this.nodesOf(symbol, span) : undefined
    this.lastText = nodes ? definitionText(nodes, this.syntax, this.lines) : NO_TEXT
    return this.lastText
  }

  /** The symbol's nodes: the piece's own definition when it is the symbol's, else found from the name. */
  private nodesOf(symbol: SymbolDef, span: Span): DefinitionNodes | undefined {
    const definition = span.piece.definition
    if (definition && symbol.line - 1 >= definition.firstLine && symbol.endLine - 1 === definition.lastLine) {
      const inner = definitionOf(definition.node, this.syntax)?.inner
      if (inner) return widen(definition.node, inner, this.syntax)
    }
    return locateDefinition(this.root, symbol, this.lines, this.syntax)
  }

  /**
   * Headers of the split containers the chunk lies in (not those its own lines show); for a
   * method defined outside its type (Go receivers, C++ `Foo::bar`), the type's header when the
   * file declares it.
   */
  private classContext(span: Span, symbol: SymbolDef | undefined): string {
    const contexts = span.piece.contexts
    let text = ''
    for (const context of contexts) if (context.line < span.first) text = text ? `${text}\n${context.text}` : context.text
    if (text || contexts.length > 0 || symbol?.kind !== 'method' || !symbol.scope) return text
    const owner = this.classNamed(symbol.scope)
    if (!owner || (owner.line <= span.first + 1 && owner.endLine >= span.last + 1)) return ''
    const nodes = locateDefinition(this.root, owner, this.lines, this.syntax)
    return nodes ? containerHeader(nodes.inner, this.lines) : ''
  }

  private classNamed(qualifiedName: string): SymbolDef | undefined {
    if (!this.classes) {
      this.classes = new Map()
      for (const symbol of this.tags.symbols) if (isClassKind(symbol.kind)) this.classes.set(symbol.qualifiedName, symbol)
    }
    return this.classes.get(qualifiedName)
  }
}
