import type { Node, Tree } from 'web-tree-sitter'
import type { ParsedLanguageId } from '../languages.js'
import type { ImportRef, ReferenceKind, SymbolDef, SymbolKind, SymbolRef } from '../types.js'
import { captureRoles } from './captures.js'
import { IMPORT_READERS } from './imports.js'
import { tagsQuery } from './query.js'
import { ScopeCursor, qualify, type Scope } from './scopes.js'
import { signatureText } from './signature.js'

export interface Tags {
  symbols: SymbolDef[]
  references: SymbolRef[]
  imports: ImportRef[]
}

interface DefCandidate {
  node: Node
  name?: Node
  kind: SymbolKind | 'container'
  weak: boolean
  qualifier?: Node
  body?: Node
  sig?: Node
  pattern: number
}

interface RefCandidate {
  node: Node
  kind: ReferenceKind
  receiver?: Node
  pattern: number
}

/** Kinds whose directly nested functions are methods. */
const TYPE_SCOPES = new Set<Scope['kind']>(['class', 'interface', 'struct', 'trait', 'enum', 'container'])
const FUNCTION_SCOPES = new Set<Scope['kind']>(['function', 'method'])
const MAX_RECEIVER = 80

/**
 * Definitions, references and imports of one parsed file, from one run of the language's tags
 * query over the tree the chunker also uses. Nesting (qualified names, enclosing definitions) is
 * derived from the captured definitions' ranges, never from a second walk of the tree.
 */
export function extractTags(tree: Tree, language: ParsedLanguageId, source: string): Tags {
  const query = tagsQuery(tree.language, language)
  const roles = captureRoles(query)
  const readImport = IMPORT_READERS[language]

  const defs: DefCandidate[] = []
  const refs: RefCandidate[] = []
  const locals: Node[] = []
  const imports: ImportRef[] = []
  const importedName = (node: Node): void => { refs.push({ node, kind: 'import', pattern: -1 }) }

  for (const match of query.matches(tree.rootNode)) {
    let def: DefCandidate | undefined
    let name: Node | undefined
    let qualifier: Node | undefined
    let body: Node | undefined
    let sig: Node | undefined
    let receiver: Node | undefined
    const firstRef = refs.length
    for (const capture of match.captures) {
      const role = roles.get(capture.name)!
      switch (role.role) {
        case 'definition':
          def = { node: capture.node, kind: role.kind, weak: role.weak, pattern: match.patternIndex }
          break
        case 'container': def = { node: capture.node, kind: 'container', weak: false, pattern: match.patternIndex }; break
        case 'name': name = capture.node; break
        case 'scope': qualifier = capture.node; break
        case 'body': body = capture.node; break
        case 'sig': sig = capture.node; break
        case 'reference': refs.push({ node: capture.node, kind: role.kind, pattern: match.patternIndex }); break
        case 'receiver': receiver = capture.node; break
        case 'local': locals.push(capture.node); break
        case 'import': readImport(capture.node, source, imports, importedName); break
        case 'ignore': break
      }
    }
    // A container may lack a name (Ruby `class << self`): it still scopes what is inside it.
    if (def && (name || def.kind === 'container')) defs.push({ ...def, name, qualifier, body, sig })
    if (receiver) for (let i = firstRef; i < refs.length; i++) refs[i]!.receiver = receiver
  }

  const { symbols, scopes, nameStarts } = resolveDefinitions(defs, source)
  const references = resolveReferences(refs, locals, scopes, nameStarts, source)
  return { symbols, references, imports }
}

