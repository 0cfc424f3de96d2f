/**
 * Rows of many files in shared columns, allocated a chunk at a time. A typed array costs about
 * 400 bytes of its own besides its rows (V8's buffer object, its backing store and their
 * bookkeeping): with columns of its own for every file, a cold build of Linux (78k files, 26
 * symbol and edge columns each) spent most of a gigabyte on them. A file's rows are a range of a
 * chunk instead, as a loaded table's rows are ranges of one set of columns.
 *
 * A row kind is one group of columns sharing a row count (a table's definitions, references and
 * imports). Rows of a file removed later stay in their chunk until every file of the chunk is
 * gone: chunks are small beside a tree, and a table or graph is patched a few files at a time.
 */
export interface ChunkLayout<C> {
  /** Columns with room for `rows[k]` rows of each kind `k`. */
  allocate(rows: readonly number[]): C
  /** Cuts the columns to `rows[k]` rows of each kind, once no more rows go into them. */
  trim(cols: C, rows: readonly number[]): void
}

export class RowChunks<C> {
  private cols: C | undefined
  private used: number[]
  private room: number[]

  constructor(
    private readonly layout: ChunkLayout<C>,
    /** Rows of each kind a chunk has room for; a file needing more gets a chunk of its size. */
    private readonly chunkRows: readonly number[],
  ) {
    this.used = chunkRows.map(() => 0)
    this.room = chunkRows.map(() => 0)
  }

  /** Room for `rows[k]` consecutive rows of each kind: the columns and the first row of each kind, for the caller to fill. */
  take(rows: readonly number[]): { cols: C; starts: number[] } {
    if (!this.cols || rows.some((count, k) => this.used[k]! + count > this.room[k]!)) this.start(rows)
    const starts = this.used.slice()
    rows.forEach((count, k) => { this.used[k]! += count })
    return { cols: this.cols!, starts }
  }

  private start(rows: readonly number[]): void {
    if (this.cols) this.layout.trim(this.cols, this.used)
    this.room = this.chunkRows.map((size, k) => Math.max(size, rows[k]!))
    this.used = this.chunkRows.map(() => 0)
    this.cols = this.layout.allocate(this.room)
  }
}

type Column = Int8Array | Uint8Array | Int32Array | Uint32Array | Float64Array

/** The first `rows` rows of `column`, copied when the column has room for more (a subarray would keep the whole buffer). */
export function cut<T extends Column>(column: T, rows: number): T {
  return column.length === rows ? column : (column.slice(0, rows) as T)
}
