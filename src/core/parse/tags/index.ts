import type { Node, Tree } from 'web-tree-sitter'
import type { ParsedLanguageId } from '../languages.js'
import type { LimitWatch } from '../limits.js'
import type { ImportRef, ReferenceKind, SymbolDef, SymbolKind, SymbolRef } from '../types.js'
import { captureRoles, type Role } from './captures.js'
import { IMPORT_READERS } from './imports.js'
import { tagsQuery } from './query.js'
import { RawMatches } from './raw-matches.js'
import { readDocLinks } from './doc-links.js'
import { ScopeCursor, qualify, type LocalNames, type Scope } from './scopes.js'
import { signatureText } from './signature.js'

export interface Tags {
  symbols: SymbolDef[]
  references: SymbolRef[]
  imports: ImportRef[]
}

interface DefCandidate {
  /** The definition's capture in `matches`, and its name's (-1 for a nameless container). */
  node: number
  name: number
  kind: SymbolKind | 'container'
  weak: boolean
  /** Text of an explicit qualifier (`Foo::`, a Go receiver type), '' when none. */
  qualifier: string
  /** Where the body starts (the signature ends there), -1 when none. */
  bodyStart: number
  /** Where the signature starts when it is not the definition's start, -1 otherwise. */
  sigStart: number
  /** Where the definition's own scope starts when it is not the definition's start (after Python decorators), -1 otherwise. */
  insideStart: number
  pattern: number
  /** Where the name starts, -1 for a nameless container. */
  nameStart: number
  /** The definition's range, read only for the definitions that survive deduplication. */
  start: number
  end: number
}

interface RefCandidate {
  start: number
  end: number
  row: number
  column: number
  kind: ReferenceKind
  /** The receiver's text, or its range in the source. */
  receiver: string | { start: number; end: number } | undefined
  pattern: number
}

interface LocalCandidate {
  start: number
  end: number
  /** A type parameter: it hides type references, which other locals do not (`struct ring *ring`). */
  type: boolean
}

/** Kinds whose directly nested functions are methods. */
const TYPE_SCOPES = new Set<Scope['kind']>(['class', 'interface', 'struct', 'trait', 'enum', 'container'])
const FUNCTION_SCOPES = new Set<Scope['kind']>(['function', 'method'])
const MAX_RECEIVER = 80
const STRIDE = RawMatches.CAPTURE_STRIDE

/**
 * Definitions, references and imports of one parsed file, from one run of the language's tags
 * query over the tree the chunker also uses. Nesting (qualified names, enclosing definitions) is
 * derived from the captured definitions' ranges, never from a second walk of the tree.
 */
export function extractTags(tree: Tree, language: ParsedLanguageId, source: string, limits?: LimitWatch): Tags {
  const query = tagsQuery(tree.language, language)
  const roles = captureRoles(query)
  const readImport = IMPORT_READERS[language]
  const matches = new RawMatches(query, tree, source, limits?.check)
  limits?.verify()

  const defs: DefCandidate[] = []
  const refs: RefCandidate[] = []
  const locals: LocalCandidate[] = []
  const imports: ImportRef[] = []
  const importedName = (node: Node): void => {
    const { row, column } = node.startPosition
    refs.push({ start: node.startIndex, end: node.endIndex, row, column, kind: 'import', receiver: undefined, pattern: -1 })
  }

  for (let m = 0; m < matches.count; m++) {
    const pattern = matches.pattern(m)
    let defRole: (Role & { role: 'definition' | 'container' }) | undefined
    let defNode = -1
    let name = -1
    let qualifier = -1
    let bodyStart = -1
    let sigStart = -1
    let insideStart = -1
    let receiver = -1
    const firstRef = refs.length
    const first = matches.firstCapture(m)
    const last = first + matches.captureCount(m) * STRIDE
    for (let capture = first; capture < last; capture += STRIDE) {
      const role = roles[matches.captureIndex(capture)]!
      switch (role.role) {
        case 'definition': case 'container': defRole = role; defNode = capture; break
        case 'name': name = capture; break
        case 'scope': qualifier = capture; break
        case 'body': bodyStart = matches.start(capture); break
        case 'sig': sigStart = matches.start(capture); break
        case 'inside': insideStart = matches.start(capture); break
        case 'reference': {
          const start = matches.start(capture)
          refs.push({ start, end: matches.end(capture), row: matches.row(capture), column: matches.column(capture), kind: role.kind, receiver: undefined, pattern })
          break
        }
        case 'receiver': receiver = capture; break
        case 'local': locals.push({ start: matches.start(capture), end: matches.end(capture), type: role.type }); break
        case 'import': {
          const node = matches.node(capture)
          if (node) readImport(node, source, imports, importedName)
          break
        }
        case 'doc': {
          const comment = { start: matches.start(capture), end: matches.end(capture), row: matches.row(capture), column: matches.column(capture) }
          readDocLinks(comment, source, (link) => refs.push({ ...link, kind: 'doc', pattern }))
          break
        }
        case 'ignore': break
      }
    }
    // A container may lack a name (Ruby `class << self`): it still scopes what is inside it.
    if (defRole && (name >= 0 || defRole.role === 'container')) {
      defs.push({
        node: defNode,
        name,
        kind: defRole.role === 'container' ? 'container' : defRole.kind,
        weak: defRole.role === 'definition' && defRole.weak,
        qualifier: qualifier >= 0 ? qualifierText(source.slice(matches.start(qualifier), matches.end(qualifier))) : '',
        bodyStart,
        sigStart,
        insideStart,
        pattern,
        nameStart: name >= 0 ? matches.start(name) : -1,
        start: 0,
        end: 0,
      })
    }
    if (receiver >= 0) {
      const range = { start: matches.start(receiver), end: matches.end(receiver) }
      for (let i = firstRef; i < refs.length; i++) refs[i]!.receiver = range
    }
  }

  const { symbols, scopes, nameStarts } = resolveDefinitions(defs, matches, source)
  const references = resolveReferences(refs, locals, scopes, nameStarts, source)
  return { symbols, references, imports }
}