function resolveDefinitions(candidates: DefCandidate[], source: string): {
  symbols: SymbolDef[]
  scopes: Scope[]
  nameStarts: Set<number>
} {
  // Several patterns may claim one name (a decorated function is also a function); the first
  // pattern in the query file is the most specific and wins.
  candidates.sort((a, b) => nameStart(a) - nameStart(b) || a.pattern - b.pattern)
  const unique: Array<DefCandidate & { start: number; end: number }> = []
  let lastName = -2
  for (const candidate of candidates) {
    const at = nameStart(candidate)
    if (candidate.name && at === lastName) continue
    lastName = at
    unique.push({ ...candidate, start: candidate.node.startIndex, end: candidate.node.endIndex })
  }
  unique.sort((a, b) => a.start - b.start || b.end - a.end)

  const symbols: SymbolDef[] = []
  const weak: Array<{ symbol: SymbolDef; index: number }> = []
  const strong = new Set<string>()
  const scopes: Scope[] = []
  const nameStarts = new Set<number>()
  const open: Scope[] = []
  for (const def of unique) {
    while (open.length > 0 && open[open.length - 1]!.end <= def.start) open.pop()
    const parent = open[open.length - 1]
    const name = def.name ? def.name.text : ''
    if (def.name) nameStarts.add(def.name.startIndex)
    if ((def.kind === 'variable' || def.kind === 'constant') && parent && FUNCTION_SCOPES.has(parent.kind)) {
      ;(parent.locals ??= new Set()).add(name)
      continue
    }
    const kind = def.kind === 'function' && parent && TYPE_SCOPES.has(parent.kind) ? 'method' : def.kind
    const scopeName = qualify(parent?.qualifiedName ?? '', def.qualifier ? qualifierText(def.qualifier) : '')
    const scope: Scope = { start: def.start, end: def.end, kind, qualifiedName: qualify(scopeName, name) }
    scopes.push(scope)
    open.push(scope)
    if (kind === 'container') continue

    const startRow = def.node.startPosition.row
    const end = def.node.endPosition
    const symbol: SymbolDef = {
      name,
      qualifiedName: scope.qualifiedName,
      kind,
      line: startRow + 1,
      // Nodes that swallow their trailing newline (`#define`) end at column 0 of the next line.
      endLine: end.column === 0 && end.row > startRow ? end.row : end.row + 1,
      column: def.name!.startPosition.column,
      signature: signatureText(source, (def.sig ?? def.node).startIndex, def.body ? def.body.startIndex : def.end),
      scope: scopeName,
    }
    if (def.weak) weak.push({ symbol, index: symbols.length })
    else strong.add(symbol.qualifiedName)
    symbols.push(symbol)
  }
  // A signature without a body (overload, prototype-like declaration) only stands for the
  // symbol when the file has no full definition of it.
  const shadowed = new Set(weak.filter((w) => strong.has(w.symbol.qualifiedName)).map((w) => w.index))
  return { symbols: shadowed.size ? symbols.filter((_, i) => !shadowed.has(i)) : symbols, scopes, nameStarts }
}

function resolveReferences(
  candidates: RefCandidate[],
  locals: Node[],
  scopes: Scope[],
  nameStarts: Set<number>,
  source: string,
): SymbolRef[] {
  const rootLocals = new Set<string>()
  const localCursor = new ScopeCursor(scopes)
  locals.sort((a, b) => a.startIndex - b.startIndex)
  for (const local of locals) {
    const open = localCursor.at(local.startIndex)
    const owner = open[open.length - 1]
    const names = owner ? (owner.locals ??= new Set()) : rootLocals
    names.add(local.text)
  }

  const starts = candidates.map((c) => c.node.startIndex)
  const order = candidates.map((_, i) => i)
  order.sort((a, b) => starts[a]! - starts[b]! || candidates[a]!.pattern - candidates[b]!.pattern)

  const references: SymbolRef[] = []
  const cursor = new ScopeCursor(scopes)
  let lastStart = -1
  for (const i of order) {
    const start = starts[i]!
    if (start === lastStart || nameStarts.has(start)) continue
    lastStart = start
    const ref = candidates[i]!
    const open = cursor.at(start)
    const name = source.slice(start, ref.node.endIndex)
    if (!ref.receiver && ref.kind !== 'import' && isLocal(name, open, rootLocals)) continue
    const position = ref.node.startPosition
    const reference: SymbolRef = {
      name,
      line: position.row + 1,
      column: position.column,
      kind: ref.kind,
      enclosing: open.length > 0 ? open[open.length - 1]!.qualifiedName : '',
    }
    if (ref.receiver) {
      const receiver = collapse(source.slice(ref.receiver.startIndex, ref.receiver.endIndex))
      if (receiver.length <= MAX_RECEIVER) reference.receiver = receiver
    }
    references.push(reference)
  }
  return references
}

function isLocal(name: string, open: readonly Scope[], rootLocals: Set<string>): boolean {
  // Top-level bindings do not reach into definitions (Ruby methods, C prototypes' parameters).
  if (open.length === 0) return rootLocals.has(name)
  for (let i = open.length - 1; i >= 0; i--) if (open[i]!.locals?.has(name)) return true
  return false
}

function nameStart(def: DefCandidate): number {
  return def.name ? def.name.startIndex : -1
}

/** `Foo<T>::`, `a::b`, `Foo.prototype`, `module.exports` → dotted qualified-name segments. */
function qualifierText(node: Node): string {
  return node.text
    .replace(/<[^<>]*(<[^<>]*>[^<>]*)*>/g, '')
    .replace(/::/g, '.')
    .replace(/^(module\.exports|exports|this|self)(\.|$)/, '')
    .replace(/\.prototype$|\.prototype(?=\.)/g, '')
    .replace(/^\*+|\s+/g, '')
}

function collapse(text: string): string {
  return /\s/.test(text) ? text.replace(/\s+/g, ' ') : text
}
