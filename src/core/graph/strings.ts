import { TermTable } from '../search/terms.js'

/**
 * Interned strings shared by the symbol table and the code graph: per-file columns hold ids, so
 * millions of names cost four bytes each and compare as integers. Ids are stable for the life
 * of the table; the stored form is renumbered canonically (see SymbolTable.snapshot).
 */
export class StringTable {
  private strings: string[]
  private table: TermTable | undefined

  constructor(strings: string[] = ['']) {
    this.strings = strings
  }

  get size(): number {
    return this.strings.length
  }

  /** The id of `text`, adding it when new. Id 0 is always the empty string. */
  id(text: string): number {
    return this.index().id(text)
  }

  /** The id of `text`, or -1 when it was never interned. */
  find(text: string): number {
    return this.index().find(text)
  }

  get(id: number): string {
    return this.strings[id]!
  }

  /** Built on first use: a loaded table is often only read by id (saving, ranking). */
  private index(): TermTable {
    this.table ??= new TermTable(this.strings)
    return this.table
  }
}

/** Stored strings are joined by NUL, which no identifier, path or signature we keep contains. */
export const STRING_SEPARATOR = '\u0000'
