/**
 * Token counting for the repo map's budget. A real tokenizer would cost a dependency and
 * milliseconds per render, and the budget only needs to be honest, not exact: code tokenizes at
 * roughly four characters per token (identifiers and punctuation split finer, indentation
 * coarser), so a map counted this way lands within a few percent of a BPE count on average.
 * Every budget decision uses this one function, so a map is never over budget by its own count.
 */
export const CHARS_PER_TOKEN = 4

export function countTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN)
}
