/**
 * What a query reads of the imported SCIP index. A document is *fresh* for a file whose current
 * content (committed blob, or the overlay's content hash of an edited file) is the blob the index
 * was built from: only then do its line and column numbers describe the file as it is.
 */
import { DEFINITION_ROLE, ROW } from './decode.js'
import type { ScipDocumentRecord, ScipRecord } from './record.js'
import { scipName, type ScipName } from './symbol.js'

/** A definition occurrence of a global symbol, as def reads it. */
export interface ScipDefinition extends ScipName {
  symbol: number
  path: string
  /** The file's blob the document was built from: the definition holds only while the file has it. */
  blob: string
  /** 1-based. */
  line: number
  /** 0-based. */
  column: number
}

export interface ScipOccurrence {
  /** 1-based. */
  line: number
  /** 0-based. */
  column: number
  definition: boolean
}

export class ScipView {
  private readonly documents: Map<string, ScipDocumentRecord>
  private readonly hovers: Map<number, string>
  /** Symbol id → [document index, row index] pairs, built on the first references query. */
  private postings: Map<number, number[]> | undefined
  private ids: Map<string, number> | undefined
  /** Last descriptor name → global symbol ids, built on the first definitions query. */
  private named: Map<string, number[]> | undefined

  constructor(private readonly record: ScipRecord) {
    this.documents = new Map(record.documents.map((d) => [d.path, d]))
    this.hovers = new Map(record.hovers)
  }

  get commit(): string {
    return this.record.commit
  }

  /** The file's document when its content is the one the index was built from. */
  fresh(path: string, blob: string): ScipDocumentRecord | undefined {
    const document = this.documents.get(path)
    return document?.blob === blob ? document : undefined
  }

  /** The symbol a fresh file defines with a name starting at (line, column); line 1-based. */
  definitionAt(path: string, blob: string, line: number, column: number): number | undefined {
    const rows = this.fresh(path, blob)?.rows
    if (!rows) return undefined
    for (let i = 0; i < rows.length; i += ROW) {
      if (rows[i] === line - 1 && rows[i + 1] === column && (rows[i + 5]! & DEFINITION_ROLE) !== 0) return rows[i + 4]
    }
    return undefined
  }

  /**
   * The symbols whose uses are uses of `symbol`: itself, and for a class its constructor
   * (scip-typescript names `new Circle()` by `Circle#\`<constructor>\`().`, where a reader sees Circle).
   */
  usedAs(symbol: number): number[] {
    const name = this.record.symbols[symbol]
    if (name === undefined || !name.endsWith('#')) return [symbol]
    this.ids ??= new Map(this.record.symbols.map((s, id) => [s, id]))
    const constructor = this.ids.get(`${name}\`<constructor>\`().`)
    return constructor === undefined ? [symbol] : [symbol, constructor]
  }

  /** Where the index defines global symbols whose own name (their last descriptor) is `name`. */
  definitionsNamed(name: string): ScipDefinition[] {
    if (!this.named) {
      this.named = new Map()
      this.record.symbols.forEach((symbol, id) => {
        const parsed = scipName(symbol, this.hovers.get(id))
        if (!parsed) return
        const list = this.named!.get(parsed.name)
        if (list) list.push(id)
        else this.named!.set(parsed.name, [id])
      })
    }
    const found: ScipDefinition[] = []
    for (const symbol of this.named.get(name) ?? []) {
      const parsed = scipName(this.record.symbols[symbol]!, this.hovers.get(symbol))!
      for (const [path, occurrences] of this.occurrencesOf(new Set([symbol]))) {
        const blob = this.documents.get(path)!.blob
        for (const occurrence of occurrences) if (occurrence.definition) found.push({ ...parsed, symbol, path, blob, line: occurrence.line, column: occurrence.column })
      }
    }
    return found
  }

  hover(symbol: number): string | undefined {
    return this.hovers.get(symbol)
  }

  /** Per document path, the occurrences of `symbols` in it, in the document's order. */
  occurrencesOf(symbols: ReadonlySet<number>): Map<string, ScipOccurrence[]> {
    const postings = this.postingsBySymbol()
    const found = new Map<string, ScipOccurrence[]>()
    const hits: Array<[number, number]> = []
    for (const symbol of symbols) {
      const list = postings.get(symbol) ?? []
      for (let i = 0; i < list.length; i += 2) hits.push([list[i]!, list[i + 1]!])
    }
    hits.sort((a, b) => a[0] - b[0] || a[1] - b[1])
    for (const [d, r] of hits) {
      const document = this.record.documents[d]!
      let list = found.get(document.path)
      if (!list) found.set(document.path, (list = []))
      const rows = document.rows
      list.push({ line: rows[r]! + 1, column: rows[r + 1]!, definition: (rows[r + 5]! & DEFINITION_ROLE) !== 0 })
    }
    return found
  }

  private postingsBySymbol(): Map<number, number[]> {
    if (this.postings) return this.postings
    const postings = new Map<number, number[]>()
    this.record.documents.forEach((document, d) => {
      const rows = document.rows
      for (let r = 0; r < rows.length; r += ROW) {
        const symbol = rows[r + 4]!
        let list = postings.get(symbol)
        if (!list) postings.set(symbol, (list = []))
        list.push(d, r)
      }
    })
    return (this.postings = postings)
  }
}
