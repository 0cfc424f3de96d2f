/**
 * The class of a Python receiver, as far as the file's own text says it — what a type checker
 * would know without inference across calls — read along the receiver's chain: `self`/`cls` (the
 * enclosing class), `super()` (its bases), a local's or module-level name's declared type (`ctx:
 * Context`, `t.Optional[Context]`, `Context | None`) or the one class its assignments make (a
 * constructor, a literal), then each attribute through its declared type in the class or a base
 * (`self.json: JSONProvider = …`, `json: JSONProvider` in the class body, `self.x = X(…)`, a
 * property's return annotation) and each method call through its return annotation. A member
 * reached through a known class is the first definition of that name along the class's bases (in
 * breadth-first order, close enough to the C3 order for finding the one definition that wins); a
 * class outside the repository (`dict`) has none. Anything else is undecided here and left to the
 * syntactic rules.
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
/** The class of an instance of a class outside the repository (no identifier: never one of its classes). */
const OUTSIDE = '<outside>'
/** What a method returning `self` returns: the class of the object it is called on. */
const SELF_RETURN = '<self>'
/** Names that say nothing about the class (or are the class of everything). */
const UNINFORMATIVE = new Set(['Any', 'object', 'Self', 'None', 'type', 'Type'])
/** Bases that add no members a repository defines. */
const ROOT_BASES = new Set(['object', 'Generic', 'Protocol', 'ABC', 'NamedTuple', 'TypedDict', 'Enum'])
const MAX_HEADER_LINES = 40
/** How deep an expression's class is followed through the names it is assigned from. */
const MAX_DEPTH = 4
/** Built-in classes whose constructor a receiver may be made by (`rv = dict(env)`): none has members a repository defines. */
const BUILTIN_CLASSES = new Set(['dict', 'list', 'set', 'frozenset', 'tuple', 'str', 'bytes', 'bytearray', 'int', 'float', 'defaultdict', 'OrderedDict', 'Counter', 'deque'])

/** Where an expression is: the qualified name of the definition around it, and its line. */
interface Place {
  enclosing: string
  line: number
}

/** How a class declares and assigns an attribute: declared null for an annotation naming no one class; the first annotation as written. */
interface Attribute {
  declared: string | null | undefined
  assigned: string | undefined
  annotation: string | undefined
}

/** What a test or an assignment makes of a name at a place: its class, and whether an isinstance test said it. */
interface Narrowing {
  name: string
  tested: boolean
}

/** One step of a chain: `name`, or `name(…)` when called. */
interface Segment {
  name: string
  call: boolean
}

/** How a name is bound in one scope. */
interface Bindings {
  /** The first annotation's class. */
  declared: string | undefined
  /** The classes assignments construct. */
  assigned: Set<string>
  /** Some binding says nothing of the class. */
  unknown: boolean
  /** The scope binds the name at all. */
  any: boolean
  /** Each binding's line and the class it gives (undefined: nothing says). */
  lines: Map<number, string | undefined>
  /** `x = x.copy()`: assignments from the name itself, typed once its other bindings are. */
  fromItself: Array<{ line: number; rest: Segment[] }>
}

export class PythonTypes {
  private readonly classes = new Map<string, SymbolInfo[]>()
  private readonly lines = new Map<string, string[]>()
  private readonly attributes = new Map<string, Attribute>()
  private readonly definitionLines = new Map<string, Uint8Array>()
  private readonly narrowings = new Map<string, Narrowing | undefined>()
  /** Functions whose returns are being inferred (a recursion says nothing), and what each gave. */
  private readonly inferring = new Set<string>()
  private readonly inferredReturns = new Map<string, string | undefined>()

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
    if (type.name === OUTSIDE) return 'drop'
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

  /**
   * A name a function around the use imports itself (`from ._termui_impl import get_pager_file` in
   * the body of termui's own `get_pager_file`): local to that function, so decided by the import
   * whatever the module defines; undefined when no function around imports it.
   */
  localImportVerdict(ref: SymbolRef, path: string, exposure: ReadonlyMap<string, Exposure>): MemberVerdict | undefined {
    const artifact = this.artifactOf(path)
    if (!artifact) return undefined
    for (let scope = this.scopeOf(ref, path); scope !== ''; scope = parentOf(scope)) {
      const fn = artifact.symbols.find((s) => s.qualifiedName === scope && (s.kind === 'function' || s.kind === 'method') && s.line <= ref.line && s.endLine >= ref.line)
      if (!fn) continue
      const local = artifact.imports.filter((i) => i.line > fn.line && i.line <= fn.endLine && !this.insideNested(artifact, fn.qualifiedName, i.line) && i.names.some((n) => (n.alias ?? n.name) === ref.name))
      if (local.length === 0) continue
      const verdicts = new Set(local.map((i) => this.importVerdict(path, i.names.find((n) => (n.alias ?? n.name) === ref.name)!.name, i.line, exposure)))
      return verdicts.size === 1 ? [...verdicts][0] ?? 'ambiguous' : 'ambiguous'
    }
    return undefined
  }

  /** Whether a line of a function is in a definition nested in it. */
  private insideNested(artifact: FileArtifact, scope: string, line: number): boolean {
    return artifact.symbols.some((s) => (s.kind === 'function' || s.kind === 'method' || s.kind === 'class') && s.qualifiedName.startsWith(`${scope}.`) && s.line <= line && s.endLine >= line)
  }

  /**
   * The definition whose names a use sees: the enclosing one's, unless the use is in a function's
   * header — a decorator (`@name.setter`), a default, an annotation — evaluated in the scope around it.
   */
  scopeOf(ref: SymbolRef, path: string): string {
    const artifact = this.artifactOf(path)
    if (!artifact) return ref.enclosing
    const lines = this.fileLines(path, artifact)
    let scope = ref.enclosing
    for (;;) {
      const fn = artifact.symbols.find((s) => s.qualifiedName === scope && (s.kind === 'function' || s.kind === 'method') && s.line <= ref.line && s.endLine >= ref.line)
      if (!fn || ref.line >= headerOf(lines, fn.line, fn.endLine).bodyStart) return scope
      scope = parentOf(scope)
    }
  }

  private receiverClass(ref: SymbolRef, receiver: string, path: string): ReceiverClass | undefined {
    const artifact = this.artifactOf(path)
    return artifact ? this.expressionClass(artifact, path, { enclosing: ref.enclosing, line: ref.line }, receiver, 0) : undefined
  }

  /**
   * The class of an expression: a literal (`{}`: dict), or a chain of names, attributes and calls
   * read left to right — `self`/`cls`/`super()` or a local or module-level name first, then each
   * attribute through the declared type of the class so far (`ctx.command.params`) and each
   * method call through its return annotation (`super().to_info_dict()`). A step nothing
   * declares leaves the whole expression undecided.
   */
  private expressionClass(artifact: FileArtifact, path: string, at: Place, expression: string, depth: number): ReceiverClass | undefined {
    if (depth > MAX_DEPTH) return undefined
    const text = expression.trim()
    const literal = literalClass(text)
    if (literal) return { name: literal, basesOnly: false }
    const cast = this.castClass(artifact, text)
    if (cast) return cast === 'undecided' ? undefined : cast
    const narrowed = this.narrowedChain(artifact, path, at, text, depth)
    if (narrowed) return narrowed === 'undecided' ? undefined : narrowed
    return this.writtenClass(artifact, path, at, text, depth)
  }

