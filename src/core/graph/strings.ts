/**
 * Interned strings shared by the symbol table and the code graph: per-file columns hold ids, so
 * millions of names cost four bytes each and compare as integers. Ids are stable for the life
 * of the table; the stored form is renumbered canonically (see SymbolTable.snapshot).
 */
export class StringTable {
  private strings: string[]
  private ids: Map<string, number> | undefined

  constructor(strings: string[] = ['']) {
    this.strings = strings
  }

  get size(): number {
    return this.strings.length
  }

  /** The id of `text`, adding it when new. Id 0 is always the empty string. */
  id(text: string): number {
    const ids = this.index()
    let id = ids.get(text)
    if (id === undefined) {
      id = this.strings.length
      this.strings.push(text)
      ids.set(text, id)
    }
    return id
  }

  /** The id of `text`, or -1 when it was never interned. */
  find(text: string): number {
    return this.index().get(text) ?? -1
  }

  get(id: number): string {
    return this.strings[id]!
  }

  /** Built on first use: a loaded table is often only read by id (saving, ranking). */
  private index(): Map<string, number> {
    if (!this.ids) {
      this.ids = new Map()
      for (let id = 0; id < this.strings.length; id++) this.ids.set(this.strings[id]!, id)
    }
    return this.ids
  }
}

/** Stored strings are joined by NUL, which no identifier, path or signature we keep contains. */
export const STRING_SEPARATOR = '\u0000'
