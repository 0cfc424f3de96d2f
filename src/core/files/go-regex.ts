/**
 * Go (RE2) regular expressions as JavaScript ones, for the vendored gitleaks rules. Node 20's
 * RegExp has no inline flags, so case-insensitive parts (`(?i)`, `(?i:…)`, and the rest of a group
 * after a mid-pattern `(?i)`) are spelled out: a letter becomes `[aA]`, a class gains the other
 * case of its letters; `(?-i:…)` is left as written. `(?s:…)` turns its dots into `[\s\S]`.
 * Also mapped: `(?P<name>` to `(?<name>`, `\z` to `$`, `\A` to `^`, POSIX classes inside brackets.
 * Anything else unknown throws, so a rule file update cannot silently change a rule's meaning.
 *
 * One change of meaning: an unbounded repetition of `.` (`.*`, `.+?`, `.{8,}`) reaches at most
 * DOT_REACH characters. RE2 runs in linear time, JavaScript backtracks: `\bcurl\b.*[ \t]-u` took
 * 31 s on a 100 KB line of `curl curl curl …` and 400 s on 400 KB, in a file any repository can
 * commit. Bounded, it is linear; a curl option more than DOT_REACH characters after `curl` on the
 * same line is missed.
 */
export const DOT_REACH = 256

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  digit: '0-9',
  lower: 'a-z',
  upper: 'A-Z',
  xdigit: '0-9a-fA-F',
  space: String.raw`\t\n\v\f\r `,
  word: String.raw`\w`,
}

interface Scope {
  ignoreCase: boolean
  dotAll: boolean
}

export function goRegexSource(go: string): string {
  let out = ''
  const stack: Scope[] = []
  let scope: Scope = { ignoreCase: false, dotAll: false }
  let i = 0
  while (i < go.length) {
    const c = go[i]!
    if (c === '\\') {
      const next = go[i + 1]
      if (next === undefined) throw new Error(`trailing backslash in ${go}`)
      if (next === 'z') out += '$'
      else if (next === 'A') out += '^'
      else if (/[pPQECG]/.test(next)) throw new Error(`unsupported escape \\${next} in ${go}`)
      else out += go.slice(i, i + escapeLength(go, i))
      i += escapeLength(go, i)
      continue
    }
    if (c === '[') {
      const { source, end } = charClass(go, i, scope.ignoreCase)
      out += source
      i = end
      continue
    }
    if (c === '(') {
      if (go[i + 1] !== '?') {
        stack.push(scope)
        out += '('
        i++
        continue
      }
      const flags = /^\(\?([a-zA-Z-]*)([:)])/.exec(go.slice(i))
      if (go.startsWith('(?P<', i)) {
        stack.push(scope)
        out += '(?<'
        i += 4
        continue
      }
      if (!flags) throw new Error(`unsupported group at ${i} in ${go}`)
      const updated = withFlags(scope, flags[1]!, go)
      i += flags[0].length
      if (flags[2] === ')') {
        // `(?i)`: for the rest of the enclosing group.
        scope = updated
        continue
      }
      stack.push(scope)
      scope = updated
      out += '(?:'
      continue
    }
    if (c === ')') {
      scope = stack.pop() ?? scope
      out += ')'
      i++
      continue
    }
    if (c === '.' && !scope.dotAll) {
      const reach = /^(?:\*|\+|\{(\d+),\})/.exec(go.slice(i + 1))
      out += reach ? `.{${reach[0] === '+' ? 1 : (reach[1] ?? 0)},${Math.max(DOT_REACH, Number(reach[1] ?? 0))}}` : '.'
      i += 1 + (reach ? reach[0].length : 0)
      continue
    }
    if (c === '.' && scope.dotAll) out += String.raw`[\s\S]`
    else if (scope.ignoreCase && isLetter(c)) out += `[${c.toLowerCase()}${c.toUpperCase()}]`
    else out += c
    i++
  }
  return out
}

function withFlags(scope: Scope, flags: string, go: string): Scope {
  const updated = { ...scope }
  let on = true
  for (const flag of flags) {
    if (flag === '-') on = false
    else if (flag === 'i') updated.ignoreCase = on
    else if (flag === 's') updated.dotAll = on
    else throw new Error(`unsupported flag ${flag} in ${go}`)
  }
  return updated
}

/** A bracket expression from `start` (its `[`): its JavaScript source and where it ends. */
function charClass(go: string, start: number, ignoreCase: boolean): { source: string; end: number } {
  let i = start + 1
  let head = '['
  if (go[i] === '^') {
    head += '^'
    i++
  }
  let body = ''
  const letters: Array<[string, string]> = []
  let first = true
  while (i < go.length && (go[i] !== ']' || first)) {
    first = false
    const posix = /^\[:(\w+):\]/.exec(go.slice(i))
    if (posix) {
      const expansion = POSIX_CLASSES[posix[1]!]
      if (expansion === undefined) throw new Error(`unsupported class [:${posix[1]}:] in ${go}`)
      body += expansion
      i += posix[0].length
      continue
    }
    const [item, length] = classItem(go, i)
    i += length
    if (go[i] === '-' && go[i + 1] !== ']' && go[i + 1] !== undefined) {
      const [last, lastLength] = classItem(go, i + 1)
      body += `${item}-${last}`
      i += 1 + lastLength
      if (isLetter(item) && isLetter(last)) letters.push([item, last])
      continue
    }
    if (item === ']' || item === '[') body += `\\${item}`
    else body += item
    if (isLetter(item)) letters.push([item, item])
  }
  if (go[i] !== ']') throw new Error(`unterminated class in ${go}`)
  // The other case goes first: appended after a trailing '-' it would form a range.
  const otherCase = ignoreCase ? letters.map(([from, to]) => (from === to ? swapCase(from) : `${swapCase(from)}-${swapCase(to)}`)).join('') : ''
  return { source: `${head}${otherCase}${body}]`, end: i + 1 }
}

function classItem(go: string, i: number): [string, number] {
  if (go[i] === '\\') return [go.slice(i, i + escapeLength(go, i)), escapeLength(go, i)]
  return [go[i]!, 1]
}

/** `\xHH` is four characters, every other escape two. */
function escapeLength(go: string, i: number): number {
  return go[i + 1] === 'x' ? 4 : 2
}

function isLetter(c: string): boolean {
  return c.length === 1 && c.toLowerCase() !== c.toUpperCase()
}

function swapCase(c: string): string {
  return c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()
}
