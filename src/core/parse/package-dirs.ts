/**
 * The Python package directories a packaging configuration declares — pyproject.toml
 * (setuptools `package-dir` and `packages.find` `where`, hatch `packages`/`sources`, poetry
 * `packages` `from`, pdm `package-dir`), setup.cfg (`[options] package_dir`, `[options.packages.find]
 * where`) and setup.py's literal `package_dir={'': 'lib'}` / `find_packages(where='lib')` — read
 * as text, never run. They become import roots (graph/paths.ts): a namespace package (no
 * `__init__.py`) under `lib/` is then found. A cloned repository's configuration is untrusted:
 * only relative paths inside the repository count (no `..`, nothing absolute), at most a few per
 * file; anything else is ignored without a word.
 *
 * Extraction is keyed by content, not path, so these are read from any text or Python file that
 * looks like such a configuration; the symbol table uses them only for files named
 * pyproject.toml, setup.cfg or setup.py (see `declaredDir`). Each is stored as an import row whose
 * module is the directory followed by `/`, which no import statement of any language writes.
 */
import type { ImportRef } from './types.js'

/** A file holds at most this many declared directories; more than that is not a packaging configuration we trust. */
export const MAX_PACKAGE_DIRS = 8
/** File names whose declared directories are import roots. */
export const PACKAGE_CONFIGS = new Set(['pyproject.toml', 'setup.cfg', 'setup.py'])

