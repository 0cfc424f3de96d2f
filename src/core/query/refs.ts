/**
 * `refs SYMBOL`: the uses of a symbol — calls, reads, type and inheritance references, imports,
 * doc-comment links, and the uses of a name it is imported under (`import {a as b}`) — resolved
 * through imports, receivers and scopes, so that an unrelated definition with the same name does
 * not contribute its uses. Definitions themselves are not references (use `def`).
 *
 * The symbol table's postings name the files mentioning the name; only those files' artifacts
 * are read, in a fixed order (files defining the target, then files importing it, then the rest
 * by path), so that a cursor can resume where a page stopped.
 *
 * A page ends before the first use its list has no room for: at most `limit` references and at
 * most `limit` ambiguous uses, so what a page reads (artifacts, lines of text) is bounded by what it
 * shows even for a name most of whose uses stay ambiguous (Linux's printk, dev_err: tens of
 * thousands). One position (file, row) says where the next page starts: the pages together are the
 * two lists of one page without a limit, in its order. Filling each list on its own would read on
 * past a full ambiguous list for the few resolved uses left — every mentioning file, for such a name.
 */
import { UsageError } from '../errors.js'
import type { FileImport, SymbolInfo } from '../graph/symbol-table.js'
import { referencesNamed, type Freshness, type QueryContext } from './context.js'
import { isDeclaration, rankedDefinitions, requireSymbol, scipSymbolOf, toDefinition, type Definition, type Precision } from './def.js'
import type { FileArtifact, LanguageId } from '../parse/types.js'
import type { ScipOccurrence } from '../scip/index.js'
import { findCandidates, nameOf } from './symbols/candidates.js'
import { aliasesOf, bindsName, importBindings, NAMED_IMPORTS } from './symbols/bindings.js'
import { exposureOf, type Exposure } from './symbols/exposure.js'
import { filesSeeing, INCLUDE_SCOPED } from './symbols/includes.js'
import { inSpace, restrictedSpace } from './symbols/meaning.js'
import { lineReader } from './symbols/lines.js'
import { PythonTypes } from './symbols/python-types.js'
import { resolveOccurrence, type FileView, type Resolution } from './symbols/resolve.js'
import { suggestNames } from './symbols/suggest.js'

export interface Reference {
  path: string
  /** 1-based. */
  line: number
  /** 0-based, of the name. */
  column: number
  /** The source line, trimmed. */
  context: string
  /** Qualified name of the innermost enclosing definition ('' at top level). */
  enclosing: string
  /** `scip`: the imported SCIP index is fresh for the file and resolved the use; else `syntactic`. */
  precision: Precision
}

export interface RefsResult {
  symbol: string
  /** The definitions the references were resolved against (empty: the name is not defined in the repo). */
  definitions: Definition[]
  references: Reference[]
  /** Uses that might be of the symbol or of a same-named one; present when there are some (at most `limit` a page). */
  ambiguous?: Reference[]
  /** Occurrences of the name in the files mentioning it, before resolution (an upper bound). */
  mentions: number
  /** Pass as `--cursor` for the next page; absent on the last page. */
  cursor?: string
  suggestions?: string[]
  freshness: Freshness
}

export interface RefsOptions {
  /** At most this many references, and this many ambiguous uses, a page. */
  limit?: number
  cursor?: string
}

export const DEFAULT_REFS_LIMIT = 100

