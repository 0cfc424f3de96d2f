/**
 * YAML front matter, the block between a first line `---` and the next `---` (or `...`) line.
 * Notes use a small, regular subset of YAML — scalars, quoted strings, flow lists `[a, b]`, block
 * lists, nested maps by indentation and `|`/`>` block scalars — so this reads that subset rather
 * than pulling in a YAML library; anything it cannot read becomes a problem message, never a
 * failure, because a note with odd front matter is still a note.
 */

export type FrontMatterValue = string | number | boolean | null | FrontMatterValue[] | { [key: string]: FrontMatterValue }

export interface FrontMatter {
  data: Record<string, FrontMatterValue>
  /** 1-based line of the closing delimiter; 0 when the note has no front matter. */
  endLine: number
  problems: string[]
}

const NONE: FrontMatter = Object.freeze({ data: {}, endLine: 0, problems: [] }) as FrontMatter

/** Reads the front matter at the top of `lines` (the note split on '\n', '\r' already removed). */
export function parseFrontMatter(lines: readonly string[]): FrontMatter {
  if (lines.length === 0 || lines[0]!.trimEnd() !== '---') return NONE
  let end = 1
  while (end < lines.length && !/^(?:---|\.\.\.)\s*$/.test(lines[end]!)) end++
  if (end === lines.length) return NONE
  const problems: string[] = []
  const reader = new BlockReader(lines.slice(1, end), problems)
  const value = reader.block(0)
  const data = isMap(value) ? value : {}
  if (!isMap(value) && value !== null) problems.push('front matter is not a key: value map')
  return { data, endLine: end + 1, problems }
}

function isMap(value: FrontMatterValue | undefined): value is Record<string, FrontMatterValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Strings of a field that may be a list, a single string, or a comma- or space-separated string (`tags: a, b`). */
export function stringList(value: FrontMatterValue | undefined, splitSpaces: boolean): string[] {
  if (value === undefined || value === null) return []
  if (Array.isArray(value)) return value.flatMap((item) => (typeof item === 'string' || typeof item === 'number' ? [String(item).trim()] : [])).filter(Boolean)
  if (typeof value !== 'string' && typeof value !== 'number') return []
  return String(value).split(splitSpaces ? /[,\s]+/ : /,/).map((item) => item.trim()).filter(Boolean)
}