/** The import rows of a text file's declared package directories (TOML or INI). */
export function textPackageDirs(source: string): ImportRef[] {
  if (!/^\s*\[(tool\.|options)/m.test(source)) return []
  return rows([...tomlDirs(source), ...iniDirs(source)])
}

/** setup.py's literal `package_dir={'': 'lib'}` and `find_packages(where='lib')` / `find_namespace_packages('lib')`. */
export function setupPyPackageDirs(source: string): ImportRef[] {
  if (!source.includes('package_dir') && !source.includes('packages(')) return []
  const found: Declared[] = []
  const patterns = [/\bpackage_dir\s*=\s*\{\s*(['"])\1\s*:\s*(['"])([^'"\n]*)\2/g, /\bfind_(?:namespace_)?packages\(\s*(?:where\s*=\s*)?(['"])([^'"\n]*)\1/g]
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) found.push({ dir: match[match.length - 1]!, line: lineAt(source, match.index) })
  }
  return rows(found)
}

/** The declared directory of an import row of a packaging configuration, or undefined for a real import. */
export function declaredDir(module: string): string | undefined {
  return module.endsWith('/') ? module.slice(0, -1) : undefined
}

interface Declared {
  dir: string
  line: number
}

function rows(found: Declared[]): ImportRef[] {
  const out: ImportRef[] = []
  for (const { dir, line } of found) {
    const safe = safeDir(dir)
    if (safe === undefined || out.some((r) => r.module === `${safe}/`)) continue
    out.push({ module: `${safe}/`, names: [], line, relative: false })
  }
  return out.length > MAX_PACKAGE_DIRS ? [] : out
}

/** A relative directory inside the repository, normalised (`./src/` → `src`); undefined for the root itself, `..`, absolute paths and odd characters. */
function safeDir(raw: string): string | undefined {
  const text = raw.trim()
  if (text.length > 200 || !/^[\w.\-/]+$/.test(text) || text.startsWith('/')) return undefined
  const parts = text.split('/').filter((p) => p !== '' && p !== '.')
  if (parts.length === 0 || parts.some((p) => p === '..' || /^\.+$/.test(p))) return undefined
  return parts.join('/')
}

/** The directories a pyproject.toml declares, read line by line under their table headers. */
function tomlDirs(source: string): Declared[] {
  const out: Declared[] = []
  const lines = source.split('\n')
  let table = ''
  for (let i = 0; i < lines.length; i++) {
    const text = stripComment(lines[i]!)
    const header = /^\s*\[([^\][]+)\]\s*$/.exec(text)
    if (header) {
      table = header[1]!.replace(/\s+/g, '').replace(/["']/g, '')
      continue
    }
    const pair = /^\s*([\w"'.-]+)\s*=\s*(.*)$/.exec(text)
    if (!pair) continue
    const key = pair[1]!.replace(/["']/g, '')
    // A value may run over the next lines (an array, an inline table): up to its closing bracket.
    let value = pair[2]!
    const line = i + 1
    while (!balanced(value) && i + 1 < lines.length) value += ` ${stripComment(lines[++i]!)}`
    const add = (dirs: string[]): void => {
      for (const dir of dirs) out.push({ dir, line })
    }
    if (table === 'tool.setuptools' && (key === 'package-dir' || key === 'package_dir')) add(mappedRoots(value))
    else if (table === 'tool.setuptools.package-dir' || table === 'tool.setuptools.package_dir') add(key === '' ? strings(value) : [])
    else if (table === 'tool.setuptools.packages.find' && key === 'where') add(strings(value))
    else if (/^tool\.hatch\.build(\.targets\.[\w-]+)?$/.test(table) && key === 'packages') add(strings(value).map(parentDir))
    else if (/^tool\.hatch\.build(\.targets\.[\w-]+)?$/.test(table) && key === 'sources' && value.trim().startsWith('[')) add(strings(value))
    else if (table === 'tool.poetry' && key === 'packages') add([...value.matchAll(/\bfrom\s*=\s*(["'])([^"']*)\1/g)].map((m) => m[2]!))
    else if (table === 'tool.pdm.build' && key === 'package-dir') add(strings(value))
  }
  return out
}

/** setup.cfg's `[options] package_dir` (`=src`, possibly on the next, indented line) and `[options.packages.find] where`. */
function iniDirs(source: string): Declared[] {
  const out: Declared[] = []
  const lines = source.split('\n')
  let section = ''
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!
    const header = /^\[([^\]]+)\]\s*$/.exec(text)
    if (header) {
      section = header[1]!.trim()
      continue
    }
    const option = /^([\w.-]+)\s*[=:]\s*(.*)$/.exec(text)
    if (!option) continue
    const values = [{ text: option[2]!, line: i + 1 }]
    // Continuation lines are indented.
    while (i + 1 < lines.length && /^\s+\S/.test(lines[i + 1]!)) values.push({ text: lines[++i]!.trim(), line: i + 1 })
    if (section === 'options' && option[1] === 'package_dir') {
      for (const v of values) {
        const mapping = /^=\s*(\S+)$/.exec(v.text.trim())
        if (mapping) out.push({ dir: mapping[1]!, line: v.line })
      }
    } else if (section === 'options.packages.find' && option[1] === 'where') {
      for (const v of values) if (v.text.trim() !== '') out.push({ dir: v.text.trim(), line: v.line })
    }
  }
  return out
}

/** `{"" = "src"}`: the directory mapped to the empty package name (the root of every package). */
function mappedRoots(value: string): string[] {
  return [...value.matchAll(/(["'])\1\s*=\s*(["'])([^"']*)\2/g)].map((m) => m[3]!)
}

/** Every string literal of a TOML value (`["src", "lib"]`, `"src"`). */
function strings(value: string): string[] {
  return [...value.matchAll(/(["'])([^"'\n]*)\1/g)].map((m) => m[2]!)
}

/** hatch's `packages = ["src/foo"]` names a package: its parent is the root. */
function parentDir(path: string): string {
  const trimmed = path.replace(/\/+$/, '')
  const slash = trimmed.lastIndexOf('/')
  return slash < 0 ? '' : trimmed.slice(0, slash)
}

function stripComment(line: string): string {
  const at = line.indexOf('#')
  return at < 0 ? line : line.slice(0, at)
}

function balanced(text: string): boolean {
  let depth = 0
  for (const char of text) {
    if (char === '[' || char === '{') depth++
    else if (char === ']' || char === '}') depth--
  }
  return depth <= 0
}

function lineAt(source: string, index: number): number {
  let line = 1
  for (let i = 0; i < index; i++) if (source.charCodeAt(i) === 10) line++
  return line
}
