/**
 * Fitting ranked definitions to a token budget, as Aider does: the largest prefix of the best
 * entries that fits (the rendered size grows with the count, so it is found by doubling the count
 * until it no longer fits, then bisecting: about 2 log₂ n renders, and no entry past twice the
 * prefix is looked at), then a top-up pass that adds the following entries that still fit — the
 * entry that ended the prefix may be a long signature in a new file while shorter ones after it
 * would fill the remaining budget.
 *
 * An entry is placed (its file's definitions read, for its line and enclosing definitions) only
 * when fitting looks at it: over a stored symbol table that is a block read per file, so the
 * entries never rendered are never placed, and the top-up passes over an entry of a file not shown
 * yet whose path line alone would not fit.
 */
import { renderMap, type Placed, type RenderedMap } from './render.js'
import { CHARS_PER_TOKEN, countTokens } from './tokens.js'

/** Entries after the prefix tried by the top-up: bounds its cost at a few hundred small renders. */
const TOP_UP_TRIES = 256

export interface FittedMap extends RenderedMap {
  tokens: number
}

/** Ranked entries, best first, each placed when first asked for. */
export interface RankedEntries {
  readonly length: number
  /** The file of entry `i`, known before it is placed. */
  path(i: number): string
  placed(i: number): Placed
}

export function fitToBudget(entries: RankedEntries | readonly Placed[], budget: number): FittedMap {
  const ranked = isList(entries) ? listed(entries) : entries
  const fits = (rendered: RenderedMap): boolean => countTokens(rendered.text) <= budget
  const prefix = (count: number): Placed[] => Array.from({ length: count }, (_, i) => ranked.placed(i))
  let best = renderMap([])
  let lo = 0
  // Doubling from one entry: `hi` ends at the largest count not known to be over budget.
  let hi = ranked.length
  for (let count = 1; count <= ranked.length; count *= 2) {
    const rendered = renderMap(prefix(count))
    if (!fits(rendered)) {
      hi = count - 1
      break
    }
    lo = count
    best = rendered
  }
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1
    const rendered = renderMap(prefix(mid))
    if (fits(rendered)) {
      lo = mid
      best = rendered
    } else hi = mid - 1
  }
  const chosen = prefix(lo)
  const shown = new Set(chosen.map((entry) => entry.path))
  for (let i = lo + 1; i < ranked.length && i <= lo + TOP_UP_TRIES; i++) {
    // A file not shown yet costs its path line and one line under it at least: `path:` and `  x`.
    const path = ranked.path(i)
    if (!shown.has(path) && best.text.length + path.length + 4 > budget * CHARS_PER_TOKEN) continue
    chosen.push(ranked.placed(i))
    const rendered = renderMap(chosen)
    if (fits(rendered)) {
      best = rendered
      shown.add(path)
    } else chosen.pop()
  }
  return { ...best, tokens: countTokens(best.text) }
}

function isList(entries: RankedEntries | readonly Placed[]): entries is readonly Placed[] {
  return Array.isArray(entries)
}

function listed(list: readonly Placed[]): RankedEntries {
  return { length: list.length, path: (i) => list[i]!.path, placed: (i) => list[i]! }
}