export function findReferences(qctx: QueryContext, symbol: string, options: RefsOptions = {}): RefsResult {
  requireSymbol(symbol)
  const limit = options.limit ?? DEFAULT_REFS_LIMIT
  const start = parseCursor(options.cursor)
  const table = qctx.aggregates.symbols
  const name = nameOf(symbol)
  const targets = targetsOf(rankedDefinitions(qctx, symbol))
  const others = targets.length === 0 ? [] : findCandidates(table, name).filter((c) => c.name === name && !targets.some((t) => same(t, c)))
  const postings = table.referencesTo(name)
  const scipSymbols = targets.map((t) => scipSymbolOf(qctx, t))
  const result: RefsResult = { symbol, definitions: targets.map((t, i) => toDefinition(t, scipSymbols[i], qctx)), references: [], mentions: 0, freshness: qctx.freshness }
  // Files the SCIP index is fresh for answer from it: the compiler's uses of the target's SCIP symbol(s).
  const scip = new ScipUses(qctx, new Set(scipSymbols.filter((s) => s !== undefined)))
  for (const posting of postings) result.mentions += posting.count
  if (targets.length === 0 && postings.length === 0) {
    result.suggestions = suggestNames(table, name)
    return result
  }

  const mentioning = [...new Set([...postings.map((p) => p.path), ...scip.files()])]
  const views = new FileViews(qctx, name)
  // A class member named like the target does not hide the file's imports of it (click's core.py
  // has Option.prompt and imports termui's prompt): only top-level definitions label a file.
  const otherFiles = others.filter((o) => o.scope === '').map((o) => o.path)
  const languageOf = (path: string): LanguageId | undefined => qctx.files.get(path)?.language
  const includeScoped = (path: string): boolean => INCLUDE_SCOPED.has(languageOf(path)!)
  const exposure = exposureOf(table, targets.map((t) => t.path), otherFiles, mentioning, (path, row) => views.rowBinds(path, row), includeScoped)
  const order = (path: string): number => (targets.some((t) => t.path === path) ? 0 : exposure.get(path) === 'target' ? 1 : 2)
  const files = mentioning.sort((a, b) => order(a) - order(b) || (a < b ? -1 : 1))
  const resolution: Resolution = { targets, others, exposure, python: new PythonTypes(table, (path) => qctx.artifact(path)), othersSeenFrom: once(() => filesSeeing(table, others, languageOf)) }
  const space = restrictedSpace(table, targets, languageOf)
  const ambiguous: Reference[] = []
  /** The artifact of each file a reference was taken from: their context lines are read at the end, all files' text at once. */
  const taken = new Map<string, FileArtifact>()

  for (let f = start.file; f < files.length; f++) {
    const path = files[f]!
    const uses = scip.usesIn(path)
    if (uses) {
      const artifact = qctx.artifact(path)
      if (!artifact) continue
      taken.set(path, artifact)
      for (let r = f === start.file ? start.ref : 0; r < uses.length; r++) {
        if (result.references.length === limit) {
          result.cursor = `${f}.${r}`
          break
        }
        const use = uses[r]!
        result.references.push({ path, line: use.line, column: use.column, context: '', enclosing: enclosingAt(artifact, use.line), precision: 'scip' })
      }
      if (result.cursor) break
      continue
    }
    const view = views.view(path, exposure)
    if (!view) continue
    taken.set(path, view.artifact)
    // `import {name as alias}`: the alias's uses are the name's.
    const aliases = targets.length === 0 ? [] : aliasesOf(view.bindings, name)
    for (const { row: r, ref } of referencesNamed(view.artifact, new Set([name, ...aliases]))) {
      if (f === start.file && r < start.ref) continue
      const alias = ref.name !== name && aliases.includes(ref.name) && ref.receiver === undefined && ref.kind !== 'import'
      if ((ref.name !== name && !alias) || (space && !inSpace(ref.kind, space))) continue
      const verdict = targets.length === 0 ? 'keep' : resolveOccurrence(ref, view, resolution)
      if (verdict === 'drop') continue
      const list = verdict === 'keep' ? result.references : ambiguous
      if (list.length === limit) {
        result.cursor = `${f}.${r}`
        break
      }
      list.push({ path, line: ref.line, column: ref.column, context: '', enclosing: ref.enclosing, precision: 'syntactic' })
    }
    if (result.cursor) break
  }
  if (ambiguous.length > 0) result.ambiguous = ambiguous
  readContexts(qctx, [...result.references, ...ambiguous], taken)
  return result
}

/** Each reference's line of source, from the text of the files they were taken from (read in one go). */
function readContexts(qctx: QueryContext, references: Reference[], artifacts: Map<string, FileArtifact>): void {
  qctx.prefetchText(new Set(references.map((reference) => reference.path)))
  const readers = new Map<string, (line: number) => string>()
  for (const reference of references) {
    let line = readers.get(reference.path)
    if (!line) readers.set(reference.path, (line = lineReader(artifacts.get(reference.path)!)))
    reference.context = line(reference.line)
  }
}

/**
 * The best definition, with the declarations of the same qualified name elsewhere (a header's
 * prototype of a C function is the same symbol as its definition).
 */
function targetsOf(ranked: SymbolInfo[]): SymbolInfo[] {
  const best = ranked[0]
  if (!best) return []
  return ranked.filter((c) => c === best || (c.qualifiedName === best.qualifiedName && (isDeclaration(c) || isDeclaration(best))))
}

