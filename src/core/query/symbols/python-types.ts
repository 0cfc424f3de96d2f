/**
 * The class of a Python receiver, as far as the file's own text says it — what a type checker
 * would know without inference across calls: `self`/`cls` (the enclosing class), `super()` (its
 * bases), a parameter's annotation (`ctx: Context`, `t.Optional[Context]`, `Context | None`), a
 * local assigned only from one class's constructor or under one annotation in the same function,
 * and `self.attr` declared with an annotation (`self.json: JSONProvider = …`, `json: JSONProvider`
 * in the class body) or assigned from a constructor, in the class or a base. A member reached
 * through a known class is the first definition of that name along the class's bases (in
 * breadth-first order, close enough to the C3 order for finding the one definition that wins).
 * Anything else is undecided here and left to the syntactic rules.
 */
import type { SymbolInfo, SymbolTable } from '../../graph/symbol-table.js'
import type { FileArtifact, SymbolRef } from '../../parse/types.js'
import { findCandidates } from './candidates.js'
import type { Exposure } from './exposure.js'

export type MemberVerdict = 'keep' | 'drop' | 'ambiguous'

/**
 * A receiver's class: its name, and whether lookup starts at its bases (`super()`); or `untyped`,
 * a parameter without an annotation (a pytest fixture's `client`), whose class nothing says.
 */
type ReceiverClass = { name: string; basesOnly: boolean } | 'untyped'

const IDENTIFIER = /^[A-Za-z_]\w*$/
/** Names that say nothing about the class (or are the class of everything). */
const UNINFORMATIVE = new Set(['Any', 'object', 'Self', 'None', 'type', 'Type'])
/** Bases that add no members a repository defines. */
const ROOT_BASES = new Set(['object', 'Generic', 'Protocol', 'ABC', 'NamedTuple', 'TypedDict', 'Enum'])
const MAX_HEADER_LINES = 40

export class PythonTypes {
  private readonly classes = new Map<string, SymbolInfo[]>()
  private readonly lines = new Map<string, string[]>()
  private readonly attributes = new Map<string, string | null>()

  constructor(
    private readonly table: SymbolTable,
    private readonly artifactOf: (path: string) => FileArtifact | null,
  ) {}

  /**
   * `keep` or `drop` when the receiver's class is known and decides which definition of the
   * member it reaches, undefined otherwise.
   */
  memberVerdict(ref: SymbolRef, receiver: string, path: string, targets: readonly SymbolInfo[], others: readonly SymbolInfo[]): MemberVerdict | undefined {
    const type = this.receiverClass(ref, receiver, path)
    if (!type) return undefined
    // A top-level function is never reached through an object.
    if (type === 'untyped') return targets.some((t) => t.scope !== '') ? 'ambiguous' : 'drop'
    const definedIn = (defs: readonly SymbolInfo[], className: string): boolean => defs.some((d) => d.scope !== '' && lastSegment(d.scope) === className && this.isClass(d.path, d.scope))
    for (const className of this.lineage(type.name, type.basesOnly)) {
      if (definedIn(targets, className)) return 'keep'
      if (definedIn(others, className)) return 'drop'
    }
    // No class along the receiver's bases defines the name: it is a member of another class
    // (one outside the repository, or reached by `__getattr__`), never a top-level function.
    return 'drop'
  }

  /**
   * `from m import name` (the import's own occurrence of the name): decided by what m makes
   * visible, whatever the importing file defines; undefined when no import row of the file names it.
   */
  importVerdict(path: string, name: string, line: number, exposure: ReadonlyMap<string, Exposure>): MemberVerdict | undefined {
    let row: ReturnType<SymbolTable['imports']>[number] | undefined
    for (const r of this.table.imports(path)) if (r.name === name && r.line <= line && (!row || r.line > row.line)) row = r
    if (!row) return undefined
    if (!row.resolved || row.resolved.isDir) return 'ambiguous'
    const label = exposure.get(row.resolved.path)
    return label === 'target' ? 'keep' : label === 'both' ? 'ambiguous' : 'drop'
  }

  private receiverClass(ref: SymbolRef, receiver: string, path: string): ReceiverClass | undefined {
    const artifact = this.artifactOf(path)
    if (!artifact) return undefined
    if (receiver === 'self' || receiver === 'cls' || receiver === 'super()') {
      const owner = enclosingClass(artifact, ref.enclosing)
      return owner ? { name: owner.name, basesOnly: receiver === 'super()' } : undefined
    }
    if (IDENTIFIER.test(receiver)) {
      const name = this.localType(artifact, path, ref.enclosing, receiver)
      return name === 'untyped' ? name : name ? { name, basesOnly: false } : undefined
    }
    // `BaseArchive().extract(…)`: a constructor's result.
    const constructed = /^[A-Za-z_][\w.]*\(.*\)$/.test(receiver) ? this.constructed(receiver) : undefined
    if (constructed) return { name: constructed, basesOnly: false }
    const attribute = /^(self|cls)\.([A-Za-z_]\w*)$/.exec(receiver)
    if (attribute) {
      const owner = enclosingClass(artifact, ref.enclosing)
      const name = owner && this.attributeType(owner.name, attribute[2]!)
      return name ? { name, basesOnly: false } : undefined
    }
    return undefined
  }

