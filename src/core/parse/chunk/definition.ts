import type { Node } from 'web-tree-sitter'
import type { SymbolDef } from '../types.js'
import { hasBlankLineBetween, type LineIndex } from './lines.js'
import { definitionOf, type ChunkSyntax } from './syntax.js'

/** A definition's node inside its wrappers (`inner`) and with them (`outer`, e.g. `export …`, `@decorated …`). */
export interface DefinitionNodes {
  outer: Node
  inner: Node
}

export interface DefinitionText {
  decorators: string
  docstring: string
}

/** Far enough up from a name to reach its definition through declarators and wrappers. */
const MAX_CLIMB = 8
const MAX_DOCSTRING_CHARS = 1500

/** The syntax nodes of a symbol's definition, found from its name's position without walking the tree. */
export function locateDefinition(root: Node, symbol: SymbolDef, lines: LineIndex, syntax: ChunkSyntax): DefinitionNodes | undefined {
  if (symbol.line > lines.count) return undefined
  let node: Node | null = root.descendantForIndex(lines.start(symbol.line - 1) + symbol.column)
  for (let depth = 0; node && depth < MAX_CLIMB; depth++, node = node.parent) {
    const definition = definitionOf(node, syntax)
    if (definition) return widen(node, definition.inner, syntax)
  }
  return undefined
}

/** Extends a definition node through the wrappers around it (`decorated_definition`, `export_statement`). */
export function widen(node: Node, inner: Node, syntax: ChunkSyntax): DefinitionNodes {
  let outer = node
  for (let parent = outer.parent; parent && syntax.wrappers.has(parent.type); parent = parent.parent) {
    if (definitionOf(parent, syntax)?.inner.id !== inner.id) break
    outer = parent
  }
  return { outer, inner }
}

/**
 * Decorators (Python `@…`, TS decorators, Java annotations, Rust attributes) and the docstring:
 * Python's first-statement string, otherwise the comment block directly above the definition
 * (no blank line between), verbatim.
 */
export function definitionText({ outer, inner }: DefinitionNodes, syntax: ChunkSyntax, lines: LineIndex): DefinitionText {
  const source = lines.source
  const decorators: Node[] = []
  let commentStart = -1
  let commentEnd = -1
  let below = outer.startIndex
  for (let previous = outer.previousSibling; previous; previous = previous.previousSibling) {
    const type = previous.type
    const isComment = syntax.comments.has(type)
    if (!isComment && !syntax.prefixes.has(type)) break
    if (hasBlankLineBetween(source, previous.endIndex, below) || !lines.startsLine(previous.startIndex)) break
    if (isComment) {
      if (commentEnd < 0) commentEnd = previous.endIndex
      commentStart = previous.startIndex
    } else if (commentEnd >= 0) break // the docstring is the comment block right above the definition or its decorators
    else if (syntax.decorators.has(type)) decorators.push(previous)
    below = previous.startIndex
  }
  decorators.reverse()
  collectDecorators(outer, syntax, decorators)
  if (inner.id !== outer.id) collectDecorators(inner, syntax, decorators)

  let docstring = syntax.docstringInBody ? bodyDocstring(inner, syntax) : ''
  if (!docstring && commentEnd >= 0) docstring = source.slice(commentStart, commentEnd)
  if (docstring.length > MAX_DOCSTRING_CHARS) docstring = docstring.slice(0, MAX_DOCSTRING_CHARS)
  return { decorators: decorators.map((node) => source.slice(node.startIndex, node.endIndex)).join('\n'), docstring }
}

/** Decorator children of a definition, and annotations in its `modifiers` (Java). */
function collectDecorators(node: Node, syntax: ChunkSyntax, into: Node[]): void {
  if (syntax.decorators.size === 0) return
  for (const child of node.children) {
    if (syntax.decorators.has(child.type)) into.push(child)
    else if (child.type === 'modifiers') collectDecorators(child, syntax, into)
  }
}

/** Python: a string as the body's first statement. */
function bodyDocstring(inner: Node, syntax: ChunkSyntax): string {
  let statement = inner.childForFieldName('body')?.firstNamedChild ?? null
  while (statement && syntax.comments.has(statement.type)) statement = statement.nextNamedSibling
  if (statement?.type !== 'expression_statement') return ''
  const string = statement.firstNamedChild
  return string?.type === 'string' && statement.namedChildCount === 1 ? string.text : ''
}
