/**
 * `refs SYMBOL`: the uses of a symbol — calls, reads, type and inheritance references, imports —
 * resolved through imports, receivers and scopes, so that an unrelated definition with the same
 * name does not contribute its uses. Definitions themselves are not references (use `def`).
 *
 * The symbol table's postings name the files mentioning the name; only those files' artifacts
 * are read, in a fixed order (files defining the target, then files importing it, then the rest
 * by path), so that a cursor can resume where a page stopped.
 */
import { UsageError } from '../errors.js'
import type { SymbolInfo } from '../graph/symbol-table.js'
import type { Freshness, QueryContext } from './context.js'
import { isDeclaration, rankedDefinitions, toDefinition, type Definition } from './def.js'
import { findCandidates, nameOf } from './symbols/candidates.js'
import { exposureOf, type Exposure } from './symbols/exposure.js'
import { lineReader } from './symbols/lines.js'
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
}

export interface RefsResult {
  symbol: string
  /** The definitions the references were resolved against (empty: the name is not defined in the repo). */
  definitions: Definition[]
  references: Reference[]
  /** Uses that might be of the symbol or of a same-named one; present when there are some. */
  ambiguous?: Reference[]
  /** Occurrences of the name in the files mentioning it, before resolution (an upper bound). */
  mentions: number
  /** Pass as `--cursor` for the next page; absent on the last page. */
  cursor?: string
  suggestions?: string[]
  freshness: Freshness
}

export interface RefsOptions {
  limit?: number
  cursor?: string
}

export const DEFAULT_REFS_LIMIT = 100

export function findReferences(qctx: QueryContext, symbol: string, options: RefsOptions = {}): RefsResult {
  const limit = options.limit ?? DEFAULT_REFS_LIMIT
  const start = parseCursor(options.cursor)
  const table = qctx.aggregates.symbols
  const name = nameOf(symbol)
  const targets = targetsOf(rankedDefinitions(qctx, symbol))
  const others = targets.length === 0 ? [] : findCandidates(table, name).filter((c) => c.name === name && !targets.some((t) => same(t, c)))
  const postings = table.referencesTo(name)
  const result: RefsResult = { symbol, definitions: targets.map(toDefinition), references: [], mentions: 0, freshness: qctx.freshness }
  for (const posting of postings) result.mentions += posting.count
  if (targets.length === 0 && postings.length === 0) {
    result.suggestions = suggestNames(table, name)
    return result
  }

  const mentioning = postings.map((p) => p.path)
  const exposure = exposureOf(table, name, targets.map((t) => t.path), others.map((o) => o.path), mentioning)
  const order = (path: string): number => (targets.some((t) => t.path === path) ? 0 : exposure.get(path) === 'target' ? 1 : 2)
  const files = mentioning.sort((a, b) => order(a) - order(b) || (a < b ? -1 : 1))
  const resolution: Resolution = { targets, others, exposure }
  const ambiguous: Reference[] = []

  for (let f = start.file; f < files.length; f++) {
    const path = files[f]!
    const view = fileView(qctx, path, exposure)
    if (!view) continue
    const line = lineReader(view.artifact)
    const refs = view.artifact.references
    for (let r = f === start.file ? start.ref : 0; r < refs.length; r++) {
      const ref = refs[r]!
      if (ref.name !== name) continue
      const verdict = targets.length === 0 ? 'keep' : resolveOccurrence(ref, view, resolution)
      if (verdict === 'drop') continue
      if (verdict === 'keep' && result.references.length === limit) {
        result.cursor = `${f}.${r}`
        break
      }
      const entry: Reference = { path, line: ref.line, column: ref.column, context: line(ref.line), enclosing: ref.enclosing }
      ;(verdict === 'keep' ? result.references : ambiguous).push(entry)
    }
    if (result.cursor) break
  }
  if (ambiguous.length > 0) result.ambiguous = ambiguous
  return result
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

function fileView(qctx: QueryContext, path: string, exposure: ReadonlyMap<string, Exposure>): FileView | null {
  const artifact = qctx.artifact(path)
  const source = qctx.files.get(path)
  if (!artifact || !source) return null
  const moduleBindings = new Map<string, string[]>()
  const bind = (local: string, target: string): void => {
    const list = moduleBindings.get(local)
    if (list) list.push(target)
    else moduleBindings.set(local, [target])
  }
  const table = qctx.aggregates.symbols
  const resolved = table.imports(path)
  for (const written of artifact.imports) {
    for (const imported of resolved) {
      if (imported.line !== written.line || imported.module !== written.module || !imported.resolved) continue
      const target = imported.resolved.path
      if (imported.name === '') {
        if (written.alias) bind(written.alias, target)
        bind(written.module, target)
      } else {
        for (const n of written.names) if (n.name === imported.name) bind(n.alias ?? n.name, target)
      }
    }
  }
  return { path, language: source.language, artifact, exposure: exposure.get(path), moduleBindings }
}

function parseCursor(cursor: string | undefined): { file: number; ref: number } {
  if (cursor === undefined) return { file: 0, ref: 0 }
  const match = /^(\d+)\.(\d+)$/.exec(cursor)
  if (!match) throw new UsageError(`--cursor ${JSON.stringify(cursor)} is not a cursor from a previous page`)
  return { file: Number(match[1]), ref: Number(match[2]) }
}

function same(a: SymbolInfo, b: SymbolInfo): boolean {
  return a.path === b.path && a.line === b.line && a.qualifiedName === b.qualifiedName
}
