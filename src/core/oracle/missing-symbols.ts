/**
 * Honesty about names the code does not have: a question that names an identifier the symbol index
 * neither defines nor references ("Where is UserService used?" in a repository without one) is told
 * so first, with the nearest names that do exist, instead of being answered with loosely related
 * code presented as the match. Only identifiers that can only be code (camelCase, snake_case,
 * backticked, dotted) are checked: a prose word in the question is no claim about the code.
 */
import { runInRepo, type Repo } from '../git/index.js'
import type { SymbolTable } from '../graph/symbol-table.js'
import type { QueryContext } from '../query/context.js'
import { suggestNames } from '../query/symbols/suggest.js'
import { codeSpan } from '../display/index.js'

export interface MissingSymbol {
  /** As the question names it. */
  name: string
  /** Defined names closest to it: by spelling first, then by the words they share. */
  nearest: string[]
}

const NEAREST = 5
/** Words of a name too short to tell names apart (`id`, `db`, `io`). */
const MIN_WORD = 3

/** The identifiers of `identifiers` that no symbol of the index is named, each with its nearest names. */
export function missingSymbols(qctx: QueryContext, identifiers: readonly string[]): MissingSymbol[] {
  const table = qctx.aggregates.symbols
  const missing: MissingSymbol[] = []
  for (const identifier of new Set(identifiers)) {
    const name = lastSegment(identifier)
    if (name === '' || table.lookup(identifier).length > 0 || table.byName(name).length > 0 || table.referencesTo(name).length > 0) continue
    // A file name ("config.toml", "setup.py") is not a symbol the question claims exists.
    if (/\.[a-z]{1,5}$/i.test(identifier) && [...qctx.files.keys()].some((path) => path.endsWith(identifier))) continue
    missing.push({ name: identifier, nearest: nearestNames(table, name) })
  }
  return missing
}

/**
 * Of `missing`, the names the code's text lacks too. The symbol index records definitions and
 * references its queries recognise; a name written some other way (a named function expression
 * passed as an argument, a name a macro builds) is in the code all the same, and saying it is not
 * would be false. One `git grep` per name (whole word, fixed string, tracked files as checked
 * out); a grep that fails leaves the index's word standing.
 */
export async function absentFromText(repo: Repo, missing: readonly MissingSymbol[]): Promise<MissingSymbol[]> {
  const absent = await Promise.all(missing.map((symbol) => textLacks(repo, lastSegment(symbol.name))))
  return missing.filter((_, index) => absent[index])
}

async function textLacks(repo: Repo, name: string): Promise<boolean> {
  // A bare repository has no checkout: its HEAD's files are what was indexed.
  const where = repo.root === null ? ['HEAD'] : []
  try {
    await runInRepo(repo, ['grep', '-q', '-w', '-F', '-I', '-e', name, ...where])
    return false
  } catch {
    // Exit status 1: no match. Any other failure leaves the index's word standing.
    return true
  }
}

/** The sentence that opens an answer when the question names what is not there. */
export function missingNote(missing: readonly MissingSymbol[]): string {
  return missing
    .map(({ name, nearest }) => {
      const closest = nearest.length > 0 ? ` Closest names: ${nearest.map(codeSpan).join(', ')}.` : ' No defined name is close to it.'
      return `There is no ${codeSpan(name)} in this repository's code: no definition of it, and no reference to it.${closest}`
    })
    .join(' ')
}

/**
 * Names close in spelling (same name in another case, names it prefixes, a small edit distance),
 * then names sharing the most words with it (`UserService` → `AccountService`, `UserRepository`).
 */
export function nearestNames(table: SymbolTable, name: string, limit = NEAREST): string[] {
  const nearest = suggestNames(table, name, limit)
  if (nearest.length >= limit) return nearest
  const wanted = words(name)
  if (wanted.length === 0) return nearest
  const scored: Array<{ name: string; score: number }> = []
  const seen = new Set(nearest)
  // The defined names, as `def`'s suggestions read them (a stored table's from one block, never the
  // whole table); its qualified names are left out, the bare names of the same definitions are there.
  for (const candidate of table.definedNames()) {
    if (seen.has(candidate) || lastSegment(candidate) !== candidate) continue
    const lower = candidate.toLowerCase()
    // Most names share no word at all; a substring test finds them without splitting each.
    if (!wanted.some((word) => lower.includes(word))) continue
    const own = words(candidate)
    const shared = own.filter((word) => wanted.includes(word)).length
    if (shared === 0) continue
    scored.push({ name: candidate, score: shared / new Set([...own, ...wanted]).size })
  }
  scored.sort((a, b) => b.score - a.score || a.name.length - b.name.length || (a.name < b.name ? -1 : 1))
  return [...nearest, ...scored.slice(0, limit - nearest.length).map((s) => s.name)]
}

/** `UserService` → user, service; `parse_http_header` → parse, http, header. */
function words(name: string): string[] {
  const split = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2').toLowerCase()
  return [...new Set(split.split(/[^a-z0-9]+/).filter((word) => word.length >= MIN_WORD))]
}

function lastSegment(identifier: string): string {
  return identifier.split(/\.|::|#|:/).pop() ?? identifier
}
