/**
 * Does one occurrence of a name refer to the target definition(s)? `keep`, `drop` (it provably
 * refers to something else: another definition, a member of another object, a local
 * definition shadowing it) or `ambiguous` (nothing in imports, receivers or scopes decides).
 */
import type { SymbolInfo } from '../../graph/symbol-table.js'
import type { FileArtifact, LanguageId, SymbolRef } from '../../parse/types.js'
import { statementOf, type ImportBindings } from './bindings.js'
import type { Exposure } from './exposure.js'
import { INCLUDE_SCOPED } from './includes.js'
import type { PythonTypes } from './python-types.js'

export type Verdict = 'keep' | 'drop' | 'ambiguous'

/** Receivers that name the enclosing class's instance or the class itself. */
const SELF = new Set(['this', 'self', 'cls', 'super', 'Self', '@', 'this.constructor'])
/** Languages where a bare name inside a method may be a member of its class. */
const IMPLICIT_THIS = new Set<LanguageId>(['java', 'cpp', 'ruby'])
/** Languages where a top-level name of another file is visible only through an import. */
const MODULE_SCOPED = new Set<LanguageId>(['python', 'typescript', 'tsx', 'javascript', 'rust'])
/** Languages whose files in one directory share a namespace (one package). */
const DIRECTORY_SCOPED = new Set<LanguageId>(['go', 'java'])

export interface FileView {
  path: string
  language: LanguageId
  artifact: FileArtifact
  /** What this file's imports make visible (undefined: none of the definitions). */
  exposure: Exposure | undefined
  bindings: ImportBindings
  /** Whether the index holds a file at this path. */
  fileExists: (path: string) => boolean
  /** The files another file's imports resolve to. */
  importedBy: (path: string) => readonly string[]
}

export interface Resolution {
  targets: readonly SymbolInfo[]
  others: readonly SymbolInfo[]
  /** Exposure of each file by path, for module-alias receivers. */
  exposure: ReadonlyMap<string, Exposure>
  /** Receivers' classes in Python files. */
  python?: PythonTypes
  /** The files a C or C++ file must be among to see one of `others` (includes.ts); undefined: not known, any may. Asked only of a C or C++ use nothing else decided. */
  othersSeenFrom?: () => ReadonlySet<string> | undefined
}

export function resolveOccurrence(ref: SymbolRef, file: FileView, r: Resolution): Verdict {
  if (ref.receiver !== undefined) return resolveQualified(ref, ref.receiver, file, r)
  return resolveImported(ref, file, r) ?? resolveBare(ref, file, r)
}

/**
 * A name a named import binds (or the import itself, `export {x} from` included) is decided by
 * the module it comes from, whatever else the file imports or defines: undefined when that
 * module makes no definition of the name visible (or the import is not resolved).
 */
function resolveImported(ref: SymbolRef, file: FileView, r: Resolution): Verdict | undefined {
  let paths: string[] | undefined
  if (ref.kind === 'import') {
    paths = statementOf(file.bindings, ref.name, ref.line)?.paths
  } else {
    const imported = file.bindings.names.get(ref.name)
    // `import {other as name}` binds the name to another export of the module.
    if (imported && imported.name !== r.targets[0]?.name && imported.name !== 'default') return 'drop'
    paths = imported?.paths
  }
  if (!paths) return undefined
  let target = false
  let other = false
  for (const path of paths) {
    const exposure = r.exposure.get(path)
    if (exposure === 'target' || exposure === 'both') target = true
    if (exposure === 'other' || exposure === 'both') other = true
  }
  return target ? (other ? 'ambiguous' : 'keep') : other ? 'drop' : undefined
}