  /**
   * `t.cast(Group, ctx.command)` (`typing.cast`, a `cast` imported from typing), maybe followed by
   * attributes and calls: the class the cast names; 'undecided' when it names none.
   */
  private castClass(artifact: FileArtifact, text: string): ReceiverClass | 'undecided' | undefined {
    const head = /^(?:([A-Za-z_]\w*)\.)?cast\(/.exec(text)
    if (!head || !importsTyping(artifact, head[1])) return undefined
    const open = head[0].length - 1
    const close = closingParen(text, open)
    const type = typeName(splitTopLevel(text.slice(open + 1, close))[0] ?? '')
    const rest = text.slice(close + 1)
    const more = rest === '' ? [] : rest.startsWith('.') ? chainOf(rest.slice(1)) : undefined
    if (!type || !more) return 'undecided'
    return this.follow({ name: type, basesOnly: false }, more) ?? 'undecided'
  }

  /**
   * A chain whose leading names an isinstance test narrows (`ctx.command` in `if
   * isinstance(ctx.command, Group) and ctx.command.chain:`): the class the test names, then the
   * rest of the chain; 'undecided' when the test names a class unrelated to the one the names
   * have otherwise (an object of both, for a type checker).
   */
  private narrowedChain(artifact: FileArtifact, path: string, at: Place, text: string, depth: number): ReceiverClass | 'undecided' | undefined {
    const segments = chainOf(text)
    if (!segments) return undefined
    for (let k = segments.findIndex((s) => s.call) < 0 ? segments.length : segments.findIndex((s) => s.call); k >= 1; k--) {
      const subject = segments.slice(0, k).map((s) => s.name).join('.')
      const narrowing = this.narrowed(artifact, path, at, subject, depth)
      if (!narrowing) continue
      let type: string | undefined = narrowing.name
      const written = narrowing.tested ? this.writtenClass(artifact, path, at, subject, depth + 1) : undefined
      if (written && written !== 'untyped' && written.name !== type) {
        // Narrowed to a subclass, or already of one of the tested class: the narrower of the two.
        if (this.lineage(written.name, false).includes(type)) type = written.name
        else if (!this.lineage(type, false).includes(written.name)) type = undefined
      }
      if (!type) return 'undecided'
      return this.follow({ name: type, basesOnly: false }, segments.slice(k)) ?? 'undecided'
    }
    return undefined
  }

  /**
   * The class a test or an assignment gives `subject` at a place: `if`/`elif`/`while
   * isinstance(subject, C)` (the test alone or a conjunct of an `and`) opening a block around the
   * use, or the use's own line starting with it, or `assert isinstance(subject, C)` before the use
   * in a block holding it (C a class of the repository); for an attribute chain, also its
   * assignment before the use in a block holding it (`ctx.obj = Repo(…)`: the value's class) —
   * with no line between them rebinding the subject.
   */
  private narrowed(artifact: FileArtifact, path: string, at: Place, subject: string, depth: number): Narrowing | undefined {
    const key = `${path}\0${at.line}\0${subject}`
    if (this.narrowings.has(key)) return this.narrowings.get(key)
    const lines = this.fileLines(path, artifact)
    const stop = this.bodyStartAround(artifact, path, at)
    const dotted = subject.includes('.')
    let found: Narrowing | undefined
    if (lines.slice(stop - 1, at.line).some((text) => text.includes(`isinstance(${subject}`) || (dotted && text.includes(`${subject} =`)))) {
      const head = subject.split('.')[0]!
      const escaped = subject.replace(/\./g, '\\.')
      const test = new RegExp(`^isinstance\\(\\s*${escaped}\\s*,\\s*([\\w.]+)\\s*\\)$`)
      const assigned = new RegExp(`^\\s*${escaped}\\s*(?::[^=]+)?=(?!=)\\s*(.+?)\\s*(#.*)?$`)
      // The subject or a name or attribute it is read through, assigned (`ctx.obj.verbose = …` is no rebinding of ctx.obj).
      const prefixes = subject.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('\\.')).join('|')
      const rebinds = new RegExp(`(?:^|[\\s,(])(?:${prefixes})\\s*(?::[^=]+)?=(?!=)|\\bas\\s+${head}\\b|\\bfor\\s[^:]*\\b${head}\\b|\\b${head}\\s*:=|\\bdef\\s+${head}\\b`)
      const testedIn = (condition: string | undefined): Narrowing | undefined => {
        for (const conjunct of conjuncts(condition)) {
          const match = test.exec(conjunct)
          const name = match ? lastSegment(match[1]!) : undefined
          if (name) return this.classDefs(name).length > 0 ? { name, tested: true } : undefined
        }
        return undefined
      }
      const header = (text: string): string | undefined => /^\s*(?:if|elif|while)\s+(.+?):\s*(#.*)?$/.exec(text)?.[1]
      const own = header(lines[at.line - 1] ?? '')
      found = own ? testedIn(conjuncts(own).slice(0, 1).join('')) : undefined
      let indent = indentOf(lines[at.line - 1] ?? '')
      for (let line = at.line - 1; !found && line >= stop; line--) {
        const text = lines[line - 1] ?? ''
        if (/^\s*(#.*)?$/.test(text)) continue
        const here = indentOf(text)
        const value = dotted && here <= indent ? assigned.exec(text)?.[1] : undefined
        if (value !== undefined) {
          const type = this.expressionClass(artifact, path, { enclosing: at.enclosing, line }, value, depth + 1)
          found = type && type !== 'untyped' && !type.basesOnly ? { name: type.name, tested: false } : undefined
          break
        }
        if (rebinds.test(text)) break
        if (here > indent) continue
        if (here === indent) {
          found = testedIn(/^\s*assert\s+(.+?)\s*(#.*)?$/.exec(text)?.[1])
          continue
        }
        indent = here
        found = testedIn(header(text))
      }
    }
    this.narrowings.set(key, found)
    return found
  }

  /** Where the body of the function around a place starts (1 at module level). */
  private bodyStartAround(artifact: FileArtifact, path: string, at: Place): number {
    const lines = this.fileLines(path, artifact)
    for (let scope = at.enclosing; scope !== ''; scope = parentOf(scope)) {
      const fn = artifact.symbols.find((s) => s.qualifiedName === scope && (s.kind === 'function' || s.kind === 'method') && s.line <= at.line && s.endLine >= at.line)
      if (!fn) continue
      const { bodyStart } = headerOf(lines, fn.line, fn.endLine)
      if (at.line >= bodyStart) return bodyStart
    }
    return 1
  }

  /** expressionClass without casts and narrowing: what the expression's text says of its class. */
  private writtenClass(artifact: FileArtifact, path: string, at: Place, text: string, depth: number): ReceiverClass | undefined {
    // `self.tags[key]`: an item of the container, by its annotation.
    const subscript = /^(.+)\[([^[\]]*)\]$/.exec(text)
    if (subscript && balanced(subscript[1]!)) {
      const item = itemOf(this.annotationOf(artifact, path, at, subscript[1]!, depth + 1), 'subscript', subscript[2]!.trim())
      return item ? { name: item, basesOnly: false } : undefined
    }
    const segments = chainOf(text)
    if (!segments) return undefined
    // `_cv_app.get(None)` on a `ContextVar[AppContext]`, `d.get(k)` on a `dict[str, T]`: the item.
    const method = segments[segments.length - 1]!
    if (segments.length >= 2 && method.call && ITEM_METHODS.has(method.name)) {
      const item = itemOf(this.annotationOf(artifact, path, at, segments.slice(0, -1).map(segmentText).join('.'), depth + 1), method.name)
      if (item) return { name: item, basesOnly: false }
    }
    // `io.BytesIO()`: an instance of a class from outside the repository.
    if (this.constructedOutside(artifact, path, segments)) return { name: OUTSIDE, basesOnly: false }
    // `BaseArchive().extract(…)`, `pkg.Name(…)`: a constructor's result.
    const constructed = this.constructed(text)
    if (constructed) return { name: constructed, basesOnly: false }
    // `click.open_file(…)`, `click.utils.open_stream(…)`: a function of a module the file imports, by its return annotation.
    const last = segments[segments.length - 1]!
    if (segments.length >= 2 && last.call && !segments.slice(0, -1).some((s) => s.call) && importsModule(artifact, segments[0]!.name)) {
      const returned = this.functionReturn(last.name)
      return returned ? { name: returned, basesOnly: false } : undefined
    }
    // `flask.g.get`: an attribute of a module the file imports, by its declaration there.
    const module = segments.length >= 2 && !segments[0]!.call && !segments[1]!.call ? this.importedModule(artifact, path, at, segments[0]!.name) : undefined
    if (module) {
      // `click.Group.get_command`: a class the module defines or imports, whose members its own are.
      const name = this.moduleAttribute(module, segments[1]!.name, depth + 1) ?? this.moduleClass(module, segments[1]!.name)
      return name ? this.follow({ name, basesOnly: false }, segments.slice(2)) : undefined
    }
    return this.follow(this.headClass(artifact, path, at, segments[0]!, depth), segments.slice(1))
  }

  /** The class reached from `type` through each attribute (its declared type) and method call (its return annotation). */
  private follow(start: ReceiverClass | undefined, segments: readonly Segment[]): ReceiverClass | undefined {
    let type = start
    for (const segment of segments) {
      // An attribute of an untyped parameter (a pytest fixture's `app.cli`) is as unknown as the parameter.
      if (!type || type === 'untyped') return type
      // An attribute of an object from outside the repository: anything.
      if (type.name === OUTSIDE) return undefined
      const name = segment.call ? this.returnType(type, segment.name, false) ?? this.calledClassAttribute(type.name, segment.name) : this.attributeType(type.name, segment.name) ?? this.returnType(type, segment.name, true)
      type = name ? { name, basesOnly: false } : undefined
    }
    return type
  }

  /**
   * The file a name is bound to as a whole module (`import flask`, `import x as name`, `from . import
   * name` of a submodule), when no function around binds it as a parameter.
   */
  private importedModule(artifact: FileArtifact, path: string, at: Place, name: string): string | undefined {
    const lines = this.fileLines(path, artifact)
    for (let scope = at.enclosing; scope !== ''; scope = parentOf(scope)) {
      const fn = artifact.symbols.find((s) => s.qualifiedName === scope && (s.kind === 'function' || s.kind === 'method'))
      if (fn && parameter(headerOf(lines, fn.line, fn.endLine).header, name) !== undefined) return undefined
    }
    const files = new Set<string>()
    for (const imp of artifact.imports) {
      // `import m as name`, or `from . import name` naming a submodule (`from . import types`).
      const original = imp.names.length === 0 ? ((imp.alias ?? imp.module) === name ? '' : undefined) : imp.names.find((n) => (n.alias ?? n.name) === name)?.name
      if (original === undefined) continue
      for (const row of this.table.imports(path)) {
        if (row.line !== imp.line || row.module !== imp.module || row.name !== original || !row.resolved || row.resolved.isDir) continue
        if (original === '' || row.resolved.path.endsWith(`/${original}.py`) || row.resolved.path.endsWith(`/${original}/__init__.py`)) files.add(row.resolved.path)
      }
    }
    return files.size === 1 ? [...files][0] : undefined
  }

  /**
   * The class of a module's own name (`current_app: FlaskProxy = LocalProxy(…)`), as its
   * module-level bindings make it, re-exports followed (`from .globals import g as g`); undefined
   * for its classes and functions and anything undecided.
   */
  private moduleAttribute(file: string, name: string, depth: number): string | undefined {
    const artifact = this.artifactOf(file)
    if (!artifact || depth > MAX_DEPTH || artifact.symbols.some((s) => s.scope === '' && s.name === name && s.kind !== 'variable' && s.kind !== 'constant')) return undefined
    const type = this.localType(artifact, file, { enclosing: '', line: artifact.lineCount + 1 }, name, depth)
    return type === 'untyped' ? undefined : type
  }

  /** A class of the repository a module defines at its top level or imports by that name (`from .core import Group as Group`). */
  private moduleClass(file: string, name: string): string | undefined {
    const artifact = this.artifactOf(file)
    if (!artifact) return undefined
    if (artifact.symbols.some((s) => s.scope === '' && s.name === name && s.kind === 'class')) return name
    const original = artifact.imports.flatMap((i) => i.names).find((n) => (n.alias ?? n.name) === name)?.name
    return original && original !== '*' && this.classDefs(original).length > 0 ? original : undefined
  }

  /** `from m import name` (or `… import other as name`): the class m's own binding of the name gives. */
  private importedClass(path: string, imp: FileArtifact['imports'][number], name: string, depth: number): string | undefined {
    const original = imp.names.find((n) => (n.alias ?? n.name) === name)?.name
    if (!original || original === '*') return undefined
    const rows = this.table.imports(path).filter((r) => r.line === imp.line && r.module === imp.module && r.name === original && r.resolved && !r.resolved.isDir)
    const target = rows.length === 1 ? rows[0]!.resolved!.path : undefined
    // `from pkg import sub`: a module.
    if (!target || target.endsWith(`/${original}.py`) || target.endsWith(`/${original}/__init__.py`)) return undefined
    return this.moduleAttribute(target, original, depth + 1)
  }

  private headClass(artifact: FileArtifact, path: string, at: Place, head: Segment, depth: number): ReceiverClass | undefined {
    if (head.call) {
      if (head.name === 'super') {
        const owner = enclosingClass(artifact, at.enclosing)
        return owner ? { name: owner.name, basesOnly: true } : undefined
      }
      const name = BUILTIN_CLASSES.has(head.name) && this.classDefs(head.name).length === 0 ? head.name : undefined
      if (name) return { name, basesOnly: false }
      // The built-in `open(…)` makes a file object, unless the file binds `open` itself.
      if (head.name === 'open' && !bindsOwn(artifact, 'open')) return { name: OUTSIDE, basesOnly: false }
      const returned = this.functionReturn(head.name)
      return returned ? { name: returned, basesOnly: false } : undefined
    }
    const owner = head.name === 'self' || head.name === 'cls' ? enclosingClass(artifact, at.enclosing) : undefined
    if (owner) return { name: owner.name, basesOnly: false }
    // Outside a class, `self` is a parameter as any other (`def wrapper(self: Scaffold)`).
    const name = this.localType(artifact, path, at, head.name, depth) ?? this.decoratedClass(artifact, path, at, head.name, depth)
    if (name === undefined && this.namesClass(artifact, path, at, head.name)) return { name: head.name, basesOnly: false }
    return name === 'untyped' ? name : name ? { name, basesOnly: false } : undefined
  }

  /**
   * `@click.group() def cli(): …`: a function its decorator makes into an object of the class the
   * decorator's annotations say (`-> Callable[[F], Group]` for a decorator called with arguments,
   * `-> Group` for one used bare; type variables, which a `cls=` argument binds, left out: such a
   * call is undecided). The name must be bound by that one definition alone.
   */
  private decoratedClass(artifact: FileArtifact, path: string, at: Place, name: string, depth: number): string | undefined {
    const visible = artifact.symbols.filter((s) => s.name === name && (s.kind === 'function' || s.kind === 'class') && (s.scope === '' || at.enclosing === s.scope || at.enclosing.startsWith(`${s.scope}.`)))
    // The innermost scope defining the name binds it there (a test's own `def cli`); each of its definitions must make the same class.
    const scope = visible.reduce((inner, s) => (s.scope.length > inner.length ? s.scope : inner), '')
    const defs = visible.filter((s) => s.scope === scope)
    if (defs.length === 0 || defs.some((d) => d.kind !== 'function') || depth > MAX_DEPTH) return undefined
    const lines = this.fileLines(path, artifact)
    const assignment = new RegExp(`^\\s*${name}\\s*(?::[^=]*)?=(?!=)`)
    if (lines.some((text, i) => assignment.test(text) && this.inScopeBody(artifact, path, scope, i + 1))) return undefined
    const made = new Set(defs.map((def) => this.decoratorMade(artifact, path, def, depth)))
    return made.size === 1 ? [...made][0] : undefined
  }

  /** Whether a line is a statement of a scope's own body (the module's for ''), not of a definition inside it. */
  private inScopeBody(artifact: FileArtifact, path: string, scope: string, line: number): boolean {
    if (scope === '') return !this.insideDefinition(path, artifact, line)
    const owner = artifact.symbols.find((s) => s.qualifiedName === scope && s.line <= line && s.endLine >= line)
    return !!owner && !artifact.symbols.some((s) => (s.kind === 'function' || s.kind === 'method' || s.kind === 'class') && s.qualifiedName.startsWith(`${scope}.`) && s.line <= line && s.endLine >= line)
  }

  /** The class the first decorator of a function makes of it, by the decorator's annotations. */
  private decoratorMade(artifact: FileArtifact, path: string, def: FileArtifact['symbols'][number], depth: number): string | undefined {
    const lines = this.fileLines(path, artifact)
    const decorator = /^\s*@(.+?)\s*(#.*)?$/.exec(lines[def.line - 1] ?? '')?.[1]
    const segments = decorator ? chainOf(decorator) : undefined
    if (!decorator || !segments) return undefined
    const called = segments[segments.length - 1]!.call
    if (called) {
      const args = decorator.slice(decorator.indexOf('(') + 1, closingParen(decorator, decorator.indexOf('(')))
      const parts = splitTopLevel(args).map((a) => a.trim()).filter(Boolean)
      if (parts.some((a) => /^cls\s*=/.test(a)) || parts.filter((a) => !a.includes('=')).length > 1) return undefined
    }
    const annotations = this.calleeAnnotations(artifact, path, { enclosing: parentOf(def.qualifiedName), line: def.line }, called ? segments : [...segments.slice(0, -1), { name: segments[segments.length - 1]!.name, call: true }], depth + 1)
    const made = new Set<string>()
    for (const annotation of annotations) {
      for (const part of splitTopLevel(annotation.replace(/["']/g, '').replace(/\|/g, ',')).map((p) => p.trim())) {
        const callable = /^(?:[\w.]+\.)?Callable\[\[.*\],\s*(.+)\]$/.exec(part)
        if (!!callable !== called) continue
        for (const type of splitTopLevel((callable ? callable[1]! : part).replace(/\|/g, ',')).map((p) => typeName(p))) if (type && !this.isTypeVariable(type)) made.add(type)
      }
    }
    return made.size === 1 ? [...made][0] : undefined
  }

  /** Whether the repository defines `name` as a type variable (`GrpType = t.TypeVar(…)`). */
  private isTypeVariable(name: string): boolean {
    return this.classDefs(name).length === 0 && findCandidates(this.table, name).some((c) => c.name === name && /\bTypeVar\(/.test(c.signature))
  }

  /**
   * The return annotations of every definition a call chain may call (the overloads of a
   * function or of the first class along the receiver's bases defining the method).
   */
  private calleeAnnotations(artifact: FileArtifact, path: string, at: Place, segments: Segment[], depth: number): string[] {
    const last = segments[segments.length - 1]!
    const out: string[] = []
    const add = (defPath: string, line: number, endLine: number): void => {
      const defArtifact = this.artifactOf(defPath)
      const signature = defArtifact ? this.signatureOf(defPath, defArtifact, line, endLine) : undefined
      if (signature) out.push(signature.annotation)
    }
    if (segments.length === 1 || (segments.length === 2 && importsModule(artifact, segments[0]!.name))) {
      // Every overload: the table may list a file's definitions of one name once.
      const files = new Set(findCandidates(this.table, last.name).filter((d) => d.kind === 'function' && d.scope === '' && d.name === last.name).map((d) => d.path))
      for (const file of files) for (const fn of this.artifactOf(file)?.symbols ?? []) if (fn.kind === 'function' && fn.qualifiedName === last.name) add(file, fn.line, fn.endLine)
      return out
    }
    const owner = this.expressionClass(artifact, path, at, segments.slice(0, -1).map(segmentText).join('.'), depth + 1)
    if (!owner || owner === 'untyped' || owner.name === OUTSIDE) return out
    for (const className of this.lineage(owner.name, owner.basesOnly)) {
      for (const def of this.classDefs(className)) {
        const defArtifact = this.artifactOf(def.path)
        for (const fn of defArtifact?.symbols ?? []) if (fn.kind === 'method' && fn.qualifiedName === `${def.qualifiedName}.${last.name}`) add(def.path, fn.line, fn.endLine)
      }
      if (out.length > 0) return out
    }
    return out
  }

  /**
   * `AsyncView.as_view(…)`: a name nothing around binds but a class definition of the file or an
   * import of a class of the repository; the class's own attributes are its members' too.
   */
  private namesClass(artifact: FileArtifact, path: string, at: Place, name: string): boolean {
    if (this.classDefs(name).length === 0) return false
    const lines = this.fileLines(path, artifact)
    for (let scope = at.enclosing; scope !== ''; scope = parentOf(scope)) {
      const fn = artifact.symbols.find((s) => s.qualifiedName === scope && (s.kind === 'function' || s.kind === 'method'))
      if (fn && parameter(headerOf(lines, fn.line, fn.endLine).header, name) !== undefined) return false
    }
    return artifact.symbols.some((s) => s.kind === 'class' && s.name === name) || artifact.imports.some((i) => i.names.some((n) => (n.alias ?? n.name) === name && n.name === name))
  }

  /**
   * The local name's class in the innermost function binding it, else the module's: its
   * declared type (a parameter's or an assignment's annotation, which later assignments keep
   * to), else the one class all its assignments construct; `untyped` for a parameter without
   * annotation nor assignment. Bound any other way (a `for` target, `with … as`, unpacking) and
   * not declared: undecided.
   */
  private localType(artifact: FileArtifact, path: string, at: Place, name: string, depth: number): string | 'untyped' | undefined {
    const lines = this.fileLines(path, artifact)
    const assignment = new RegExp(`^\\s*${name}\\s*(?::\\s*(.+?))?\\s*=(?!=)\\s*(.*)$`)
    const otherBinding = new RegExp(`(?:^|[^\\w.])(?:for\\b[^=]*\\b${name}\\b[^=]*\\bin\\b|as\\s+${name}\\b|${name}\\s*:=)`)
    // `a, name = …`: unpacking. Spaced around `=`, as assignments are and keyword arguments are
    // not: `name.attr, key="x"` continuing a call binds nothing.
    const unpacking = new RegExp(`^\\s*[\\w\\s,.*[\\]]*\\b${name}\\b[\\w\\s,.*[\\]]*\\s=(?!=)`)
    const withTarget = new RegExp(`^\\s*(async\\s+)?with\\s+(.+?)\\s+as\\s+${name}\\s*:\\s*(#.*)?$`)
    const walrus = new RegExp(`(?:\\(|\\b(?:if|elif|while)\\s+)${name}\\s*:=(?!=)`)
    // `[c.invoke() for c in xs]`, `for name, c in pairs` opening a line of a comprehension spread over several.
    const comprehension = new RegExp(`(?:[^\\s]\\s+|^\\s*)for\\s+([\\w\\s,()]*\\b${name}\\b[\\w\\s,()]*?)\\s+in\\s+`)
    const exceptClause = new RegExp(`^\\s*except\\*?\\s+(.+?)\\s+as\\s+${name}\\s*:\\s*(#.*)?$`)
    const loop = new RegExp(`^\\s*for\\s+([\\w\\s,()]*\\b${name}\\b[\\w\\s,()]*?)\\s+in\\s+(.+?)\\s*:\\s*(#.*)?$`)
    const bindings = (from: number, to: number, scope: string, inScope: (line: number) => boolean): Bindings => {
      const found: Bindings = { declared: undefined, assigned: new Set(), unknown: false, any: false, lines: new Map(), fromItself: [] }
      const bind = (line: number, type: string | undefined): void => {
        found.any = true
        found.lines.set(line, type)
        if (type) found.assigned.add(type)
        else found.unknown = true
      }
      // Import statements bind by what they import (the lines of a parenthesised one included).
      const importLines = new Set<number>()
      for (const imp of artifact.imports) {
        if (imp.line < from || imp.line > to || !inScope(imp.line)) continue
        let statement = lines[imp.line - 1] ?? ''
        importLines.add(imp.line)
        for (let line = imp.line + 1; !balanced(statement) && line <= to; line++) {
          statement += lines[line - 1] ?? ''
          importLines.add(line)
        }
        const module = imp.names.length === 0 && (imp.alias ?? imp.module.split('.')[0]) === name
        if (module || imp.names.some((n) => (n.alias ?? n.name) === name)) bind(imp.line, module ? undefined : this.importedClass(path, imp, name, depth))
      }
      for (let line = from; line <= to; line++) {
        if (!inScope(line) || importLines.has(line)) continue
        const text = lines[line - 1] ?? ''
        const where = { enclosing: scope, line }
        const match = assignment.exec(text)
        if (match) {
          if (match[1]) {
            found.any = true
            // An annotation naming no one class (`Callable[…]`, a union) leaves the name open.
            const declared = typeName(match[1])
            if (declared) found.declared ??= declared
            else found.unknown = true
            found.lines.set(line, declared)
            continue
          }
          // `ctx = ctx.copy()`: typed from the name's other bindings.
          const chain = chainOf(match[2]!.replace(/#.*$/, '').trim())
          if (chain && chain.length > 1 && chain[0]!.name === name && !chain[0]!.call) {
            found.any = true
            found.fromItself.push({ line, rest: chain.slice(1) })
            continue
          }
          const type = this.expressionClass(artifact, path, where, match[2]!, depth + 1)
          bind(line, type && type !== 'untyped' ? type.name : undefined)
        } else if (withTarget.test(withStatement(lines, line, from))) {
          const [, async, entered] = withTarget.exec(withStatement(lines, line, from))!
          bind(line, this.enteredClass(artifact, path, where, entered!, !!async, depth))
        } else if (loop.test(text)) {
          // `for tag in self.order` over a `list[JSONTag]`: the item type; `for a, b in …`: its tuple's items.
          const [, targets, iterable] = loop.exec(text)!
          bind(line, unpacked(this.iteratedItem(artifact, path, where, iterable!, depth + 1), targets!.replace(/[()]/g, '').split(',').map((t) => t.trim()), name))
        } else if (comprehension.test(text)) {
          // `[c.invoke() for c in contexts]`: the item of what the comprehension iterates.
          const clause = comprehension.exec(text)!
          const item = this.iteratedItem(artifact, path, where, comprehended(text.slice(clause.index + clause[0].length)), depth + 1)
          bind(line, unpacked(item, clause[1]!.replace(/[()]/g, '').split(',').map((t) => t.trim()), name))
        } else if (exceptClause.test(text)) {
          // `except ClickException as e`: an instance of the one class caught (a tuple of them: undecided).
          const caught = exceptClause.exec(text)![1]!
          bind(line, /^[\w.]+$/.test(caught) ? lastSegment(caught) : undefined)
        } else if (walrus.test(text)) {
          const start = walrus.exec(text)!
          const rest = text.slice(start.index + start[0].length)
          bind(line, this.valueOfWalrus(artifact, path, where, rest, depth))
        } else if (unpacking.test(text) && text.slice(0, text.indexOf('=')).includes(',')) {
          bind(line, this.unpackedClass(artifact, path, where, text, name, depth))
        } else if (otherBinding.test(text)) {
          bind(line, undefined)
        }
      }
      return found
    }
    for (let scope = at.enclosing; scope !== ''; scope = parentOf(scope)) {
      // The definition around the line: an overloaded method's stubs share its name.
      const fn = artifact.symbols.find((s) => s.qualifiedName === scope && (s.kind === 'function' || s.kind === 'method') && s.line <= at.line && s.endLine >= at.line)
      if (!fn) continue
      const { header, bodyStart } = headerOf(lines, fn.line, fn.endLine)
      // A decorator, a default or an annotation is evaluated in the scope around the function.
      if (at.line < bodyStart) continue
      // An unannotated parameter of a method overriding one of a base: the base's annotation, as pyright infers it.
      const written = parameter(header, name)
      const param = written === 'untyped' && fn.kind === 'method' ? this.inheritedParameter(artifact, fn.scope, fn.name, name) ?? written : written
      // The bodies of functions and classes defined inside bind their own names; their own names are bound here, by whatever a decorator makes of them.
      const nested = artifact.symbols.filter((s) => (s.kind === 'function' || s.kind === 'method' || s.kind === 'class') && s.qualifiedName === `${scope}.${s.name}` && s.line >= bodyStart)
      const found = bindings(bodyStart, fn.endLine, scope, (line) => !nested.some((s) => line >= s.line && line <= s.endLine))
      if (nested.some((s) => s.name === name)) {
        found.any = true
        found.unknown = true
      }
      if (param === 'untyped' && !found.any) return 'untyped'
      if (param !== undefined && param !== 'untyped') found.declared ??= param
      if (param === undefined && !found.any) continue
      const type = param === 'untyped' ? undefined : this.settled(found)
      return type ?? this.dominating(lines, found, bodyStart, fn.endLine, at.line)
    }
    return this.settled(bindings(1, artifact.lineCount, '', (line) => !this.insideDefinition(path, artifact, line)))
  }

  /**
   * The class all of a name's bindings give, those from the name itself (`ctx = ctx.copy()`)
   * included: each must give back the class the others give.
   */
  private settled(found: Bindings): string | undefined {
    const type = classOf(found)
    if (found.fromItself.length === 0 || !type) return type
    for (const f of found.fromItself) {
      const next = this.follow({ name: type, basesOnly: false }, f.rest)
      if (!next || next === 'untyped' || next.name !== type) return undefined
    }
    return type
  }

  /**
   * Flow, as a type checker narrows: at a use, the class of the last binding before it, when that
   * binding is a statement of a block holding the use (so it runs before the use whatever the
   * branches: no line between them leaves the binding's block) and no loop begun after it
   * rebinds the name later on (a loop's next turn).
   */
  private dominating(lines: string[], found: Bindings, bodyStart: number, end: number, use: number): string | undefined {
    const fromItself = new Map(found.fromItself.map((f) => [f.line, f.rest]))
    const all = [...found.lines.keys(), ...fromItself.keys()]
    const last = Math.max(0, ...all.filter((line) => line < use))
    if (!last || last < bodyStart) return undefined
    const blockIndent = indentOf(lines[last - 1] ?? '')
    for (let line = last + 1; line <= use; line++) {
      const text = lines[line - 1] ?? ''
      if (!/^\s*(#.*)?$/.test(text) && indentOf(text) < blockIndent) return undefined
    }
    const useIndent = indentOf(lines[use - 1] ?? '')
    for (let line = last + 1; line < use; line++) {
      const text = lines[line - 1] ?? ''
      const indent = indentOf(text)
      if (indent >= useIndent || !/^\s*(?:async\s+)?(?:for|while)\b/.test(text)) continue
      let close = line + 1
      while (close <= end && (/^\s*(#.*)?$/.test(lines[close - 1] ?? '') || indentOf(lines[close - 1] ?? '') > indent)) close++
      if (all.some((later) => later > use && later < close)) return undefined
    }
    const rest = fromItself.get(last)
    if (!rest) return found.lines.get(last)
    // `ctx = ctx.copy()`: from the class the name had just before.
    const before = this.dominating(lines, found, bodyStart, end, last)
    const next = before ? this.follow({ name: before, basesOnly: false }, rest) : undefined
    return next && next !== 'untyped' ? next.name : undefined
  }

  /** `(name := value)`: the value's class; the value ends where its parenthesis closes or at the line's `:`. */
  private valueOfWalrus(artifact: FileArtifact, path: string, at: Place, rest: string, depth: number): string | undefined {
    let level = 0
    let end = rest.length
    for (let i = 0; i < rest.length; i++) {
      const char = rest[i]
      if (char === '(' || char === '[' || char === '{') level++
      else if (char === ')' || char === ']' || char === '}') {
        if (level === 0) {
          end = i
          break
        }
        level--
      }
    }
    const value = rest.slice(0, end).replace(/:\s*(#.*)?$/, '')
    const type = this.expressionClass(artifact, path, at, value, depth + 1)
    return type && type !== 'untyped' ? type.name : undefined
  }

  /**
   * `io.BytesIO()`, `StringIO()` after `from io import StringIO`: a class (CapWords, by the naming
   * convention; a function of such a module may return one of the repository's objects, as
   * `copy.copy(ctx)` does) called through a name the file imports from a module the repository
   * does not hold, nothing after the call.
   */
  private constructedOutside(artifact: FileArtifact, path: string, segments: Segment[]): boolean {
    const last = segments[segments.length - 1]!
    if (!last.call || segments.slice(0, -1).some((s) => s.call) || !/^[A-Z]\w*[a-z]\w*$/.test(last.name)) return false
    const head = segments[0]!.name
    for (const imp of artifact.imports) {
      const whole = imp.names.length === 0 && (imp.alias ?? imp.module.split('.')[0]) === head
      if (!whole && !imp.names.some((n) => (n.alias ?? n.name) === head)) continue
      if (imp.relative || (whole ? segments.length < 2 : segments.length !== 1)) return false
      const rows = this.table.imports(path).filter((r) => r.line === imp.line && r.module === imp.module)
      return rows.length > 0 && rows.every((r) => r.resolved === null)
    }
    return false
  }

  /** `self.make_config(…)`: what a method of the class (or a base) returns by its annotation. */
  private ownMethodReturn(className: string, expression: string): string | undefined {
    const chain = chainOf(expression.replace(/#.*$/, '').trim())
    if (chain?.length !== 2 || chain[0]!.name !== 'self' || chain[0]!.call || !chain[1]!.call) return undefined
    return this.returnType({ name: className, basesOnly: false }, chain[1]!.name, false)
  }

  /**
   * An expression's annotation as written, type arguments kept (`list[JSONTag]`): a name's declared
   * type (a parameter, an annotated assignment, a module's own name imported), an attribute's in
   * its class, a call's return annotation.
   */
  private annotationOf(artifact: FileArtifact, path: string, at: Place, expression: string, depth: number): string | undefined {
    if (depth > MAX_DEPTH) return undefined
    const segments = chainOf(expression.replace(/#.*$/, '').trim())
    if (!segments) return undefined
    const last = segments[segments.length - 1]!
    if (last.call) return this.callee(artifact, path, at, segments, depth)?.annotation
    if (segments.length === 1) return this.declaredAnnotation(artifact, path, at, last.name, depth)
    const owner = this.expressionClass(artifact, path, at, segments.slice(0, -1).map(segmentText).join('.'), depth + 1)
    return owner && owner !== 'untyped' && owner.name !== OUTSIDE ? this.attributeAnnotation(owner.name, last.name) : undefined
  }

  /** The annotation of parameter `name` of the method `method` in the nearest base of `className` defining it; undefined when that one does not annotate it. */
  private inheritedParameter(artifact: FileArtifact, classQualifiedName: string, method: string, name: string): string | undefined {
    const owner = artifact.symbols.find((s) => s.kind === 'class' && s.qualifiedName === classQualifiedName)
    if (!owner) return undefined
    for (const base of this.lineage(owner.name, true)) {
      for (const def of this.classDefs(base)) {
        const baseArtifact = this.artifactOf(def.path)
        const fn = baseArtifact?.symbols.find((s) => s.kind === 'method' && s.qualifiedName === `${def.qualifiedName}.${method}`)
        if (!baseArtifact || !fn) continue
        const type = parameter(headerOf(this.fileLines(def.path, baseArtifact), fn.line, fn.endLine).header, name)
        return type === 'untyped' ? undefined : type
      }
    }
    return undefined
  }

  /**
   * The item a loop over `iterable` gets, as written: `enumerate(xs)` → `tuple[int, X]`, a
   * mapping's `items()` → `tuple[K, V]`, its `values()`/`keys()`, else the item of the iterable's
   * annotation.
   */
  private iteratedItem(artifact: FileArtifact, path: string, at: Place, iterable: string, depth: number): string | undefined {
    if (depth > MAX_DEPTH) return undefined
    const text = iterable.replace(/#.*$/, '').trim()
    const enumerated = /^enumerate\((.*)\)$/.exec(text)
    if (enumerated && balanced(enumerated[1]!) && !bindsOwn(artifact, 'enumerate')) {
      const item = this.iteratedItem(artifact, path, at, splitTopLevel(enumerated[1]!)[0]!, depth + 1)
      return item ? `tuple[int, ${item}]` : undefined
    }
    const view = /^(.+)\.(items|values|keys)\(\)$/.exec(text)
    const mapping = view ? mappingArguments(this.annotationOf(artifact, path, at, view[1]!, depth + 1)) : undefined
    if (view && mapping) return view[2] === 'items' ? `tuple[${mapping[0]}, ${mapping[1]}]` : view[2] === 'values' ? mapping[1] : mapping[0]
    return rawItemOf(this.annotationOf(artifact, path, at, text, depth + 1), 'iterate')
  }

  /**
   * A name's declared type as written, in the innermost function binding it (its parameter's
   * annotation or an annotated assignment), else the module's (an annotated assignment, or the
   * declaration of the name a `from m import name` imports).
   */
  private declaredAnnotation(artifact: FileArtifact, path: string, at: Place, name: string, depth: number): string | undefined {
    const lines = this.fileLines(path, artifact)
    const annotated = new RegExp(`^\\s*${name}\\s*:\\s*([^=]+?)\\s*(?:=(?!=).*)?$`)
    const binds = new RegExp(`^\\s*${name}\\s*=(?!=)|\\bfor\\s+${name}\\s+in\\b|\\bas\\s+${name}\\b`)
    for (let scope = at.enclosing; scope !== ''; scope = parentOf(scope)) {
      const fn = artifact.symbols.find((s) => s.qualifiedName === scope && (s.kind === 'function' || s.kind === 'method') && s.line <= at.line && s.endLine >= at.line)
      if (!fn) continue
      const { header, bodyStart } = headerOf(lines, fn.line, fn.endLine)
      if (at.line < bodyStart) continue
      const param = rawParameter(header, name)
      if (param !== undefined) return param || undefined
      let bound = false
      for (let line = bodyStart; line <= fn.endLine; line++) {
        const text = lines[line - 1] ?? ''
        const match = annotated.exec(text)
        if (match) return match[1]
        bound ||= binds.test(text)
      }
      if (bound) return undefined
    }
    for (let line = 1; line <= artifact.lineCount; line++) {
      if (this.insideDefinition(path, artifact, line)) continue
      const match = annotated.exec(lines[line - 1] ?? '')
      if (match) return match[1]
    }
    for (const imp of artifact.imports) {
      const original = imp.names.find((n) => (n.alias ?? n.name) === name)?.name
      if (!original || original === '*' || this.insideDefinition(path, artifact, imp.line)) continue
      const rows = this.table.imports(path).filter((r) => r.line === imp.line && r.module === imp.module && r.name === original && r.resolved && !r.resolved.isDir)
      const target = rows.length === 1 ? rows[0]!.resolved!.path : undefined
      const module = target ? this.artifactOf(target) : null
      return module && target ? this.declaredAnnotation(module, target, { enclosing: '', line: module.lineCount + 1 }, original, depth + 1) : undefined
    }
    return undefined
  }

  /**
   * What `with expression as name` binds: for a function or method made by `@contextmanager`, the
   * type its `Iterator[T]` / `Generator[T, …]` annotation yields; for an object of a class of the
   * repository, what its `__enter__` (`__aenter__`) returns by its annotation (`Self`: the
   * object's class); for an object of a class from outside the repository, something as foreign.
   */
  private enteredClass(artifact: FileArtifact, path: string, at: Place, expression: string, async: boolean, depth: number): string | undefined {
    const segments = chainOf(expression.replace(/#.*$/, '').trim())
    const made = segments ? this.callee(artifact, path, at, segments, depth) : undefined
    if (made && made.decorators.some((d) => /^(?:contextlib\.)?(?:async)?contextmanager$/.test(d))) return yieldedBy(made.annotation)
    const type = this.expressionClass(artifact, path, at, expression, depth + 1)
    if (!type || type === 'untyped') return undefined
    if (type.name === OUTSIDE || (this.classDefs(type.name).length === 0 && !BUILTIN_CLASSES.has(type.name))) return OUTSIDE
    return this.returnType(type, async ? '__aenter__' : '__enter__', false)
  }

  /**
   * `a, name = value`: the item of the value's `tuple[A, B]` (a call's return annotation) at the
   * name's place; undefined for anything else (a starred target, a nested one, another value).
   */
  private unpackedClass(artifact: FileArtifact, path: string, at: Place, text: string, name: string, depth: number): string | undefined {
    const match = /^\s*([\w\s,]+?)\s*=(?!=)\s*(.+?)\s*(#.*)?$/.exec(text)
    if (!match) return undefined
    const targets = match[1]!.split(',').map((t) => t.trim())
    const place = targets.indexOf(name)
    const segments = chainOf(match[2]!)
    const made = segments && place >= 0 ? this.callee(artifact, path, at, segments, depth) : undefined
    const items = made ? /^(?:[\w.]+\.)?[Tt]uple\[(.*)\]$/.exec(made.annotation.replace(/["']/g, '').trim()) : undefined
    if (!items) return undefined
    const parts = splitTopLevel(items[1]!).map((p) => p.trim())
    return parts.length === targets.length && !parts.includes('...') ? typeName(parts[place]!) : undefined
  }

  /**
   * The function or method a call chain ends by calling (`pushed()`, `app.app_context()`,
   * `module.f()`): its return annotation as written and its decorators; undefined when nothing
   * decides which definition it is.
   */
  private callee(artifact: FileArtifact, path: string, at: Place, segments: Segment[], depth: number): { annotation: string; decorators: string[] } | undefined {
    const last = segments[segments.length - 1]!
    if (!last.call) return undefined
    const ofModule = segments.length === 2 && !segments[0]!.call && importsModule(artifact, segments[0]!.name)
    if (segments.length === 1 || ofModule) {
      if (segments.length === 1 && bindsOwnLocally(artifact, at, last.name)) return undefined
      const found = new Set<string>()
      let out: { annotation: string; decorators: string[] } | undefined
      for (const def of findCandidates(this.table, last.name)) {
        if (def.kind !== 'function' || def.scope !== '' || def.name !== last.name) continue
        const defArtifact = this.artifactOf(def.path)
        if (!defArtifact) return undefined
        out = this.signatureOf(def.path, defArtifact, def.line, def.endLine)
        found.add(`${out?.annotation}\0${out?.decorators.join()}`)
      }
      return found.size === 1 ? out : undefined
    }
    const owner = this.expressionClass(artifact, path, at, segments.slice(0, -1).map(segmentText).join('.'), depth + 1)
    if (!owner || owner === 'untyped' || owner.name === OUTSIDE) return undefined
    for (const className of this.lineage(owner.name, owner.basesOnly)) {
      for (const def of this.classDefs(className)) {
        const defArtifact = this.artifactOf(def.path)
        const fn = defArtifact?.symbols.find((s) => s.kind === 'method' && s.qualifiedName === `${def.qualifiedName}.${last.name}`)
        if (defArtifact && fn) return this.signatureOf(def.path, defArtifact, fn.line, fn.endLine)
      }
    }
    return undefined
  }

  private signatureOf(path: string, artifact: FileArtifact, line: number, endLine: number): { annotation: string; decorators: string[] } | undefined {
    const lines = this.fileLines(path, artifact)
    const annotation = /\)\s*->\s*(.+?)\s*:\s*(?:\.\.\.|pass)?\s*(#.*)?$/.exec(headerOf(lines, line, endLine).header)?.[1]
    return annotation ? { annotation, decorators: decorators(lines, line) } : undefined
  }

  /** The class a top-level function of the repository named so returns by its annotation (or, without one, its returns), when every such function gives the same one. */
  private functionReturn(name: string): string | undefined {
    let found: string | undefined
    for (const def of findCandidates(this.table, name)) {
      if (def.kind !== 'function' || def.scope !== '' || def.name !== name) continue
      const artifact = this.artifactOf(def.path)
      if (!artifact) return undefined
      const annotation = /\)\s*->\s*(.+?)\s*:\s*(?:\.\.\.|pass)?\s*(#.*)?$/.exec(headerOf(this.fileLines(def.path, artifact), def.line, def.endLine).header)
      const type = annotation ? typeName(annotation[1]!) : this.inferredReturn(def.path, artifact, def)
      if (!type || type === SELF_RETURN || (found !== undefined && found !== type)) return undefined
      found = type
    }
    return found
  }

  /**
   * What a function or method without a return annotation returns, as a type checker infers it
   * from its body: the one class every `return value` of its own body gives (a constructor, an
   * annotated call, a typed name; SELF_RETURN for `self`), `return` and `return None` adding nothing
   * (an Optional of it). Undefined for a generator, a function a decorator other than a property,
   * staticmethod or classmethod wraps, and returns that disagree or say nothing; a function already
   * being inferred (recursion) says nothing.
   */
  private inferredReturn(path: string, artifact: FileArtifact, fn: { qualifiedName: string; line: number; endLine: number }): string | undefined {
    const key = `${path}\0${fn.line}\0${fn.qualifiedName}`
    if (this.inferredReturns.has(key)) return this.inferredReturns.get(key)
    if (this.inferring.has(key) || this.inferring.size > MAX_DEPTH) return undefined
    const lines = this.fileLines(path, artifact)
    if (decorators(lines, fn.line).some((d) => !/^(?:(?:functools\.)?(?:cached_)?property|staticmethod|classmethod)$/.test(d))) return undefined
    this.inferring.add(key)
    let found: string | undefined
    try {
      found = this.returnsOf(path, artifact, fn, lines)
    } finally {
      this.inferring.delete(key)
    }
    this.inferredReturns.set(key, found)
    return found
  }

  private returnsOf(path: string, artifact: FileArtifact, fn: { qualifiedName: string; line: number; endLine: number }, lines: string[]): string | undefined {
    const { header, bodyStart } = headerOf(lines, fn.line, fn.endLine)
    // A coroutine function's call makes a coroutine.
    if (/^async\s/.test(header)) return undefined
    const nested = artifact.symbols.filter((s) => (s.kind === 'function' || s.kind === 'method' || s.kind === 'class') && s.qualifiedName.startsWith(`${fn.qualifiedName}.`) && s.line >= bodyStart)
    const made = new Set<string>()
    for (let line = bodyStart; line <= fn.endLine; line++) {
      if (nested.some((s) => line >= s.line && line <= s.endLine)) continue
      const text = lines[line - 1] ?? ''
      // A generator's call makes a generator.
      if (/^\s*(?:.*[=(\s])?yield\b/.test(text)) return undefined
      const returned = /^\s*return\b\s*(.*?)\s*(#.*)?$/.exec(text)
      if (!returned) continue
      let value = returned[1]!
      for (let next = line + 1; !balanced(value) && next <= fn.endLine; next++) value += ` ${(lines[next - 1] ?? '').trim()}`
      if (value === '' || value === 'None') continue
      if (value === 'self') {
        made.add(SELF_RETURN)
        continue
      }
      const type = this.expressionClass(artifact, path, { enclosing: fn.qualifiedName, line }, value, 1)
      if (!type || type === 'untyped' || type.basesOnly) return undefined
      made.add(type.name)
    }
    return made.size === 1 ? [...made][0] : undefined
  }

  /** `Name(…)` or `pkg.Name(…)` (and nothing after the call) where Name is a class of the repository: that class. */
  private constructed(expression: string): string | undefined {
    const chain = chainOf(expression.replace(/#.*$/, '').trim())
    const last = chain?.[chain.length - 1]
    if (!chain || !last?.call || chain.slice(0, -1).some((s) => s.call)) return undefined
    return this.classDefs(last.name).length > 0 ? last.name : undefined
  }


  /** A literal's class, or the class a repository's or a built-in constructor makes (`{}`, `set()`, `Context(…)`). */
  private valueClass(expression: string): string | undefined {
    const text = expression.replace(/#.*$/, '').trim()
    const call = chainOf(text)
    const constructor = call?.length === 1 && call[0]!.call ? call[0]!.name : undefined
    return literalClass(text) ?? this.constructed(text) ?? (constructor && BUILTIN_CLASSES.has(constructor) && this.classDefs(constructor).length === 0 ? constructor : undefined)
  }

  /**
   * What a method returns by its annotation (a property's, `property` set), or without one by its
   * returns, found along the class's bases as a call finds it; undefined when the first definition
   * met says nothing.
   */
  private returnType(type: { name: string; basesOnly: boolean }, method: string, property: boolean): string | undefined {
    for (const owner of this.lineage(type.name, type.basesOnly)) {
      for (const def of this.classDefs(owner)) {
        const artifact = this.artifactOf(def.path)
        const fn = artifact?.symbols.find((s) => s.kind === 'method' && s.name === method && s.qualifiedName === `${def.qualifiedName}.${method}`)
        if (!artifact || !fn) continue
        const lines = this.fileLines(def.path, artifact)
        if (property && !decorators(lines, fn.line).some((d) => /^(?:functools\.)?(?:cached_)?property$/.test(d))) return undefined
        const annotation = /\)\s*->\s*(.+?)\s*:\s*(?:\.\.\.|pass)?\s*(#.*)?$/.exec(headerOf(lines, fn.line, fn.endLine).header)
        // `-> Self` (`te.Self`): the class of the object the method is called on.
        if (annotation && /^["']?(?:[\w.]+\.)?Self["']?$/.test(annotation[1]!.trim())) return type.name
        // `-> T`, a type parameter of the class: what the receiver's lineage binds it to (`ProxyMixin[AppContext]`).
        const bound = annotation ? this.typeArgument(type.name, owner, annotation[1]!.trim()) : undefined
        if (annotation) return bound ?? typeName(annotation[1]!)
        const inferred = this.inferredReturn(def.path, artifact, fn)
        return inferred === SELF_RETURN ? type.name : inferred
      }
    }
    return undefined
  }

  /**
   * `T` where `owner` is `class ProxyMixin(Protocol[T])` (or `Generic[T]`) and a class along
   * `className`'s bases subclasses `ProxyMixin[AppContext]`: that argument's class.
   */
  private typeArgument(className: string, owner: string, parameterName: string): string | undefined {
    if (!IDENTIFIER.test(parameterName)) return undefined
    let position = -1
    for (const def of this.classDefs(owner)) {
      for (const base of rawBasesOf(def.signature)) {
        const generic = /^(?:[\w.]+\.)?(?:Generic|Protocol)\[(.*)\]$/.exec(base)
        if (generic) position = splitTopLevel(generic[1]!).map((p) => p.trim()).indexOf(parameterName)
      }
    }
    if (position < 0) return undefined
    for (const subclass of this.lineage(className, false)) {
      for (const def of this.classDefs(subclass)) {
        for (const base of rawBasesOf(def.signature)) {
          const generic = /^([\w.]+)\[(.*)\]$/.exec(base)
          if (generic && lastSegment(generic[1]!) === owner) return typeName(splitTopLevel(generic[2]!)[position] ?? '')
        }
      }
    }
    return undefined
  }

  /** Whether a line is inside a function or class body (else it is the module's own code). */
  private insideDefinition(path: string, artifact: FileArtifact, line: number): boolean {
    let inside = this.definitionLines.get(path)
    if (!inside) {
      inside = new Uint8Array(artifact.lineCount + 2)
      for (const s of artifact.symbols) if (s.kind === 'function' || s.kind === 'method' || s.kind === 'class') inside.fill(1, s.line, s.endLine + 1)
      this.definitionLines.set(path, inside)
    }
    return inside[line] === 1
  }

  /**
   * The class of `self.attr`: its declared type, in the class or the nearest base declaring it
   * (a subclass's unannotated `self.cli = AppGroup()` does not redeclare a base's `cli: Group`,
   * as a type checker reads it), else the class the nearest assignment constructs.
   */
  private attributeType(className: string, attr: string): string | undefined {
    const lineage = this.lineage(className, false)
    for (const owner of lineage) {
      const declared = this.attributeIn(owner, attr).declared
      if (declared) return declared
    }
    for (const owner of lineage) {
      const { declared, assigned } = this.attributeIn(owner, attr)
      // An annotation naming no one class (a union) leaves it open.
      if (declared === null) return undefined
      if (assigned) return assigned
    }
    return undefined
  }

  /** How a class declares and assigns `attr`: declared null for an annotation naming no one class. */
  private attributeIn(owner: string, attr: string): Attribute {
    const key = `${owner}\0${attr}`
    let found = this.attributes.get(key)
    if (!found) {
      found = { declared: undefined, assigned: undefined, annotation: undefined }
      for (const def of this.classDefs(owner)) {
        const here = this.declaredIn(def, attr)
        found.declared ??= here.declared
        found.assigned ??= here.assigned
        found.annotation ??= here.annotation
      }
      this.attributes.set(key, found)
    }
    return found
  }

  private declaredIn(def: SymbolInfo, attr: string): Attribute {
    const artifact = this.artifactOf(def.path)
    if (!artifact) return { declared: undefined, assigned: undefined, annotation: undefined }
    const lines = this.fileLines(def.path, artifact)
    const annotated = new RegExp(`^(\\s*)(self\\.)?${attr}\\s*:\\s*([^=]+?)\\s*(?:=.*)?$`)
    const assigned = new RegExp(`^\\s*self\\.${attr}\\s*=(?!=)\\s*(.*)$`)
    // `attr: T` declares only in the class body itself, not as a parameter of a signature spread over lines.
    const body = bodyIndent(lines, def.line, def.endLine)
    let declared: string | null | undefined
    let written: string | undefined
    let fromConstructor: string | undefined
    for (let line = def.line; line <= def.endLine; line++) {
      const text = lines[line - 1] ?? ''
      const match = annotated.exec(text)
      const annotation = match && (match[2] || match[1]!.length === body) ? match[3] : undefined
      if (annotation) {
        const type = typeName(annotation)
        if (type) return { declared: type, assigned: fromConstructor, annotation }
        declared ??= null
        written ??= annotation
      }
      const assignment = assigned.exec(text)
      if (assignment && !fromConstructor) fromConstructor = this.valueClass(assignment[1]!) ?? this.ownMethodReturn(def.name, assignment[1]!) ?? annotatedParameter(artifact, lines, line, assignment[1]!)
    }
    return { declared, assigned: fromConstructor, annotation: written }
  }

  /**
   * `self.storage_class(…)`: the class an attribute holds, called — by the nearest class along the
   * bases declaring it `type[X]` or assigning it a class in its body (`storage_class = ds.Accept`).
   */
  private calledClassAttribute(className: string, attr: string): string | undefined {
    const assignment = new RegExp(`^\\s*${attr}\\s*=(?!=)\\s*([\\w.]+)\\s*(#.*)?$`)
    for (const owner of this.lineage(className, false)) {
      const { annotation } = this.attributeIn(owner, attr)
      if (annotation) {
        const held = /^(?:[\w.]+\.)?[Tt]ype\[(.+)\]$/.exec(annotation.replace(/["']/g, '').trim())
        return held ? typeName(held[1]!) : undefined
      }
      for (const def of this.classDefs(owner)) {
        const artifact = this.artifactOf(def.path)
        if (!artifact) continue
        const lines = this.fileLines(def.path, artifact)
        const body = bodyIndent(lines, def.line, def.endLine)
        for (let line = def.line + 1; line <= def.endLine; line++) {
          const text = lines[line - 1] ?? ''
          const value = indentOf(text) === body ? assignment.exec(text)?.[1] : undefined
          if (value) return this.classDefs(lastSegment(value)).length > 0 ? lastSegment(value) : undefined
        }
      }
    }
    return undefined
  }

  /** The annotation of `self.attr` as written, in the class or the nearest base declaring it. */
  private attributeAnnotation(className: string, attr: string): string | undefined {
    for (const owner of this.lineage(className, false)) {
      const { annotation } = this.attributeIn(owner, attr)
      if (annotation) return annotation
    }
    return undefined
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

/** A class by its declared type, else by the one class its assignments make; undefined when a binding leaves it open. */
function classOf(bindings: Bindings): string | undefined {
  if (bindings.declared) return [...bindings.assigned].every((a) => a === bindings.declared) ? bindings.declared : undefined
  return !bindings.unknown && bindings.assigned.size === 1 ? [...bindings.assigned][0] : undefined
}

/** A literal's built-in class: `{…}` dict (or set: neither has a repository's members), `[…]` list, strings. */
function literalClass(text: string): string | undefined {
  if (text.startsWith('{')) return 'dict'
  if (text.startsWith('[')) return 'list'
  if (/^[rbfu]{0,2}["']/i.test(text)) return /^r?b/i.test(text) ? 'bytes' : 'str'
  return undefined
}

/**
 * `a.b(…).c` → [a, b(), c]: names, each maybe called once; undefined for anything else (a
 * subscript, an operator, a lambda).
 */
function chainOf(text: string): Segment[] | undefined {
  const out: Segment[] = []
  let at = 0
  while (at < text.length) {
    const name = /^[A-Za-z_]\w*/.exec(text.slice(at))?.[0]
    if (!name) return undefined
    at += name.length
    let call = false
    if (text[at] === '(') {
      const close = closingParen(text, at)
      // `Option(` with its arguments on the next lines: the chain ends with that call.
      if (close >= text.length) return [...out, { name, call: true }]
      call = true
      at = close + 1
    }
    out.push({ name, call })
    if (at === text.length) break
    if (text[at] !== '.') return undefined
    at++
  }
  return out.length > 0 ? out : undefined
}

/** The decorators of the definition whose symbol starts at `line` (its first decorator's line or its `def`'s): `@property` → `property`. */
function decorators(lines: string[], line: number): string[] {
  let first = line
  while (first > 1 && /^\s*@/.test(lines[first - 2] ?? '')) first--
  const out: string[] = []
  for (let at = first; /^\s*@/.test(lines[at - 1] ?? ''); at++) out.push(/^\s*@([\w.]+)/.exec(lines[at - 1]!)![1]!)
  return out
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

/** The file defines or imports `name` itself. */
function bindsOwn(artifact: FileArtifact, name: string): boolean {
  return artifact.symbols.some((s) => s.name === name && s.scope === '') || artifact.imports.some((i) => i.names.some((n) => (n.alias ?? n.name) === name))
}

/** `cast` as the file binds it from typing (`from typing import cast`), or `prefix.cast` where prefix is typing (`import typing as t`). */
function importsTyping(artifact: FileArtifact, prefix: string | undefined): boolean {
  const typing = (module: string): boolean => module === 'typing' || module === 'typing_extensions'
  if (prefix === undefined) return artifact.imports.some((i) => typing(i.module) && i.names.some((n) => n.name === 'cast' && (n.alias ?? n.name) === 'cast'))
  return artifact.imports.some((i) => i.names.length === 0 && typing(i.module) && (i.alias ?? i.module) === prefix)
}

/** The conjuncts of a condition joined by `and` (none when an `or` may make a test not hold; `not isinstance(…)` is no test). */
function conjuncts(condition: string | undefined): string[] {
  if (!condition || /\bor\b/.test(condition)) return []
  return condition.split(/\s+and\s+/).map((c) => c.trim().replace(/^\((.*)\)$/, '$1').trim())
}

/** `import name` or `import name.sub` / `import x as name`: the name is a module. */
function importsModule(artifact: FileArtifact, name: string): boolean {
  return artifact.imports.some((i) => i.names.length === 0 && (i.alias ?? i.module.split('.')[0]) === name)
}

/** The indentation of a class's body: its first statement's after the header. */
function bodyIndent(lines: string[], first: number, last: number): number {
  const own = /^\s*/.exec(lines[first - 1] ?? '')![0].length
  for (let line = first + 1; line <= last; line++) {
    const text = lines[line - 1] ?? ''
    if (/^\s*(#.*)?$/.test(text)) continue
    const indent = /^\s*/.exec(text)![0].length
    if (indent > own) return indent
  }
  return -1
}

/** The class defining the method `enclosing` is in (`Flask.run.inner` → `Flask`). */
function enclosingClass(artifact: FileArtifact, enclosing: string): { name: string } | undefined {
  for (let scope = enclosing; scope !== ''; scope = parentOf(scope)) {
    const def = artifact.symbols.find((s) => s.qualifiedName === scope)
    if (def?.kind === 'class') return { name: def.name }
  }
  return undefined
}

/** A function's header (decorators skipped, their arguments over several lines too, up to the line ending in `:`) and where its body starts. */
function headerOf(lines: string[], first: number, last: number): { header: string; bodyStart: number } {
  let line = first
  while (line <= last && /^\s*@/.test(lines[line - 1] ?? '')) {
    let decorator = lines[line - 1] ?? ''
    while (!balanced(decorator) && line < last) decorator += lines[line++] ?? ''
    line++
  }
  const parts: string[] = []
  for (let end = Math.min(last, line + MAX_HEADER_LINES); line <= end; line++) {
    const text = lines[line - 1] ?? ''
    parts.push(text.trim())
    // A stub's body may follow on the same line: `def get(self) -> T: ...`.
    if (/:\s*(?:\.\.\.|pass)?\s*(#.*)?$/.test(text) && balanced(parts.join(' '))) return { header: parts.join(' '), bodyStart: line + 1 }
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

/** What a `@contextmanager` function's annotation says it yields: `Iterator[T]`, `Generator[T, …]` (async ones too) → T. */
function yieldedBy(annotation: string): string | undefined {
  const generic = /^(?:[\w.]+\.)?(?:Async)?(?:Iterator|Generator|Iterable)\[(.*)\]$/.exec(annotation.replace(/["']/g, '').trim())
  return generic ? typeName(splitTopLevel(generic[1]!)[0]!) : undefined
}

function segmentText(segment: Segment): string {
  return segment.call ? `${segment.name}()` : segment.name
}

function indentOf(text: string): number {
  return /^\s*/.exec(text)![0].length
}

/** A function around the place defines or takes a name of its own (a local function shadowing a module's). */
function bindsOwnLocally(artifact: FileArtifact, at: Place, name: string): boolean {
  return artifact.symbols.some((s) => s.name === name && s.scope !== '' && (at.enclosing === s.scope || at.enclosing.startsWith(`${s.scope}.`)) && s.kind === 'function')
}

/** Methods of standard generic classes that give an item: `ContextVar[T].get()`, `dict[K, V].get(k)`. */
const ITEM_METHODS = new Set(['get', 'pop', 'setdefault'])
/** Standard classes whose first type argument is their item (what iterating or indexing gives). */
const SEQUENCES = new Set(['list', 'List', 'Sequence', 'MutableSequence', 'Iterable', 'Iterator', 'Collection', 'Reversible', 'set', 'Set', 'frozenset', 'FrozenSet', 'AbstractSet', 'MutableSet', 'deque', 'Deque', 'ValuesView', 'KeysView', 'Generator'])
/** Standard mappings: iterating gives keys, indexing and get() values. */
const MAPPINGS = new Set(['dict', 'Dict', 'Mapping', 'MutableMapping', 'defaultdict', 'DefaultDict', 'OrderedDict', 'ChainMap'])

/**
 * The item of a standard generic container as its annotation spells it: iterating a `list[T]`
 * (or any SEQUENCES) gives T, a mapping its keys; indexing a sequence gives T, a mapping its values,
 * a `tuple[A, B]` the item at a literal index; `ContextVar[T].get()` T, a mapping's get() its values.
 */
function itemOf(annotation: string | undefined, access: 'iterate' | 'subscript' | string, index = ''): string | undefined {
  const item = rawItemOf(annotation, access, index)
  return item === undefined ? undefined : typeName(item)
}

/** itemOf's item as written (`tuple[Blueprint, dict[str, t.Any]]`). */
function rawItemOf(annotation: string | undefined, access: 'iterate' | 'subscript' | string, index = ''): string | undefined {
  if (!annotation) return undefined
  let text = annotation.replace(/["']/g, '').replace(/#.*$/, '').trim()
  const optional = /^(?:[\w.]+\.)?Optional\[(.*)\]$/.exec(text)
  if (optional) text = optional[1]!.trim()
  const generic = /^([\w.]+)\[(.*)\]$/.exec(text)
  if (!generic) return undefined
  const container = lastSegment(generic[1]!)
  const args = splitTopLevel(generic[2]!).map((a) => a.trim())
  const at = (i: number): string | undefined => args[i]
  if (container === 'ContextVar') return access === 'get' ? at(0) : undefined
  if (MAPPINGS.has(container)) return access === 'iterate' ? at(0) : access === 'pop' || access === 'get' || access === 'setdefault' || access === 'subscript' ? at(1) : undefined
  if (container === 'tuple' || container === 'Tuple') {
    if (args.length === 2 && args[1] === '...') return access === 'iterate' || access === 'subscript' ? at(0) : undefined
    return access === 'subscript' && /^\d+$/.test(index) ? at(Number(index)) : undefined
  }
  if (SEQUENCES.has(container)) return access === 'iterate' || (access === 'subscript' && !index.includes(':')) || access === 'pop' ? at(0) : undefined
  return undefined
}

/** `class A(B, pkg.C[T], metaclass=M)` → [B, pkg.C[T]], as written. */
function rawBasesOf(signature: string): string[] {
  const open = signature.indexOf('(')
  if (!signature.startsWith('class ') || open < 0) return []
  return splitTopLevel(signature.slice(open + 1, closingParen(signature, open))).map((b) => b.trim()).filter((b) => b !== '' && !b.includes('=') && !b.startsWith('*'))
}

/** A parameter's annotation as written, '' for a parameter without one, undefined when it is not a parameter. */
function rawParameter(header: string, name: string): string | undefined {
  const open = header.indexOf('(')
  if (open < 0) return undefined
  for (const param of splitTopLevel(header.slice(open + 1, closingParen(header, open)))) {
    const match = /^\*{0,2}([A-Za-z_]\w*)\s*(?::\s*(.*?))?\s*(?:=.*)?$/.exec(param.trim())
    if (match && match[1] === name) return match[2] ?? ''
  }
  return undefined
}

/** `dict[K, V]` (any MAPPINGS, `Optional` of one) → [K, V] as written. */
function mappingArguments(annotation: string | undefined): [string, string] | undefined {
  const text = annotation?.replace(/["']/g, '').trim().replace(/^(?:[\w.]+\.)?Optional\[(.*)\]$/, '$1')
  const generic = text ? /^([\w.]+)\[(.*)\]$/.exec(text) : undefined
  const args = generic && MAPPINGS.has(lastSegment(generic[1]!)) ? splitTopLevel(generic[2]!).map((a) => a.trim()) : []
  return args.length === 2 ? [args[0]!, args[1]!] : undefined
}

/** The class of `name` among a loop's `targets` given the item as written: the item itself, or its `tuple[A, B]` item at the name's place. */
function unpacked(item: string | undefined, targets: string[], name: string): string | undefined {
  if (!item) return undefined
  if (targets.length === 1) return targets[0] === name ? typeName(item) : undefined
  const tuple = /^(?:[\w.]+\.)?[Tt]uple\[(.*)\]$/.exec(item.replace(/["']/g, '').trim())
  const parts = tuple ? splitTopLevel(tuple[1]!).map((p) => p.trim()) : []
  return parts.length === targets.length && !parts.includes('...') ? typeName(parts[targets.indexOf(name)]!) : undefined
}

/** The `with` statement ending on `line`, its lines joined when its items run over several (`with click.progressbar(\n…\n) as bar:`). */
function withStatement(lines: string[], line: number, from: number): string {
  const text = lines[line - 1] ?? ''
  if (/^\s*(?:async\s+)?with\b/.test(text) || !/\bas\s+\w+\s*:\s*(#.*)?$/.test(text)) return text
  for (let start = line - 1; start >= Math.max(from, line - MAX_HEADER_LINES); start--) {
    const first = lines[start - 1] ?? ''
    if (!/^\s*(?:async\s+)?with\b/.test(first)) continue
    const parts = lines.slice(start - 1, line).map((l, i) => (i === 0 ? l.trimEnd() : l.trim()))
    // The with statement's own items, open until the line: not an earlier statement (`except X as e:` below a with).
    for (let k = 1; k < parts.length; k++) if (balanced(parts.slice(0, k).join(' '))) return text
    const joined = parts.join(' ')
    return balanced(joined) ? joined : text
  }
  return text
}

/** A comprehension's iterable, from just after its `in`: up to its closing bracket or its next `if`/`for` clause. */
function comprehended(text: string): string {
  let level = 0
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (char === '(' || char === '[' || char === '{') level++
    else if (char === ')' || char === ']' || char === '}') {
      if (level === 0) return text.slice(0, i)
      level--
    } else if (level === 0 && /^\s(?:if|for|async)\s/.test(text.slice(i, i + 7))) return text.slice(0, i)
  }
  return text
}
