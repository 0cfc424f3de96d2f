/**
 * Import resolution: from an import as written (module specifier, language, importing path) to
 * a repo file or package directory. Each language lists candidates in order of preference; the
 * first that exists wins. Candidates are also the import's watch keys (see `pathKeys`), which
 * is what makes resolution patchable.
 */
import type { LanguageId } from '../parse/types.js'
import { basename, candidateKey, dirname, joinPath, type PathIndex } from './paths.js'

export interface ImportSpec {
  /** Path of the importing file. */
  from: string
  language: LanguageId
  module: string
  /** One imported name that may itself be a module (`from pkg import mod`, `use crate::a::{b}`), or ''. */
  name: string
  relative: boolean
}

export interface ImportTarget {
  path: string
  /** A package directory (Go, Java `a.b.*`): the import reaches every file directly in it. */
  isDir: boolean
}

type Candidate =
  | { file: string }
  /** A module beside an importer that is a script, not a package's module (which has no implicit relative imports). */
  | { file: string; script: true }
  /** Any path ending in this suffix; several → the one nearest the importer. */
  | { suffix: string }
  | { dir: string }
  /** Any directory ending in this suffix (Java packages under a source root). */
  | { dirSuffix: string }
  /** The longest directory the import path ends with (Go module paths). */
  | { goPackage: string }
  /** This path under one of the Python import roots; several → the one nearest the importer. */
  | { rooted: string }
  /**
   * Any path ending in this suffix, unless the module's top-level package `pkg` is under an
   * import root (then the import means that package, and a same-named file elsewhere is not it).
   */
  | { suffix: string; unlessRooted: string }

const ECMA_EXTENSIONS = ['.ts', '.tsx', '.js', '.jsx', '.mjs']
const ECMA_WRITTEN_EXTENSION = /\.(?:js|jsx|mjs|cjs)$/

function candidates(spec: ImportSpec): Candidate[] {
  switch (spec.language) {
    case 'c':
    case 'cpp':
      return cInclude(spec)
    case 'javascript':
    case 'typescript':
    case 'tsx':
      return ecmaImport(spec)
    case 'python':
      return pythonImport(spec)
    case 'go':
      return goImport(spec)
    case 'rust':
      return rustUse(spec)
    case 'java':
      return javaImport(spec)
    case 'ruby':
      return rubyRequire(spec)
    case 'text':
      return []
  }
}

/** `"x.h"` first relative to the including file, then like `<x.h>`: by unique path suffix. */
function cInclude({ from, module, relative }: ImportSpec): Candidate[] {
  const out: Candidate[] = []
  if (relative) {
    const file = joinPath(dirname(from), module)
    if (file) out.push({ file })
  }
  const suffix = joinPath('', module)
  if (suffix && !module.includes('..')) out.push({ suffix })
  return out
}

/** Relative specifiers only (packages live outside the repo), with extension and index probing. */
function ecmaImport({ from, module }: ImportSpec): Candidate[] {
  if (!(module === '.' || module === '..' || module.startsWith('./') || module.startsWith('../'))) return []
  const base = joinPath(dirname(from), module)
  if (base === null) return []
  if (ECMA_WRITTEN_EXTENSION.test(base)) {
    // TypeScript ESM imports name the emitted `.js`, the source is `.ts`.
    const stem = base.slice(0, base.lastIndexOf('.'))
    return [{ file: base }, { file: `${stem}.ts` }, { file: `${stem}.tsx` }]
  }
  const out: Candidate[] = base ? [{ file: base }, ...ECMA_EXTENSIONS.map((ext) => ({ file: base + ext }))] : []
  for (const ext of ECMA_EXTENSIONS) out.push({ file: base ? `${base}/index${ext}` : `index${ext}` })
  return out
}

/**
 * `a.b` → `a/b.py` or `a/b/__init__.py`: first under the import roots (the repository's, a src
 * layout's, each top-level package's parent), then beside the importing file when it is a script
 * outside any package (its folder is on the path when it runs), then — only when no root holds the
 * package `a`, and for a dotted module only — any path ending so (a namespace package the roots
 * miss). Leading dots climb from the importing package.
 */
