/**
 * The set of indexed paths, indexed for import resolution: by basename (path-suffix matches),
 * and by directory (Go packages, Java wildcards). Maintained file by file, so adding a file can
 * make an import resolvable without rescanning the tree.
 */
export class PathIndex {
  private readonly files = new Set<string>()
  private readonly byBase = new Map<string, string[]>()
  private readonly dirs = new Map<string, string[]>()
  private readonly dirsByBase = new Map<string, string[]>()
  /** Python import roots, computed on first use; a package file added or removed forgets them. */
  private roots: string[] | null = null
  /** Package directories each packaging configuration (pyproject.toml, setup.cfg, setup.py) declares, from the repository's root. */
  private readonly declared = new Map<string, string[]>()

  add(path: string): void {
    if (this.files.has(path)) return
    this.files.add(path)
    if (path.endsWith('.py')) this.roots = null
    push(this.byBase, basename(path), path)
    const dir = dirname(path)
    const members = this.dirs.get(dir)
    if (members) members.push(path)
    else {
      this.dirs.set(dir, [path])
      push(this.dirsByBase, basename(dir), dir)
    }
  }

  remove(path: string): void {
    if (!this.files.delete(path)) return
    if (path.endsWith('.py')) this.roots = null
    if (this.declared.delete(path)) this.roots = null
    pull(this.byBase, basename(path), path)
    const dir = dirname(path)
    pull(this.dirs, dir, path)
    if (!this.dirs.has(dir)) pull(this.dirsByBase, basename(dir), dir)
  }

  /**
   * The package directories the packaging configuration at `config` declares (relative to its
   * folder, already checked to stay inside it: parse/package-dirs.ts): import roots, whatever
   * holds `__init__.py` files.
   */
  declarePackageDirs(config: string, dirs: readonly string[]): void {
    const roots = dirs.flatMap((dir) => joinPath(dirname(config), dir) ?? [])
    const before = this.declared.get(config) ?? []
    if (roots.length === before.length && roots.every((root, i) => root === before[i])) return
    if (roots.length > 0) this.declared.set(config, roots)
    else this.declared.delete(config)
    this.roots = null
  }

  has(path: string): boolean {
    return this.files.has(path)
  }

  /** Files directly in `dir` ('' = the root), in insertion order. */
  filesIn(dir: string): readonly string[] {
    return this.dirs.get(dir) ?? []
  }

  hasDir(dir: string): boolean {
    return this.dirs.has(dir)
  }

  /** Paths equal to `suffix` or ending in `/suffix`. */
  withSuffix(suffix: string): string[] {
    const same = this.byBase.get(basename(suffix))
    if (!same) return []
    return same.filter((path) => path.length === suffix.length ? path === suffix : path.endsWith(suffix) && path[path.length - suffix.length - 1] === '/')
  }

  /**
   * The directories absolute Python imports start from, as the interpreter's path would hold
   * them: the repository's root, the folder above each top-level package (a directory with an
   * `__init__.py` whose parent has none: `src/` of a src layout, `packages/x/` of a monorepo) and
   * every `src/` folder holding Python files (namespace packages have no `__init__.py`), and the
   * package directories packaging configurations declare (`package-dir = {"" = "lib"}`).
   */
  pythonRoots(): readonly string[] {
    if (this.roots) return this.roots
    const roots = new Set(['', ...[...this.declared.values()].flat()])
    for (const path of this.files) {
      if (!path.endsWith('.py')) continue
      const src = path.lastIndexOf('/src/')
      if (path.startsWith('src/')) roots.add('src')
      else if (src > 0) roots.add(path.slice(0, src + 4))
      if (basename(path) !== '__init__.py') continue
      let pkg = dirname(path)
      while (pkg !== '' && this.files.has(joinPath(dirname(pkg), '__init__.py') ?? '')) pkg = dirname(pkg)
      if (pkg !== '') roots.add(dirname(pkg))
    }
    return (this.roots = [...roots].sort())
  }

  /** Directories equal to `suffix` or ending in `/suffix` (Java `a.b.*` → `src/main/java/a/b`). */
  dirsWithSuffix(suffix: string): string[] {
    const same = this.dirsByBase.get(basename(suffix))
    if (!same) return []
    return same.filter((dir) => dir.length === suffix.length ? dir === suffix : dir.endsWith(suffix) && dir[dir.length - suffix.length - 1] === '/')
  }

  /** Directories that `importPath` ends with (`github.com/x/y/pkg/util` → `pkg/util`). */
  dirsEndingIn(importPath: string): string[] {
    const same = this.dirsByBase.get(basename(importPath))
    if (!same) return []
    return same.filter((dir) => dir.length === importPath.length ? dir === importPath : importPath.endsWith(dir) && importPath[importPath.length - dir.length - 1] === '/')
  }
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

function pull(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key)
  if (!list) return
  const at = list.indexOf(value)
  if (at >= 0) list.splice(at, 1)
  if (list.length === 0) map.delete(key)
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

export function dirname(path: string): string {
  const slash = path.lastIndexOf('/')
  return slash < 0 ? '' : path.slice(0, slash)
}

/** `a/./b/../c` → `a/c`; null when it climbs above the root. */
function normalizePath(path: string): string | null {
  const out: string[] = []
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') {
      if (out.length === 0) return null
      out.pop()
    } else out.push(part)
  }
  return out.join('/')
}

export function joinPath(dir: string, relative: string): string | null {
  return normalizePath(dir ? `${dir}/${relative}` : relative)
}

/** File names that stand for their directory: a path's key is then the directory's name. */
const INDEX_STEMS = new Set(['index', '__init__', 'mod'])

/**
 * What an import may match, for re-resolution when the path set changes: a file `a/b/c.py`
 * is keyed `c`, `a/b/c/__init__.py` and every file of directory `a/b/c` are keyed `c`. Adding or
 * removing a path touches exactly the imports watching one of `pathKeys(path)`.
 */
export function pathKeys(path: string): [string, string] {
  const base = basename(path)
  const dot = base.indexOf('.', 1)
  return [dot < 0 ? base : base.slice(0, dot), basename(dirname(path))]
}

export function candidateKey(path: string): string {
  const [stem, dir] = pathKeys(path)
  return INDEX_STEMS.has(stem) ? dir : stem
}