function resolveDefinitions(candidates: DefCandidate[], matches: RawMatches, source: string): {
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
    candidate.start = matches.start(candidate.node)
    candidate.end = matches.end(candidate.node)
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
    const name = def.name >= 0 ? source.slice(def.nameStart, matches.end(def.name)) : ''
    if (def.name >= 0) nameStarts.add(def.nameStart)
    if ((def.kind === 'variable' || def.kind === 'constant') && parent && FUNCTION_SCOPES.has(parent.kind)) {
      ;(parent.locals ??= { values: new Set(), types: new Set() }).values.add(name)
      continue
    }
    const kind = def.kind === 'function' && parent && TYPE_SCOPES.has(parent.kind) ? 'method' : def.kind
    const scopeName = qualify(parent?.qualifiedName ?? '', def.qualifier)
    const scope: Scope = { start: def.insideStart >= 0 ? def.insideStart : def.start, end: def.end, kind, qualifiedName: qualify(scopeName, name) }
    scopes.push(scope)
    open.push(scope)
    if (kind === 'container') continue

    const startRow = matches.row(def.node)
    const end = matches.endPosition(def.node)
    const symbol: SymbolDef = {
      name,
      qualifiedName: scope.qualifiedName,
      kind,
      line: startRow + 1,
      // Nodes that swallow their trailing newline (`#define`) end at column 0 of the next line.
      endLine: end.column === 0 && end.row > startRow ? end.row : end.row + 1,
      column: matches.column(def.name),
      signature: signatureText(source, def.sigStart >= 0 ? def.sigStart : def.start, def.bodyStart >= 0 ? def.bodyStart : def.end),
      scope: scopeName,
    }
    if (def.weak) weak.push({ symbol, index: symbols.length })
    else strong.add(symbol.qualifiedName)
    symbols.push(symbol)
  }
  // A signature without a body (overload, prototype-like declaration) only stands for the
  // symbol when the file has no full definition of it.
  const shadowed = new Set(weak.filter((w) => strong.has(w.symbol.qualifiedName)).map((w) => w.index))
  // A scope starting after its decorators can start after a definition inside them (`@route(x := 1)`):
  // ScopeCursor walks scopes by where they start.
  scopes.sort(byRange)
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
    ;(local.type ? names.types : names.values).add(source.slice(local.start, local.end))
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
    const reference: SymbolRef = {
      name,
      line: ref.row + 1,
      column: ref.column,
      kind: ref.kind,
      enclosing: open.length > 0 ? open[open.length - 1]!.qualifiedName : '',
    }
    if (ref.receiver) {
      const receiver = typeof ref.receiver === 'string' ? ref.receiver : collapse(source.slice(ref.receiver.start, ref.receiver.end))
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

function byRange(a: { start: number; end: number }, b: { start: number; end: number }): number {
  return a.start - b.start || b.end - a.end
}

function byStart(a: { start: number }, b: { start: number }): number {
  return a.start - b.start
}

function byStartThenPattern(a: RefCandidate, b: RefCandidate): number {
  return a.start - b.start || a.pattern - b.pattern
}
/** `Foo<T>::`, `a::b`, `Foo.prototype`, `module.exports` → dotted qualified-name segments. */
function qualifierText(text: string): string {
  return text
    .replace(/<[^<>]*(<[^<>]*>[^<>]*)*>/g, '')
    .replace(/::/g, '.')
    .replace(/^(module\.exports|exports|this|self)(\.|$)/, '')
    .replace(/\.prototype$|\.prototype(?=\.)/g, '')
    .replace(/^\*+|\s+/g, '')
}

function collapse(text: string): string {
  return /\s/.test(text) ? text.replace(/\s+/g, ' ') : text
}
