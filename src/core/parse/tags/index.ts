import type { Node, Tree } from 'web-tree-sitter'
import type { ParsedLanguageId } from '../languages.js'
import type { ImportRef, ReferenceKind, SymbolDef, SymbolKind, SymbolRef } from '../types.js'
import { captureRoles, type Role } from './captures.js'
import { IMPORT_READERS } from './imports.js'
import { tagsQuery } from './query.js'
import { readDocLinks } from './doc-links.js'
import { ScopeCursor, qualify, type LocalNames, type Scope } from './scopes.js'
import { signatureText } from './signature.js'

export interface Tags {
  symbols: SymbolDef[]
  references: SymbolRef[]
  imports: ImportRef[]
}

interface DefCandidate {
  node: Node
  name: Node | undefined
  kind: SymbolKind | 'container'
  weak: boolean
  qualifier: Node | undefined
  body: Node | undefined
  sig: Node | undefined
  pattern: number
  /** Where the name starts, -1 for a nameless container. */
  nameStart: number
  /** The definition's range, read only for the definitions that survive deduplication. */
  start: number
  end: number
}

interface RefCandidate {
  /** The name's node; a name read out of a comment has none, and gives its end and position. */
  node: Node | undefined
  start: number
  end: number
  row: number
  column: number
  kind: ReferenceKind
  receiver: Node | string | undefined
  pattern: number
}

interface LocalCandidate {
  node: Node
  start: number
  /** A type parameter: it hides type references, which other locals do not (`struct ring *ring`). */
  type: boolean
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
  const locals: LocalCandidate[] = []
  const imports: ImportRef[] = []
  const nodeRef = (node: Node, kind: ReferenceKind, pattern: number): RefCandidate =>
    ({ node, start: node.startIndex, end: node.endIndex, row: 0, column: 0, kind, receiver: undefined, pattern })
  const importedName = (node: Node): void => {
    refs.push(nodeRef(node, 'import', -1))
  }

