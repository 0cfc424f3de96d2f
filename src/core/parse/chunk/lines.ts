/**
 * Line starts of a source string, for turning the parser's string indexes into 1-based lines and
 * whole-line slices. web-tree-sitter parses a JS string as UTF-16, so node indexes and columns are
 * JS string indexes: no byte conversion is needed (test/parse/extract.test.ts pins this).
 * Lines are 0-based here; chunks and symbols add 1.
 */
export class LineIndex {
  private readonly starts: number[] = [0]
  /** Lines in the file: a trailing newline does not start another one; an empty file has none. */
  readonly count: number

  constructor(readonly source: string) {
    for (let at = source.indexOf('\n'); at >= 0; at = source.indexOf('\n', at + 1)) this.starts.push(at + 1)
    const last = this.starts[this.starts.length - 1]!
    this.count = last === source.length ? this.starts.length - 1 : this.starts.length
  }

  /** Index of the first character of a line. */
  start(line: number): number {
    return this.starts[line]!
  }

  /** Index just past a line's last character, before its `\n` (a `\r` stays). */
  end(line: number): number {
    const next = this.starts[line + 1]
    return next === undefined ? this.source.length : next - 1
  }

  /** The line containing a string index. */
  lineOf(index: number): number {
    const starts = this.starts
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (starts[mid]! <= index) low = mid
      else high = mid - 1
    }
    return low
  }

  /** True when a line holds only whitespace. */
  isBlank(line: number): boolean {
    const source = this.source
    for (let i = this.start(line), end = this.end(line); i < end; i++) {
      const code = source.charCodeAt(i)
      if (code !== 32 && code !== 9 && code !== 13 && code !== 12 && code !== 11) return false
    }
    return true
  }

  /** True when only whitespace precedes `index` on its line. */
  startsLine(index: number): boolean {
    const source = this.source
    for (let i = index - 1; i >= 0; i--) {
      const code = source.charCodeAt(i)
      if (code === 10) return true
      if (code !== 32 && code !== 9 && code !== 13) return false
    }
    return true
  }

  /** The source text of lines `first..last` (inclusive), trailing whitespace removed. */
  text(first: number, last: number): string {
    return this.source.slice(this.start(first), this.end(last)).trimEnd()
  }
}

/** True when the text between two indexes holds a blank line (two or more newlines). */
export function hasBlankLineBetween(source: string, from: number, to: number): boolean {
  const first = source.indexOf('\n', from)
  if (first < 0 || first >= to) return false
  const second = source.indexOf('\n', first + 1)
  return second >= 0 && second < to
}