const KEY = /^([^\s#:'"[\]{},][^:]*?|"[^"]*"|'[^']*')\s*:(?:\s+(.*))?$/

/** Reads indentation-structured YAML lines. Each call consumes the lines of one block. */
class BlockReader {
  private at = 0

  constructor(
    private readonly lines: readonly string[],
    private readonly problems: string[],
  ) {}

  /** The value whose lines are indented at least `minIndent`: a map, a list, or null when there are none. */
  block(minIndent: number): FrontMatterValue {
    this.skipBlank()
    if (this.at >= this.lines.length) return null
    const indent = indentOf(this.lines[this.at]!)
    if (indent < minIndent) return null
    const first = this.lines[this.at]!.slice(indent)
    return first === '-' || first.startsWith('- ') ? this.list(indent) : this.map(indent)
  }

  private map(indent: number): Record<string, FrontMatterValue> {
    const map: Record<string, FrontMatterValue> = {}
    while (this.skipBlank() && indentOf(this.lines[this.at]!) === indent) {
      const line = this.lines[this.at]!
      const match = KEY.exec(line.slice(indent))
      this.at++
      if (!match) {
        this.problems.push(`front matter line ${this.at + 1} is not "key: value": ${line.trim()}`)
        continue
      }
      map[unquote(match[1]!)] = this.valueAfter(match[2], indent)
    }
    this.skipDeeper(indent)
    return map
  }

  private list(indent: number): FrontMatterValue[] {
    const list: FrontMatterValue[] = []
    while (this.skipBlank() && indentOf(this.lines[this.at]!) === indent) {
      const item = this.lines[this.at]!.slice(indent)
      if (item !== '-' && !item.startsWith('- ')) break
      this.at++
      const rest = item.slice(1).trim()
      const entry = KEY.exec(rest)
      if (entry && !rest.startsWith('"') && !rest.startsWith("'")) {
        // `- key: value` opens a map whose further keys are indented like `key`.
        const keyIndent = indent + item.indexOf(rest)
        const map: Record<string, FrontMatterValue> = { [unquote(entry[1]!)]: this.valueAfter(entry[2], keyIndent) }
        const more = this.block(keyIndent)
        if (isMap(more)) Object.assign(map, more)
        list.push(map)
      } else {
        list.push(rest === '' ? this.block(indent + 1) : scalar(rest))
      }
    }
    this.skipDeeper(indent)
    return list
  }

  /** The value of `key:` given what follows the colon on its line. */
  private valueAfter(inline: string | undefined, indent: number): FrontMatterValue {
    const text = inline === undefined ? '' : stripComment(inline).trim()
    if (text === '') {
      // A block list may sit at the key's own indentation (`tags:\n- a`), a map must be deeper.
      this.skipBlank()
      const next = this.lines[this.at]
      if (next !== undefined && indentOf(next) === indent && /^-(?:\s|$)/.test(next.slice(indent))) return this.list(indent)
      return this.block(indent + 1)
    }
    if (/^[|>][+-]?\d*$/.test(text)) return this.blockScalar(text[0] === '>', indent)
    return scalar(text)
  }

  private blockScalar(folded: boolean, indent: number): string {
    const collected: string[] = []
    let contentIndent = -1
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!
      if (line.trim() !== '') {
        const lineIndent = indentOf(line)
        if (lineIndent <= indent) break
        if (contentIndent < 0) contentIndent = lineIndent
      }
      collected.push(line.slice(Math.max(contentIndent, 0)))
      this.at++
    }
    while (collected.length > 0 && collected[collected.length - 1]!.trim() === '') collected.pop()
    return folded ? collected.join(' ').replace(/\s+/g, ' ').trim() : collected.join('\n')
  }

  /** Moves past blank and comment lines; whether a line is left. */
  private skipBlank(): boolean {
    while (this.at < this.lines.length) {
      const trimmed = this.lines[this.at]!.trim()
      if (trimmed !== '' && !trimmed.startsWith('#')) return true
      this.at++
    }
    return false
  }

  /** Lines indented deeper than a finished block belong to nothing this subset reads. */
  private skipDeeper(indent: number): void {
    while (this.skipBlank() && indentOf(this.lines[this.at]!) > indent) {
      this.problems.push(`front matter line ${this.at + 2} is indented unexpectedly: ${this.lines[this.at]!.trim()}`)
      this.at++
    }
  }
}

function indentOf(line: string): number {
  let i = 0
  while (i < line.length && line.charCodeAt(i) === 32) i++
  return i
}

/** A ` #` outside quotes starts a comment. */
function stripComment(text: string): string {
  let quote = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quote) {
      if (c === quote) quote = ''
    } else if (c === '"' || c === "'") {
      quote = c
    } else if (c === '#' && (i === 0 || text[i - 1] === ' ' || text[i - 1] === '\t')) {
      return text.slice(0, i)
    }
  }
  return text
}

function scalar(raw: string): FrontMatterValue {
  const text = stripComment(raw).trim()
  if (text.startsWith('[') && text.endsWith(']')) return splitFlow(text.slice(1, -1)).map(scalar)
  if (text.startsWith('"') || text.startsWith("'")) return unquote(text)
  if (text === '' || text === '~' || text === 'null' || text === 'Null' || text === 'NULL') return null
  if (/^(?:true|True|TRUE)$/.test(text)) return true
  if (/^(?:false|False|FALSE)$/.test(text)) return false
  if (/^[-+]?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(text)) return Number(text)
  return text
}

/** Items of a flow list, commas inside quotes kept. */
function splitFlow(text: string): string[] {
  const items: string[] = []
  let quote = ''
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quote) {
      if (c === quote) quote = ''
    } else if (c === '"' || c === "'") {
      quote = c
    } else if (c === ',') {
      items.push(text.slice(start, i))
      start = i + 1
    }
  }
  items.push(text.slice(start))
  return items.map((item) => item.trim()).filter((item) => item !== '')
}

function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    return text.slice(1, -1).replace(/\\(["\\/nt])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c))
  }
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1).replace(/''/g, "'")
  return text
}