function resolveQualified(ref: SymbolRef, receiver: string, file: FileView, r: Resolution): Verdict {
  const python = file.language === 'python' ? r.python : undefined
  if (SELF.has(receiver)) {
    const inClass = (def: SymbolInfo): boolean => def.scope !== '' && def.path === file.path && encloses(def.scope, ref.enclosing)
    if (r.targets.some(inClass)) return 'keep'
    if (r.others.some(inClass)) return 'drop'
    // Inherited: the first of the class's bases defining the name.
    const inherited = python?.memberVerdict(ref, receiver, file.path, r.targets, r.others)
    if (inherited) return inherited
    return r.targets.some((t) => t.scope !== '') ? (r.others.some((o) => o.scope !== '') ? 'ambiguous' : 'keep') : 'drop'
  }
  const bound = file.bindings.modules.get(receiver) ?? (python ? submoduleChain(file, receiver) : undefined)
  if (bound) {
    // A module's attribute is none of a class's members (`archive.extract` is the module's function).
    if (python && !r.targets.some((t) => t.scope === '')) return 'drop'
    const exposures = bound.map((path) => r.exposure.get(path))
    if (exposures.includes('target') || exposures.includes('both')) return exposures.includes('other') ? 'ambiguous' : 'keep'
    if (exposures.includes('other')) return 'drop'
  }
  if (python) {
    const typed = python.memberVerdict(ref, receiver, file.path, r.targets, r.others)
    if (typed) return typed
    // `sys.exit` where `import sys` names a module outside the repository: not `Context.exit`.
    if (importsWholeModule(file.artifact, receiver)) return r.targets.some((t) => t.scope === '') ? 'ambiguous' : 'drop'
  }
  // `cache.get()` for `Cache.get`, `util.f()` for util's `f`: a receiver named like the class or
  // module. Not in Python, whose modules are named in lower case like instances are
  // (`flask.url_for` is not `Flask.url_for`) and whose module receivers are told by the imports
  // above (`current_app.json.loads` is no use of the json package's `loads`).
  const qualifier = file.language === 'python' ? '' : lastSegment(receiver).toLowerCase()
  const names = (def: SymbolInfo): boolean => qualifier !== '' && (lastSegment(def.scope).toLowerCase() === qualifier || moduleName(def.path) === qualifier)
  if (r.targets.some(names)) return 'keep'
  if (r.others.some(names)) return 'drop'
  // A member of some object: only a member definition can be meant.
  if (!r.targets.some((t) => t.scope !== '')) return 'drop'
  // A Python object whose class nothing here decides is as likely one from outside the repository
  // (a file, a stream: `f.read()`, `buf.getvalue()`) as an instance of the one class defining the name.
  if (python) return 'ambiguous'
  return r.others.some((o) => o.scope !== '') ? 'ambiguous' : 'keep'
}

function resolveBare(ref: SymbolRef, file: FileView, r: Resolution): Verdict {
  const sameScope = (def: SymbolInfo): boolean => def.path === file.path || (DIRECTORY_SCOPED.has(file.language) && dirOf(def.path) === dirOf(file.path))
  const topLevel = (def: SymbolInfo): boolean => def.scope === ''
  const member = (def: SymbolInfo): boolean => def.scope !== '' && def.path === file.path && IMPLICIT_THIS.has(file.language) && encloses(def.scope, ref.enclosing)
  if (r.targets.some(member)) return 'keep'
  if (r.others.some(member)) return 'drop'
  if (file.language === 'python') {
    const imported = ref.kind === 'import' ? r.python?.importVerdict(file.path, ref.name, ref.line, r.exposure) : r.python?.localImportVerdict(ref, file.path, r.exposure)
    if (imported) return imported
    // Python has no implicit self: a bare name sees definitions nested in the functions around
    // it (a test's own class View), a class's names only in the class body, and no member else.
    const scope = enclosingScope(file.artifact, r.python?.scopeOf(ref, file.path) ?? ref.enclosing)
    const visible = (def: SymbolInfo): boolean => def.scope !== '' && def.path === file.path && (scope === def.scope || (encloses(def.scope, scope) && !isClass(file.artifact, def.scope)))
    if (r.targets.some(visible)) return 'keep'
    if (r.others.some(visible)) return 'drop'
    if (!r.targets.some(topLevel)) return 'drop'
  }
  const targetHere = r.targets.some((t) => topLevel(t) && sameScope(t))
  const otherHere = r.others.some((o) => topLevel(o) && sameScope(o))
  if (targetHere) return 'keep'
  if (otherHere) return 'drop'
  if (file.exposure === 'target') return 'keep'
  if (file.exposure === 'other') return 'drop'
  if (file.exposure === 'both') return 'ambiguous'
  // A member reached by a bare name outside its class: inherited, where `this` is implicit.
  if (!r.targets.some(topLevel)) return IMPLICIT_THIS.has(file.language) ? 'ambiguous' : 'drop'
  if (MODULE_SCOPED.has(file.language)) return importsName(file.artifact, ref.name) ? 'ambiguous' : 'drop'
  const seen = INCLUDE_SCOPED.has(file.language) ? r.othersSeenFrom?.() : undefined
  return r.others.some((o) => topLevel(o) && (seen === undefined || seen.has(file.path))) ? 'ambiguous' : 'keep'
}

