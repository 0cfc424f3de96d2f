/**
 * Fitting ranked definitions to a token budget, as Aider does: a binary search over how many of
 * the best entries to render (the rendered size grows with the count, so the largest prefix that
 * fits is found in log₂ n renders), then a top-up pass that adds the following entries that still
 * fit — the entry that ended the prefix may be a long signature in a new file while shorter
 * ones after it would fill the remaining budget.
 */
import { renderMap, type Placed, type RenderedMap } from './render.js'
import { countTokens } from './tokens.js'

/** Entries after the prefix tried by the top-up: bounds its cost at a few hundred small renders. */
const TOP_UP_TRIES = 256

export interface FittedMap extends RenderedMap {
  tokens: number
}

export function fitToBudget(ranked: readonly Placed[], budget: number): FittedMap {
  const fits = (rendered: RenderedMap): boolean => countTokens(rendered.text) <= budget
  let best = renderMap([])
  let lo = 0
  let hi = ranked.length
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1
    const rendered = renderMap(ranked.slice(0, mid))
    if (fits(rendered)) {
      lo = mid
      best = rendered
    } else hi = mid - 1
  }
  const chosen = ranked.slice(0, lo)
  for (let i = lo + 1; i < ranked.length && i <= lo + TOP_UP_TRIES; i++) {
    chosen.push(ranked[i]!)
    const rendered = renderMap(chosen)
    if (fits(rendered)) best = rendered
    else chosen.pop()
  }
  return { ...best, tokens: countTokens(best.text) }
}
