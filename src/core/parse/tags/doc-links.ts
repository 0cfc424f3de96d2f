export interface DocLink {
  start: number
  end: number
  row: number
  column: number
  /** The segments before a member's name (`Foo` of `{@link Foo#bar}`). */
  receiver: string | undefined
}

/**
 * `{@link Name}`, `{@linkcode a.b}`, `{@linkplain Foo#bar text}` (a URL or `module:` target names
 * no symbol), and a tag's type expression: `@throws {Error}`, `@param {Array<Foo>} x`.
 */
const TAG = /\{@link(?:code|plain)?\s+([A-Za-z_$][\w$]*(?:[.#][A-Za-z_$][\w$]*)*)(?![\w$]*:)|@[A-Za-z]+[ \t]*\{([^{}@\n]*)\}/g
const TARGET = /[A-Za-z_$][\w$]*(?:[.#][A-Za-z_$][\w$]*)*/g
const SEGMENT = /[A-Za-z_$][\w$]*/g
/** Type expressions' keywords, which name no symbol. */
const BUILTIN_TYPES = new Set(['any', 'bigint', 'boolean', 'false', 'function', 'never', 'null', 'number', 'object', 'string', 'symbol', 'true', 'undefined', 'unknown', 'void'])

/**
 * The names a documentation comment links to or gives as types, each segment of a dotted name
 * (`Foo#bar` names `Foo`, and `bar` as a member of `Foo`). Only `/**` comments: TypeScript reads
 * tags in no other.
 */
export function readDocLinks(
  comment: { start: number; end: number; row: number; column: number },
  source: string,
  found: (link: DocLink) => void,
): void {
  const from = comment.start
  if (!source.startsWith('/**', from)) return
  const text = source.slice(from, comment.end)
  if (!text.includes('{')) return
  let row = comment.row
  let lineStart = -comment.column
  let scanned = 0
  const segments = (target: string, targetAt: number): void => {
    for (; scanned < targetAt; scanned++) {
      if (text.charCodeAt(scanned) === 10) {
        row++
        lineStart = scanned + 1
      }
    }
    for (const segment of target.matchAll(SEGMENT)) {
      const at = targetAt + segment.index
      found({
        start: from + at,
        end: from + at + segment[0].length,
        row,
        column: at - lineStart,
        receiver: segment.index === 0 ? undefined : target.slice(0, segment.index - 1).replace(/#/g, '.'),
      })
    }
  }
  for (const match of text.matchAll(TAG)) {
    const [whole, link, type] = match
    if (link !== undefined) segments(link, match.index + whole.length - link.length)
    else {
      const typeAt = match.index + whole.length - 1 - type!.length
      for (const name of type!.matchAll(TARGET)) if (!BUILTIN_TYPES.has(name[0])) segments(name[0], typeAt + name.index)
    }
  }
}
