/**
 * What one file's imports bind: each import as written (the artifact's, with its names and
 * aliases) joined with the symbol table's resolution of its row (same line and module).
 */
import type { SymbolTable } from '../../graph/symbol-table.js'
import type { ImportRef, LanguageId } from '../../parse/types.js'

/** Languages whose named imports bind a local name to one exported name of a module. */
export const NAMED_IMPORTS = new Set<LanguageId>(['typescript', 'tsx', 'javascript'])

export interface ImportedName {
  /** The name as the module exports it (`a` of `import {a as b}`). */
  name: string
  /** The files the module resolves to. */
  paths: string[]
}

export interface ImportStatement {
  /** Where the statement starts. */
  line: number
  names: ReadonlySet<string>
  paths: string[]
}

export interface ImportBindings {
  /** Local names bound to a whole module or file (namespace imports, `import os.path`) → files. */
  modules: Map<string, string[]>
  /** Local names bound by a named import (`b` of `import {a as b}`), for NAMED_IMPORTS languages. */
  names: Map<string, ImportedName>
  /** Statements importing names, by line, for NAMED_IMPORTS languages. */
  statements: ImportStatement[]
}

export function importBindings(table: SymbolTable, path: string, language: LanguageId, written: readonly ImportRef[]): ImportBindings {
  const out: ImportBindings = { modules: new Map(), names: new Map(), statements: [] }
  const bind = (local: string, target: string): void => {
    const list = out.modules.get(local)
    if (list) list.push(target)
    else out.modules.set(local, [target])
  }
  const named = NAMED_IMPORTS.has(language)
  const resolved = table.imports(path)
  for (const imp of written) {
    const files: string[] = []
    for (const row of resolved) {
      if (row.line !== imp.line || row.module !== imp.module || !row.resolved) continue
      const target = row.resolved.path
      if (row.name === '') {
        if (imp.alias) bind(imp.alias, target)
        bind(imp.module, target)
        // Python's `import a.b` also binds `a`, the top-level package.
        const top = language === 'python' && !imp.alias ? topPackage(table, imp.module, target) : undefined
        if (top) bind(imp.module.slice(0, imp.module.indexOf('.')), top)
        if (!row.resolved.isDir) files.push(target)
      } else if (language !== 'python' || isSubmodule(target, row.name)) {
        // `from m import Name` resolves to m itself when Name is no submodule: Name is then none of m's modules.
        for (const n of imp.names) if (n.name === row.name) bind(n.alias ?? n.name, target)
      }
    }
    if (!named || files.length === 0 || imp.names.length === 0) continue
    const names = new Set<string>()
    for (const n of imp.names) {
      if (n.name === '*') continue
      names.add(n.name)
      out.names.set(n.alias ?? n.name, { name: n.name, paths: files })
    }
    out.statements.push({ line: imp.line, names, paths: files })
  }
  return out
}

/** `a/b/name.py` or `a/b/name/__init__.py`: the file is the module `name`. */
function isSubmodule(target: string, name: string): boolean {
  const file = `${name}.py`
  const init = `${name}/__init__.py`
  return target === file || target.endsWith(`/${file}`) || target === init || target.endsWith(`/${init}`)
}

/** `a/b/c.py` (or `a/b/c/__init__.py`) imported as `a.b.c` → `a/__init__.py`, when the package has one. */
function topPackage(table: SymbolTable, module: string, target: string): string | undefined {
  const depth = module.split('.').length - 1
  if (depth < 1 || module.startsWith('.')) return undefined
  let base = target.endsWith('/__init__.py') ? target.slice(0, -'/__init__.py'.length) : target.replace(/\.py$/, '')
  for (let up = 0; up < depth; up++) base = base.slice(0, Math.max(0, base.lastIndexOf('/')))
  const init = base ? `${base}/__init__.py` : '__init__.py'
  return table.hasFile(init) ? init : undefined
}

/** The statement an import reference at `line` belongs to: the last one starting at or before it that imports `name`. */
export function statementOf(bindings: ImportBindings, name: string, line: number): ImportStatement | undefined {
  let best: ImportStatement | undefined
  for (const s of bindings.statements) if (s.line <= line && s.names.has(name) && (!best || s.line > best.line)) best = s
  return best
}

/**
 * A written import makes the bare name `name` visible: it names it, re-exports everything, or
 * binds a default export to it. (ECMAScript's table rows do not say which names they import.)
 */
export function bindsName(written: ImportRef, name: string): boolean {
  return written.names.some((n) => n.name === name || n.name === '*' || (n.name === 'default' && n.alias === name))
}

/** The names `name` is imported as under another name (`b` of `import {a as b}` for `a`). */
export function aliasesOf(bindings: ImportBindings, name: string): string[] {
  const out: string[] = []
  for (const [local, imported] of bindings.names) if (imported.name === name && local !== name) out.push(local)
  return out
}