/** The innermost class or function around a use: `pk = property(_get_pk_val)` in a class body is enclosed by the field `Model.pk`, scoped by `Model`. */
function enclosingScope(artifact: FileArtifact, enclosing: string): string {
  let scope = enclosing
  while (scope !== '') {
    const def = artifact.symbols.find((s) => s.qualifiedName === scope)
    if (!def || def.kind === 'class' || def.kind === 'function' || def.kind === 'method') return scope
    const dot = scope.lastIndexOf('.')
    scope = dot < 0 ? '' : scope.slice(0, dot)
  }
  return scope
}

function isClass(artifact: FileArtifact, qualifiedName: string): boolean {
  return artifact.symbols.some((s) => s.qualifiedName === qualifiedName && s.kind === 'class')
}

/** `import a.b` or `import m as a`: the receiver names a whole module as a file imports it. */
function importsWholeModule(artifact: FileArtifact, receiver: string): boolean {
  return artifact.imports.some((i) => i.names.length === 0 && (i.alias ?? i.module.split('.')[0]) === receiver.split('.')[0])
}

/**
 * `models.sql` where `models` names a package the file imports: the files of its submodule
 * `sql` (a module attribute chain), when the package holds one and makes it an attribute — its
 * `__init__` imports it, or this file imports the dotted module. A submodule only some other
 * module imported (`click.testing` after `import click`) is an attribute at run time by accident
 * of import order, and no type checker's: left undecided.
 */
function submoduleChain(file: FileView, receiver: string): string[] | undefined {
  const parts = receiver.split('.')
  for (let cut = parts.length - 1; cut >= 1; cut--) {
    const bound = file.bindings.modules.get(parts.slice(0, cut).join('.'))
    if (!bound) continue
    let paths = bound
    for (let k = cut; k < parts.length; k++) {
      const part = parts[k]!
      if (!/^[A-Za-z_]\w*$/.test(part)) return undefined
      const next: string[] = []
      const dotted = parts.slice(0, k + 1).join('.')
      const importedHere = file.artifact.imports.some((i) => i.names.length === 0 && i.module === dotted)
      for (const path of paths) {
        if (!path.endsWith('/__init__.py')) continue
        const dir = dirOf(path)
        const imported = file.importedBy(path)
        for (const candidate of [`${dir}/${part}.py`, `${dir}/${part}/__init__.py`]) if (file.fileExists(candidate) && (importedHere || imported.includes(candidate))) next.push(candidate)
      }
      if (next.length === 0) return undefined
      paths = next
    }
    return paths
  }
  return undefined
}

/** The file imports `name` itself (or everything) from a module the index could not resolve. */
function importsName(artifact: FileArtifact, name: string): boolean {
  return artifact.imports.some((i) => i.names.some((n) => n.name === name || n.alias === name || n.name === '*'))
}

function encloses(scope: string, enclosing: string): boolean {
  return enclosing === scope || enclosing.startsWith(`${scope}.`)
}

function lastSegment(text: string): string {
  const parts = text.split(/::|\.|->/)
  return parts[parts.length - 1] ?? text
}

/** `a/b/util.py` → `util`; `a/b/__init__.py`, `a/b/index.ts`, `a/b/mod.rs` → `b`. */
function moduleName(path: string): string {
  const slash = path.lastIndexOf('/')
  const dot = path.lastIndexOf('.')
  const stem = path.slice(slash + 1, dot > slash ? dot : undefined)
  return (stem === '__init__' || stem === 'index' || stem === 'mod' ? lastSegment(dirOf(path).replace(/\//g, '.')) : stem).toLowerCase()
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/')
  return slash < 0 ? '' : path.slice(0, slash)
}