/** The uses of the target's SCIP symbols in the files the imported SCIP index is fresh for. */
class ScipUses {
  private readonly byPath: Map<string, ScipOccurrence[]>
  /** Whether the SCIP index speaks for the file as it is now. */
  private readonly fresh: (path: string) => boolean

  constructor(private readonly qctx: QueryContext, symbols: ReadonlySet<number>) {
    const view = symbols.size > 0 ? qctx.scip() : null
    this.byPath = view ? view.occurrencesOf(new Set([...symbols].flatMap((s) => view.usedAs(s)))) : new Map()
    this.fresh = (path) => {
      const source = qctx.files.get(path)
      return view !== null && source !== undefined && view.fresh(path, source.blob) !== undefined
    }
  }

  /** Fresh files holding a use (beside those the postings name). */
  files(): string[] {
    return [...this.byPath.keys()].filter((path) => this.fresh(path) && this.qctx.files.has(path))
  }

  /** The uses in `path` (definitions left out) when SCIP answers for it; undefined when it does not. */
  usesIn(path: string): ScipOccurrence[] | undefined {
    if (this.byPath.size === 0 || !this.fresh(path)) return undefined
    return (this.byPath.get(path) ?? []).filter((use) => !use.definition)
  }
}

/** The qualified name of the innermost definition around `line` ('' at top level), as extraction names a reference's. */
function enclosingAt(artifact: FileArtifact, line: number): string {
  let best: { qualifiedName: string; line: number; endLine: number } | undefined
  for (const def of artifact.symbols) {
    if (def.line > line || def.endLine < line) continue
    if (!best || def.line > best.line || (def.line === best.line && def.endLine < best.endLine)) best = def
  }
  return best?.qualifiedName ?? ''
}

/** Views of the files of one query; exposure asks each file, hop after hop, which imports bind the name. */
class FileViews {
  /** Per file, its import rows (line, module) that bind the name. */
  private readonly binding = new Map<string, Set<string>>()

  constructor(private readonly qctx: QueryContext, private readonly name: string) {}

  view(path: string, exposure: ReadonlyMap<string, Exposure>): FileView | null {
    const artifact = this.qctx.artifact(path)
    const source = this.qctx.files.get(path)
    if (!artifact || !source) return null
    const bindings = importBindings(this.qctx.aggregates.symbols, path, source.language, artifact.imports)
    const table = this.qctx.aggregates.symbols
    const importedBy = (p: string): string[] => table.imports(p).flatMap((row) => (row.resolved && !row.resolved.isDir ? [row.resolved.path] : []))
    return { path, language: source.language, artifact, exposure: exposure.get(path), bindings, fileExists: (p) => this.qctx.files.has(p), importedBy }
  }

  /** Whether an import row of `path` can bind the queried name itself, not only other names of its module. */
  rowBinds(path: string, row: FileImport): boolean {
    // A row naming what it imports (Python, Rust) binds that name only.
    if (row.name !== '') return row.name === this.name || row.name === '*'
    const source = this.qctx.files.get(path)
    if (!source || !NAMED_IMPORTS.has(source.language)) return true
    let rows = this.binding.get(path)
    if (!rows) {
      const written = this.qctx.artifact(path)?.imports ?? []
      rows = new Set(written.filter((w) => bindsName(w, this.name)).map((w) => `${w.line}\0${w.module}`))
      this.binding.set(path, rows)
    }
    return rows.has(`${row.line}\0${row.module}`)
  }
}

function parseCursor(cursor: string | undefined): { file: number; ref: number } {
  if (cursor === undefined) return { file: 0, ref: 0 }
  const match = /^(\d+)\.(\d+)$/.exec(cursor)
  if (!match) throw new UsageError(`--cursor ${JSON.stringify(cursor)} is not a cursor from a previous page`)
  return { file: Number(match[1]), ref: Number(match[2]) }
}

/** `compute`'s value, computed on the first call. */
function once<T>(compute: () => T): () => T {
  let value: { is: T } | undefined
  return () => (value ??= { is: compute() }).is
}

function same(a: SymbolInfo, b: SymbolInfo): boolean {
  return a.path === b.path && a.line === b.line && a.qualifiedName === b.qualifiedName
}