  /**
   * The class of a local name in the innermost function binding it, from its annotation or
   * constructor calls; `untyped` for a parameter without annotation nor assignment.
   */
  private localType(artifact: FileArtifact, path: string, enclosing: string, name: string): string | 'untyped' | undefined {
    const lines = this.fileLines(path, artifact)
    for (let scope = enclosing; scope !== ''; scope = parentOf(scope)) {
      const fn = artifact.symbols.find((s) => s.qualifiedName === scope && (s.kind === 'function' || s.kind === 'method'))
      if (!fn) continue
      const { header, bodyStart } = headerOf(lines, fn.line, fn.endLine)
      const param = parameter(header, name)
      const types = new Set<string>()
      if (param !== undefined && param !== 'untyped') types.add(param)
      const assignment = new RegExp(`^\\s*${name}\\s*(?::\\s*(.+?))?\\s*=(?!=)\\s*(.*)$`)
      for (let line = bodyStart; line <= fn.endLine; line++) {
        const match = assignment.exec(lines[line - 1] ?? '')
        if (!match) continue
        const type = match[1] ? typeName(match[1]) : this.constructed(match[2]!)
        if (!type) return undefined
        types.add(type)
      }
      if (param === 'untyped' && types.size === 0) return 'untyped'
      if (param !== undefined || types.size > 0) return types.size === 1 && param !== 'untyped' ? [...types][0] : undefined
    }
    return undefined
  }