function pythonImport({ from, module, name }: ImportSpec): Candidate[] {
  let dots = 0
  while (module[dots] === '.') dots++
  const parts = module.slice(dots).split('.').filter(Boolean)
  const modules = name && name !== '*' ? [[...parts, name], parts] : [parts]
  const out: Candidate[] = []
  if (dots > 0) {
    let dir: string | null = dirname(from)
    for (let up = 1; up < dots && dir !== null; up++) dir = dir ? dirname(dir) : null
    if (dir === null) return []
    for (const segments of modules) {
      const base = joinPath(dir, segments.join('/'))
      if (base === null) continue
      if (segments.length > 0) out.push({ file: `${base}.py` })
      out.push({ file: base ? `${base}/__init__.py` : '__init__.py' })
    }
    return out
  }
  const paths = modules.filter((segments) => segments.length > 0).map((segments) => segments.join('/'))
  if (paths.length === 0 || paths.some((path) => joinPath('', path) !== path)) return []
  for (const base of paths) out.push({ rooted: `${base}.py` }, { rooted: `${base}/__init__.py` })
  const here = dirname(from)
  for (const base of paths) out.push({ file: here ? `${here}/${base}.py` : `${base}.py`, script: true }, { file: here ? `${here}/${base}/__init__.py` : `${base}/__init__.py`, script: true })
  // A one-word module found by suffix alone would take `import json` for any json.py.
  for (const base of paths) if (base.includes('/')) out.push({ suffix: `${base}.py`, unlessRooted: parts[0] ?? base }, { suffix: `${base}/__init__.py`, unlessRooted: parts[0] ?? base })
  return out
}

function goImport({ from, module }: ImportSpec): Candidate[] {
  if (module.startsWith('./') || module.startsWith('../')) {
    const dir = joinPath(dirname(from), module)
    return dir === null ? [] : [{ dir }]
  }
  return [{ goPackage: module }]
}

/**
 * `crate::a::b` → `<crate>/a/b.rs` or `<crate>/a/b/mod.rs`, where the crate root is the
 * importer's enclosing `src/`; the last segment may be an item, so its parent module is the
 * fallback. Paths of other crates (`std::io`) are not in the repo.
 */
function rustUse({ from, module, name }: ImportSpec): Candidate[] {
  const segments = module.split('::').filter(Boolean)
  const head = segments.shift()
  let root: string | null
  if (head === 'crate') {
    const at = from.startsWith('src/') ? 0 : from.lastIndexOf('/src/') + 1
    root = at > 0 || from.startsWith('src/') ? from.slice(0, at + 3) : ''
  } else if (head === 'self' || head === 'super') {
    const file = basename(from)
    root = /^(?:mod|lib|main)\.rs$/.test(file) ? dirname(from) : joinPath(dirname(from), file.replace(/\.rs$/, ''))
    if (head === 'super' && root !== null) root = root ? dirname(root) : null
    while (segments[0] === 'super' && root !== null) {
      segments.shift()
      root = root ? dirname(root) : null
    }
  } else return []
  if (root === null) return []
  if (name && name !== '*' && name !== 'self') segments.push(name)
  const out: Candidate[] = []
  for (const length of [segments.length, segments.length - 1]) {
    if (length <= 0) continue
    const base = joinPath(root, segments.slice(0, length).join('/'))
    if (base) out.push({ file: `${base}.rs` }, { file: `${base}/mod.rs` })
  }
  return out
}

/** `a.b.C` → any `…/a/b/C.java`; `a.b.*` → the package directory; static imports fall back to the class. */
function javaImport({ module, name }: ImportSpec): Candidate[] {
  const parts = module.split('.').filter(Boolean)
  if (parts[parts.length - 1] === '*') parts.pop()
  else if (name === '*') return parts.length ? [{ dirSuffix: parts.join('/') }] : []
  else if (name) parts.push(name)
  if (module.endsWith('.*')) return parts.length ? [{ dirSuffix: parts.join('/') }] : []
  const out: Candidate[] = []
  if (parts.length > 0) out.push({ suffix: `${parts.join('/')}.java` })
  if (parts.length > 1) out.push({ suffix: `${parts.slice(0, -1).join('/')}.java` })
  return out
}

