import type { Node } from 'web-tree-sitter'
import type { ParsedLanguageId } from '../languages.js'

/**
 * What the chunker needs to know about a grammar: which nodes are definitions it should keep
 * whole (functions) or split at member boundaries with their header as context (containers),
 * which nodes merely wrap a definition, and which nodes belong to the definition below them
 * (comments, decorators and attributes written directly above it).
 */
export interface ChunkSyntax {
  functions: ReadonlySet<string>
  containers: ReadonlySet<string>
  /** Wrapper node type → the wrapped definition (`decorated_definition` → its function). */
  wrappers: ReadonlyMap<string, (node: Node) => Node | null>
  comments: ReadonlySet<string>
  /** Sibling nodes written above a definition that belong to it (TS decorators in a class body, Rust attributes). */
  prefixes: ReadonlySet<string>
  /** Decorator/annotation node types, found among a definition's children or prefixes. */
  decorators: ReadonlySet<string>
  /** Python: the docstring is the body's first statement, not a comment above. */
  docstringInBody: boolean
  /** C/C++: `struct foo x = {…}` mentions a struct type without defining it; only a body makes a definition. */
  containerNeedsBody: boolean
}

export type DefinitionRole = 'function' | 'container'

export interface Definition {
  role: DefinitionRole
  /** The node that carries the definition's own fields (`body`, `name`), inside any wrappers. */
  inner: Node
}

const field = (name: string) => (node: Node): Node | null => node.childForFieldName(name)
const lastNamedChild = (node: Node): Node | null => node.lastNamedChild

/** `const f = () => {…}`, `handler = function () {…}`, `foo: class {…}`: the value that makes it a definition. */
function ecmaValue(node: Node): Node | null {
  const declarator = node.type === 'expression_statement' ? node.firstNamedChild : node
  if (!declarator) return null
  if (declarator.type === 'lexical_declaration' || declarator.type === 'variable_declaration') {
    return declarator.namedChildCount === 1 ? declarator.firstNamedChild?.childForFieldName('value') ?? null : null
  }
  if (declarator.type === 'assignment_expression') return declarator.childForFieldName('right')
  return declarator.childForFieldName('value')
}

function set(...types: string[]): ReadonlySet<string> {
  return new Set(types)
}

const ECMA_FUNCTIONS = [
  'function_declaration', 'generator_function_declaration', 'function_expression', 'function',
  'generator_function', 'arrow_function', 'method_definition',
]
const ECMA_CONTAINERS = [
  'class_declaration', 'abstract_class_declaration', 'class', 'interface_declaration', 'enum_declaration',
  'internal_module', 'module',
]

function ecma(): ChunkSyntax {
  return {
    functions: set(...ECMA_FUNCTIONS),
    containers: set(...ECMA_CONTAINERS),
    wrappers: new Map([
      ['export_statement', field('declaration')],
      ['lexical_declaration', ecmaValue],
      ['variable_declaration', ecmaValue],
      ['expression_statement', ecmaValue],
      ['public_field_definition', ecmaValue],
      ['field_definition', ecmaValue],
      ['pair', field('value')],
    ]),
    comments: set('comment'),
    prefixes: set('decorator'),
    decorators: set('decorator'),
    docstringInBody: false,
    containerNeedsBody: false,
  }
}

function c(): ChunkSyntax {
  return {
    functions: set('function_definition', 'preproc_function_def'),
    containers: set('struct_specifier', 'union_specifier', 'enum_specifier'),
    wrappers: new Map([['type_definition', field('type')], ['declaration', field('type')]]),
    comments: set('comment'),
    prefixes: set(),
    decorators: set(),
    docstringInBody: false,
    containerNeedsBody: true,
  }
}

function cpp(): ChunkSyntax {
  const base = c()
  return {
    ...base,
    containers: set(...base.containers, 'class_specifier', 'namespace_definition'),
    wrappers: new Map([...base.wrappers, ['template_declaration', lastNamedChild]]),
  }
}

const SYNTAX: Record<ParsedLanguageId, ChunkSyntax> = {
  python: {
    functions: set('function_definition'),
    containers: set('class_definition'),
    wrappers: new Map([['decorated_definition', field('definition')]]),
    comments: set('comment'),
    prefixes: set(),
    decorators: set('decorator'),
    docstringInBody: true,
    containerNeedsBody: false,
  },
  javascript: ecma(),
  typescript: ecma(),
  tsx: ecma(),
  go: {
    functions: set('function_declaration', 'method_declaration', 'func_literal'),
    containers: set('type_declaration'),
    wrappers: new Map(),
    comments: set('comment'),
    prefixes: set(),
    decorators: set(),
    docstringInBody: false,
    containerNeedsBody: false,
  },
  rust: {
    functions: set('function_item', 'macro_definition'),
    containers: set('impl_item', 'trait_item', 'struct_item', 'enum_item', 'union_item', 'mod_item'),
    wrappers: new Map(),
    comments: set('line_comment', 'block_comment'),
    prefixes: set('attribute_item'),
    decorators: set('attribute_item'),
    docstringInBody: false,
    containerNeedsBody: false,
  },
  java: {
    functions: set('method_declaration', 'constructor_declaration', 'compact_constructor_declaration'),
    containers: set(
      'class_declaration', 'interface_declaration', 'enum_declaration', 'record_declaration',
      'annotation_type_declaration',
    ),
    wrappers: new Map(),
    comments: set('line_comment', 'block_comment'),
    prefixes: set(),
    decorators: set('annotation', 'marker_annotation'),
    docstringInBody: false,
    containerNeedsBody: false,
  },
  c: c(),
  cpp: cpp(),
  ruby: {
    functions: set('method', 'singleton_method'),
    containers: set('class', 'module', 'singleton_class'),
    wrappers: new Map(),
    comments: set('comment'),
    prefixes: set(),
    decorators: set(),
    docstringInBody: false,
    containerNeedsBody: false,
  },
}

export function chunkSyntax(language: ParsedLanguageId): ChunkSyntax {
  return SYNTAX[language]
}

/** The definition a node is (or wraps), if any. Cheap for non-definitions: one type lookup. */
export function definitionOf(node: Node, syntax: ChunkSyntax): Definition | undefined {
  const type = node.type
  if (syntax.functions.has(type)) return { role: 'function', inner: node }
  if (syntax.containers.has(type)) {
    // `struct foo;` and `enum e x;` name a type without defining one.
    return !syntax.containerNeedsBody || node.childForFieldName('body') ? { role: 'container', inner: node } : undefined
  }
  const unwrap = syntax.wrappers.get(type)
  if (!unwrap) return undefined
  const inner = unwrap(node)
  if (!inner) return undefined
  const wrapped = definitionOf(inner, syntax)
  return wrapped ? { role: wrapped.role, inner: wrapped.inner } : undefined
}