  for (const match of query.matches(tree.rootNode)) {
    const pattern = match.patternIndex
    let defRole: (Role & { role: 'definition' | 'container' }) | undefined
    let defNode: Node | undefined
    let name: Node | undefined
    let qualifier: Node | undefined
    let body: Node | undefined
    let sig: Node | undefined
    let receiver: Node | undefined
    const firstRef = refs.length
    for (const capture of match.captures) {
      const role = roles.get(capture.name)!
      const node = capture.node
      switch (role.role) {
        case 'definition': case 'container': defRole = role; defNode = node; break
        case 'name': name = node; break
        case 'scope': qualifier = node; break
        case 'body': body = node; break
        case 'sig': sig = node; break
        case 'reference': refs.push(nodeRef(node, role.kind, pattern)); break
        case 'receiver': receiver = node; break
        case 'local': locals.push({ node, start: node.startIndex, type: role.type }); break
        case 'import': readImport(node, source, imports, importedName); break
        case 'doc':
          readDocLinks(node, source, (link) => refs.push({ node: undefined, ...link, kind: 'doc', pattern }))
          break
        case 'ignore': break
      }
    }
    // A container may lack a name (Ruby `class << self`): it still scopes what is inside it.
    if (defRole && (name || defRole.role === 'container')) {
      defs.push({
        node: defNode!,
        name,
        kind: defRole.role === 'container' ? 'container' : defRole.kind,
        weak: defRole.role === 'definition' && defRole.weak,
        qualifier,
        body,
        sig,
        pattern,
        nameStart: name ? name.startIndex : -1,
        start: 0,
        end: 0,
      })
    }
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
  candidates.sort(byNameThenPattern)
  const unique: DefCandidate[] = []
  let lastName = -2
  for (const candidate of candidates) {
    const at = candidate.nameStart
    if (at >= 0 && at === lastName) continue
    lastName = at
    candidate.start = candidate.node.startIndex
    candidate.end = candidate.node.endIndex
    unique.push(candidate)
  }
  unique.sort(byRange)

  const symbols: SymbolDef[] = []
  const weak: Array<{ symbol: SymbolDef; index: number }> = []
  const strong = new Set<string>()
  const scopes: Scope[] = []
  const nameStarts = new Set<number>()
  const open: Scope[] = []
  for (const def of unique) {
    while (open.length > 0 && open[open.length - 1]!.end <= def.start) open.pop()
    const parent = open[open.length - 1]
    const name = def.name ? source.slice(def.nameStart, def.name.endIndex) : ''
    if (def.name) nameStarts.add(def.nameStart)
    if ((def.kind === 'variable' || def.kind === 'constant') && parent && FUNCTION_SCOPES.has(parent.kind)) {
      ;(parent.locals ??= { values: new Set(), types: new Set() }).values.add(name)
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
  locals: LocalCandidate[],
  scopes: Scope[],
  nameStarts: Set<number>,
  source: string,
): SymbolRef[] {
  const rootLocals: LocalNames = { values: new Set(), types: new Set() }
  const localCursor = new ScopeCursor(scopes)
  locals.sort(byStart)
  for (const local of locals) {
    const open = localCursor.at(local.start)
    const owner = open[open.length - 1]
    const names = owner ? (owner.locals ??= { values: new Set(), types: new Set() }) : rootLocals
    ;(local.type ? names.types : names.values).add(source.slice(local.start, local.node.endIndex))
  }

  // Matches come out nearly in source order, which the sort is quick to finish.
  candidates.sort(byStartThenPattern)
  const references: SymbolRef[] = []
  const cursor = new ScopeCursor(scopes)
  let lastStart = -1
  for (const ref of candidates) {
    const start = ref.start
    if (start === lastStart || nameStarts.has(start)) continue
    lastStart = start
    const open = cursor.at(start)
    const name = source.slice(start, ref.end)
    if (!ref.receiver && ref.kind !== 'import' && isLocal(name, ref.kind === 'type', open, rootLocals)) continue
    const position = ref.node ? ref.node.startPosition : { row: ref.row, column: ref.column }
    const reference: SymbolRef = {
      name,
      line: position.row + 1,
      column: position.column,
      kind: ref.kind,
      enclosing: open.length > 0 ? open[open.length - 1]!.qualifiedName : '',
    }
    if (ref.receiver) {
      const receiver = typeof ref.receiver === 'string' ? ref.receiver : collapse(source.slice(ref.receiver.startIndex, ref.receiver.endIndex))
      if (receiver.length <= MAX_RECEIVER) reference.receiver = receiver
    }
    references.push(reference)
  }
  return references
}

/**
 * Whether a bare name is bound inside the definitions around it. A type reference is hidden only
 * by a type parameter: `struct ring *ring` still refers to the type `ring`.
 */
function isLocal(name: string, type: boolean, open: readonly Scope[], rootLocals: LocalNames): boolean {
  // Top-level bindings do not reach into definitions (Ruby methods, C prototypes' parameters).
  if (open.length === 0) return hides(rootLocals, name, type)
  for (let i = open.length - 1; i >= 0; i--) {
    const locals = open[i]!.locals
    if (locals && hides(locals, name, type)) return true
  }
  return false
}

function hides(locals: LocalNames, name: string, type: boolean): boolean {
  return locals.types.has(name) || (!type && locals.values.has(name))
}

function byNameThenPattern(a: DefCandidate, b: DefCandidate): number {
  return a.nameStart - b.nameStart || a.pattern - b.pattern
}

function byRange(a: DefCandidate, b: DefCandidate): number {
  return a.start - b.start || b.end - a.end
}

function byStart(a: { start: number }, b: { start: number }): number {
  return a.start - b.start
}

function byStartThenPattern(a: RefCandidate, b: RefCandidate): number {
  return a.start - b.start || a.pattern - b.pattern
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