  /** `Name(…)` or `pkg.Name(…)` where Name is a class of the repository: that class. */
  private constructed(expression: string): string | undefined {
    const call = /^([A-Za-z_][\w.]*)\(/.exec(expression)
    if (!call) return undefined
    const name = lastSegment(call[1]!)
    return this.classDefs(name).length > 0 ? name : undefined
  }

  /** The declared class of `self.attr`, looked for in the class and then its bases. */
  private attributeType(className: string, attr: string): string | undefined {
    for (const owner of this.lineage(className, false)) {
      const key = `${owner}\0${attr}`
      let found = this.attributes.get(key)
      if (found === undefined) {
        found = null
        for (const def of this.classDefs(owner)) {
          const type = this.declaredIn(def, attr)
          if (type) {
            found = type
            break
          }
        }
        this.attributes.set(key, found)
      }
      if (found) return found
    }
    return undefined
  }

  private declaredIn(def: SymbolInfo, attr: string): string | undefined {
    const artifact = this.artifactOf(def.path)
    if (!artifact) return undefined
    const lines = this.fileLines(def.path, artifact)
    const annotated = new RegExp(`^\\s*(?:self\\.)?${attr}\\s*:\\s*([^=]+?)\\s*(?:=.*)?$`)
    const assigned = new RegExp(`^\\s*self\\.${attr}\\s*=(?!=)\\s*(.*)$`)
    let fromConstructor: string | undefined
    for (let line = def.line; line <= def.endLine; line++) {
      const text = lines[line - 1] ?? ''
      const annotation = annotated.exec(text)
      if (annotation) {
        const type = typeName(annotation[1]!)
        if (type) return type
      }
      const assignment = assigned.exec(text)
      if (assignment && !fromConstructor) fromConstructor = this.constructed(assignment[1]!) ?? annotatedParameter(artifact, lines, line, assignment[1]!)
    }
    return fromConstructor
  }

  /** The class and its bases, breadth first, each once (`super()`: the bases only). */
  private lineage(className: string, basesOnly: boolean): string[] {
    const order = [className]
    for (let i = 0; i < order.length; i++) {
      for (const def of this.classDefs(order[i]!)) {
        for (const base of basesOf(def.signature)) if (!order.includes(base) && !ROOT_BASES.has(base)) order.push(base)
      }
    }
    return basesOnly ? order.slice(1) : order
  }

  private classDefs(name: string): SymbolInfo[] {
    let defs = this.classes.get(name)
    if (!defs) this.classes.set(name, (defs = findCandidates(this.table, name).filter((c) => c.kind === 'class' && c.name === name)))
    return defs
  }

  private isClass(path: string, scope: string): boolean {
    return this.classDefs(lastSegment(scope)).some((c) => c.path === path && c.qualifiedName === scope)
  }

  /** The file's lines as stored in its chunks (1-based line n is entry n - 1). */
  private fileLines(path: string, artifact: FileArtifact): string[] {
    let lines = this.lines.get(path)
    if (!lines) {
      lines = new Array<string>(artifact.lineCount).fill('')
      for (const chunk of artifact.chunks) {
        const body = chunk.body.split('\n')
        for (let i = 0; i < body.length; i++) if (!lines[chunk.startLine - 1 + i]) lines[chunk.startLine - 1 + i] = body[i]!
      }
      this.lines.set(path, lines)
    }
    return lines
  }
}

/** `self.x = x` in a method whose parameter `x` is annotated with a class: that class. */
function annotatedParameter(artifact: FileArtifact, lines: string[], line: number, expression: string): string | undefined {
  const name = /^([A-Za-z_]\w*)\s*(#.*)?$/.exec(expression.trim())?.[1]
  if (!name) return undefined
  let method: FileArtifact['symbols'][number] | undefined
  for (const s of artifact.symbols) {
    if ((s.kind === 'method' || s.kind === 'function') && s.line <= line && s.endLine >= line && (!method || s.line >= method.line)) method = s
  }
  if (!method) return undefined
  const type = parameter(headerOf(lines, method.line, method.endLine).header, name)
  return type === 'untyped' ? undefined : type
}

/** The class defining the method `enclosing` is in (`Flask.run.inner` → `Flask`). */
function enclosingClass(artifact: FileArtifact, enclosing: string): { name: string } | undefined {
  for (let scope = enclosing; scope !== ''; scope = parentOf(scope)) {
    const def = artifact.symbols.find((s) => s.qualifiedName === scope)
    if (def?.kind === 'class') return { name: def.name }
  }
  return undefined
}

/** A function's header (decorators skipped, up to the line ending in `:`) and where its body starts. */
function headerOf(lines: string[], first: number, last: number): { header: string; bodyStart: number } {
  let line = first
  while (line <= last && /^\s*@/.test(lines[line - 1] ?? '')) line++
  const parts: string[] = []
  for (let end = Math.min(last, line + MAX_HEADER_LINES); line <= end; line++) {
    const text = lines[line - 1] ?? ''
    parts.push(text.trim())
    if (/:\s*(#.*)?$/.test(text) && balanced(parts.join(' '))) return { header: parts.join(' '), bodyStart: line + 1 }
  }
  return { header: parts.join(' '), bodyStart: line }
}

function balanced(text: string): boolean {
  let depth = 0
  for (const char of text) {
    if (char === '(' || char === '[') depth++
    else if (char === ')' || char === ']') depth--
  }
  return depth === 0
}

/** A parameter's annotated class, 'untyped' for a parameter without one, undefined when it is not a parameter. */
function parameter(header: string, name: string): string | 'untyped' | undefined {
  const open = header.indexOf('(')
  if (open < 0) return undefined
  for (const param of splitTopLevel(header.slice(open + 1, closingParen(header, open)))) {
    const match = /^\*{0,2}([A-Za-z_]\w*)\s*(?::\s*(.*?))?\s*(?:=.*)?$/.exec(param.trim())
    if (!match || match[1] !== name) continue
    return match[2] ? typeName(match[2]) ?? 'untyped' : 'untyped'
  }
  return undefined
}

function closingParen(text: string, open: number): number {
  let depth = 0
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(' || text[i] === '[') depth++
    else if (text[i] === ')' || text[i] === ']') {
      depth--
      if (depth === 0) return i
    }
  }
  return text.length
}

function splitTopLevel(text: string): string[] {
  const out: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (char === '(' || char === '[') depth++
    else if (char === ')' || char === ']') depth--
    else if (char === ',' && depth === 0) {
      out.push(text.slice(start, i))
      start = i + 1
    }
  }
  out.push(text.slice(start))
  return out
}

/**
 * The class an annotation names: quotes dropped, `Optional[X]` and `X | None` read as X, a
 * generic `X[...]` as X, `pkg.X` as X; undefined for unions of several classes and for
 * annotations that name no class (`Any`, `type[X]`, `Callable[…]`).
 */
export function typeName(annotation: string): string | undefined {
  let text = annotation.replace(/["']/g, '').replace(/#.*$/, '').trim()
  const optional = /^(?:[\w.]+\.)?Optional\[(.*)\]$/.exec(text)
  if (optional) text = optional[1]!.trim()
  const parts = splitTopLevel(text.replace(/\|/g, ',')).map((p) => p.trim()).filter((p) => p !== 'None')
  if (parts.length !== 1) return undefined
  const generic = /^([\w.]+)(\[.*\])?$/.exec(parts[0]!)
  if (!generic) return undefined
  const name = lastSegment(generic[1]!)
  if (!IDENTIFIER.test(name) || UNINFORMATIVE.has(name) || name === 'Callable' || name === 'Union') return undefined
  return name
}

/** `class A(B, pkg.C[T], metaclass=M)` → [B, C]. */
export function basesOf(signature: string): string[] {
  const open = signature.indexOf('(')
  if (!signature.startsWith('class ') || open < 0) return []
  const out: string[] = []
  for (const base of splitTopLevel(signature.slice(open + 1, closingParen(signature, open)))) {
    const text = base.trim()
    if (text === '' || text.includes('=') || text.startsWith('*')) continue
    const name = /^([\w.]+)/.exec(text)?.[1]
    if (name) out.push(lastSegment(name))
  }
  return out
}

function parentOf(scope: string): string {
  const dot = scope.lastIndexOf('.')
  return dot < 0 ? '' : scope.slice(0, dot)
}

function lastSegment(text: string): string {
  return text.slice(text.lastIndexOf('.') + 1)
}
