import type { ChunkKind, SymbolDef } from '../types.js'

/**
 * Finds the symbol a chunk is about among the file's definitions, which extractTags lists by
 * start (outer before inner at the same start). Lines are 1-based.
 */
export class SymbolFinder {
  private next = 0
  private readonly open: SymbolDef[] = []

  constructor(private readonly symbols: readonly SymbolDef[]) {}

  /** The outermost symbol spanning a definition's lines exactly (a decorator may precede it). */
  definedAt(first: number, last: number): SymbolDef | undefined {
    const symbols = this.symbols
    let low = 0
    let high = symbols.length
    while (low < high) {
      const mid = (low + high) >> 1
      if (symbols[mid]!.line < first) low = mid + 1
      else high = mid
    }
    for (let i = low; i < symbols.length && symbols[i]!.line <= last; i++) {
      if (symbols[i]!.endLine === last) return symbols[i]
    }
    return undefined
  }

  /**
   * The innermost symbol containing lines `first..last`. One sweep over the symbols: calls must
   * come with `first` never decreasing, as chunks do.
   */
  enclosing(first: number, last: number): SymbolDef | undefined {
    const { symbols, open } = this
    while (this.next < symbols.length && symbols[this.next]!.line <= first) {
      const symbol = symbols[this.next++]!
      while (open.length > 0 && open[open.length - 1]!.endLine < symbol.line) open.pop()
      open.push(symbol)
    }
    while (open.length > 0 && open[open.length - 1]!.endLine < first) open.pop()
    for (let i = open.length - 1; i >= 0; i--) if (open[i]!.endLine >= last) return open[i]
    return undefined
  }
}

/** Symbols whose syntax node carries decorators, a docstring or a class header. */
export function isDefinitionKind(kind: SymbolDef['kind']): boolean {
  switch (kind) {
    case 'function': case 'method': case 'macro':
    case 'class': case 'interface': case 'struct': case 'enum': case 'trait': case 'type':
      return true
    default:
      return false
  }
}

export function isClassKind(kind: SymbolDef['kind']): boolean {
  return kind === 'class' || kind === 'interface' || kind === 'struct' || kind === 'enum' || kind === 'trait' || kind === 'type'
}

/** A chunk's kind from the symbol it is about: function-like macros read as functions. */
export function chunkKind(symbol: SymbolDef | undefined): ChunkKind {
  if (!symbol) return 'module'
  if (symbol.kind === 'function' || symbol.kind === 'macro') return 'function'
  if (symbol.kind === 'method') return 'method'
  return isClassKind(symbol.kind) ? 'class' : 'module'
}