/** `require_relative` (relative) from the requiring file's directory; `require 'a/b'` by path suffix. */
function rubyRequire({ from, module, relative }: ImportSpec): Candidate[] {
  const file = module.endsWith('.rb') ? module : `${module}.rb`
  if (relative) {
    const path = joinPath(dirname(from), file)
    return path ? [{ file: path }] : []
  }
  const suffix = joinPath('', file)
  return suffix && !file.includes('..') ? [{ suffix }] : []
}

/** The first candidate that exists, or null. */
export function resolveImport(index: PathIndex, spec: ImportSpec): ImportTarget | null {
  for (const candidate of candidates(spec)) {
    if ('file' in candidate) {
      // `import json` in a package's module is the standard library's, never the package's json/.
      if ('script' in candidate && index.has(joinPath(dirname(spec.from), '__init__.py') ?? '')) continue
      if (candidate.file !== spec.from && index.has(candidate.file)) return { path: candidate.file, isDir: false }
    } else if ('rooted' in candidate) {
      const hits = index.pythonRoots().map((root) => (root ? `${root}/${candidate.rooted}` : candidate.rooted)).filter((p) => p !== spec.from && index.has(p))
      const path = nearest(spec.from, hits)
      if (path !== null) return { path, isDir: false }
    } else if ('suffix' in candidate) {
      if ('unlessRooted' in candidate && rootsHold(index, candidate.unlessRooted)) continue
      const path = nearest(spec.from, index.withSuffix(candidate.suffix).filter((p) => p !== spec.from))
      if (path !== null) return { path, isDir: false }
    } else if ('dir' in candidate) {
      if (index.hasDir(candidate.dir)) return { path: candidate.dir, isDir: true }
    } else if ('dirSuffix' in candidate) {
      const dir = nearest(spec.from, index.dirsWithSuffix(candidate.dirSuffix))
      if (dir !== null) return { path: dir, isDir: true }
    } else {
      const dirs = index.dirsEndingIn(candidate.goPackage)
      const longest = Math.max(-1, ...dirs.map((dir) => dir.length))
      const best = dirs.filter((dir) => dir.length === longest)
      if (best.length === 1) return { path: best[0]!, isDir: true }
    }
  }
  return null
}

/** Distinct keys of the paths that could resolve `spec` (at most two by construction). */
export function importKeys(spec: ImportSpec): string[] {
  const keys: string[] = []
  for (const candidate of candidates(spec)) {
    const key = 'file' in candidate ? candidateKey(candidate.file)
      : 'suffix' in candidate ? candidateKey(candidate.suffix)
        : 'rooted' in candidate ? candidateKey(candidate.rooted)
        : basename('dir' in candidate ? candidate.dir : 'dirSuffix' in candidate ? candidate.dirSuffix : candidate.goPackage)
    if (!keys.includes(key)) keys.push(key)
  }
  return keys
}

/** Some import root holds the top-level Python package or module `name`. */
function rootsHold(index: PathIndex, name: string): boolean {
  return index.pythonRoots().some((root) => {
    const base = root ? `${root}/${name}` : name
    return index.has(`${base}/__init__.py`) || index.has(`${base}.py`)
  })
}

/**
 * Among several paths matching a suffix, the one sharing the longest directory prefix with the
 * importer (`#include "config.h"` means the nearby one); a tie is ambiguous → null.
 */
function nearest(from: string, paths: string[]): string | null {
  if (paths.length <= 1) return paths[0] ?? null
  let best: string | null = null
  let bestShared = -1
  let tie = false
  for (const path of paths) {
    const shared = sharedPrefix(from, path)
    if (shared > bestShared) {
      best = path
      bestShared = shared
      tie = false
    } else if (shared === bestShared) tie = true
  }
  return tie ? null : best
}

function sharedPrefix(a: string, b: string): number {
  let shared = 0
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) {
    if (a[i] === '/') shared = i + 1
    i++
  }
  return shared
}
