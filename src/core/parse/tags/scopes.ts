import type { SymbolKind } from '../types.js'

/** A definition (or container) as a region of the file that names whatever lies inside it. */
export interface Scope {
  start: number
  end: number
  kind: SymbolKind | 'container'
  qualifiedName: string
  /** Names bound inside this scope. */
  locals?: LocalNames
}

/** Parameters and local variables (values), type parameters (types). */
export interface LocalNames {
  values: Set<string>
  types: Set<string>
}

/**
 * Answers "which scopes contain this position" for positions visited in increasing order, in
 * one pass over scopes sorted by (start asc, end desc). Scopes come from syntax nodes, so they
 * nest or are disjoint and a stack is enough — no walk up the tree per reference.
 */
export class ScopeCursor {
  private next = 0
  private readonly open: Scope[] = []

  constructor(private readonly scopes: readonly Scope[]) {}

  /** Scopes containing `position`, outermost first. Valid until the next call. */
  at(position: number): readonly Scope[] {
    const open = this.open
    while (this.next < this.scopes.length && this.scopes[this.next]!.start <= position) {
      const scope = this.scopes[this.next++]!
      while (open.length > 0 && open[open.length - 1]!.end <= scope.start) open.pop()
      open.push(scope)
    }
    while (open.length > 0 && open[open.length - 1]!.end <= position) open.pop()
    return open
  }
}

/** Joins qualified-name segments with '.', skipping empty ones. */
export function qualify(...segments: string[]): string {
  let out = ''
  for (const segment of segments) {
    if (!segment) continue
    out = out ? `${out}.${segment}` : segment
  }
  return out
}
