/**
 * Strings a regular expression matches, for testing every vendored secret rule with a positive
 * sample without writing 200 fake tokens by hand (nor committing them: they are made at run time).
 * Handles the JavaScript syntax the translated gitleaks rules use: groups, alternation (the first
 * branch), classes, escapes, quantifiers and anchors. Characters come from a seeded generator, so
 * a sample is random-looking (it passes entropy floors) and the same on every run.
 */

export interface Sample {
  text: string
  /** Offsets of each capture group's text, in the order the groups open (rules keep the secret in one). */
  groups: Array<[number, number]>
}

type Node =
  | { type: 'seq'; items: Node[] }
  | { type: 'alt'; branches: Node[] }
  | { type: 'group'; capture: boolean; body: Node }
  | { type: 'chars'; set: string }
  | { type: 'literal'; text: string }
  | { type: 'repeat'; body: Node; min: number; max: number }
  | { type: 'empty' }

/** Printable ASCII, space first: what a negated class (a terminator, mostly) is given. */
const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('')
const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'
const DIGIT = '0123456789'

export function sampleOf(source: string, seed = 1, preferLength = 32): Sample {
  const parser = { source, i: 0 }
  const tree = parseAlt(parser)
  let state = seed >>> 0 || 1
  const random = (n: number): number => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) % n
  }
  let text = ''
  const groups: Array<[number, number]> = []
  const emit = (node: Node): void => {
    switch (node.type) {
      case 'seq':
        for (const item of node.items) emit(item)
        return
      case 'alt':
        return emit(node.branches[0]!)
      case 'group': {
        // Numbered when opened, as regex groups are: an inner group ends before its outer one.
        const index = node.capture ? groups.push([text.length, text.length]) - 1 : -1
        emit(node.body)
        if (index >= 0) groups[index]![1] = text.length
        return
      }
      case 'chars':
        text += node.set[random(node.set.length)]
        return
      case 'literal':
        text += node.text
        return
      case 'repeat': {
        const count = node.max === node.min || node.min === 0 || node.body.type !== 'chars' ? node.min : Math.min(node.max, Math.max(node.min, preferLength))
        for (let k = 0; k < count; k++) emit(node.body)
        return
      }
      case 'empty':
        return
    }
  }
  emit(tree)
  return { text, groups }
}

interface Parser {
  source: string
  i: number
}

function parseAlt(p: Parser): Node {
  const branches = [parseSeq(p)]
  while (p.source[p.i] === '|') {
    p.i++
    branches.push(parseSeq(p))
  }
  return branches.length === 1 ? branches[0]! : { type: 'alt', branches }
}

function parseSeq(p: Parser): Node {
  const items: Node[] = []
  while (p.i < p.source.length && p.source[p.i] !== '|' && p.source[p.i] !== ')') {
    let atom = parseAtom(p)
    atom = parseQuantifier(p, atom)
    items.push(atom)
  }
  return { type: 'seq', items }
}

function parseAtom(p: Parser): Node {
  const c = p.source[p.i]!
  if (c === '(') {
    p.i++
    let capture = true
    if (p.source[p.i] === '?') {
      capture = p.source[p.i + 1] === '<' && p.source[p.i + 2] !== '=' && p.source[p.i + 2] !== '!'
      if (capture) p.i = p.source.indexOf('>', p.i) + 1
      else if (p.source[p.i + 1] === ':') p.i += 2
      else throw new Error(`unsupported group in ${p.source}`)
    }
    const body = parseAlt(p)
    if (p.source[p.i] !== ')') throw new Error(`unbalanced group in ${p.source}`)
    p.i++
    return { type: 'group', capture, body }
  }
  if (c === '[') return parseClass(p)
  if (c === '^' || c === '$') {
    p.i++
    return { type: 'empty' }
  }
  if (c === '.') {
    // Any character: a dot, since unescaped dots in rules mostly stand for one (hooks.slack.com).
    p.i++
    return { type: 'literal', text: '.' }
  }
  if (c === '\\') {
    const escaped = escapeSet(p)
    return escaped === '' ? { type: 'empty' } : escaped.length === 1 ? { type: 'literal', text: escaped } : { type: 'chars', set: escaped }
  }
  p.i++
  return { type: 'literal', text: c }
}

/** The characters an escape stands for ('' for an assertion such as \b). */
function escapeSet(p: Parser): string {
  const next = p.source[p.i + 1]!
  p.i += 2
  switch (next) {
    case 'b':
    case 'B':
      return ''
    case 'w':
      return WORD
    case 'd':
      return DIGIT
    case 's':
      return ' '
    case 'S':
      return WORD
    case 'n':
      return '\n'
    case 'r':
      return '\r'
    case 't':
      return '\t'
    case 'x': {
      const code = Number.parseInt(p.source.slice(p.i, p.i + 2), 16)
      p.i += 2
      return String.fromCharCode(code)
    }
    default:
      return next
  }
}

function parseClass(p: Parser): Node {
  p.i++
  const negated = p.source[p.i] === '^'
  if (negated) p.i++
  let set = ''
  while (p.source[p.i] !== ']') {
    let from: string
    if (p.source[p.i] === '\\') from = escapeSet(p)
    else from = p.source[p.i++]!
    if (from.length === 1 && p.source[p.i] === '-' && p.source[p.i + 1] !== ']') {
      p.i++
      const to = p.source[p.i] === '\\' ? escapeSet(p) : p.source[p.i++]!
      for (let code = from.charCodeAt(0); code <= to.charCodeAt(0); code++) set += String.fromCharCode(code)
    } else {
      set += from
    }
  }
  p.i++
  if (negated) {
    const allowed = [...PRINTABLE].filter((char) => !set.includes(char))
    const alnum = allowed.filter((char) => /[A-Za-z0-9]/.test(char)).join('')
    return alnum ? { type: 'chars', set: alnum } : { type: 'literal', text: allowed[0]! }
  }
  // Prefer letters and digits: punctuation in a class is usually allowed, rarely typical.
  const alnum = [...new Set(set)].filter((char) => /[A-Za-z0-9]/.test(char)).join('')
  return { type: 'chars', set: alnum || [...new Set(set)].join('') }
}

function parseQuantifier(p: Parser, atom: Node): Node {
  const c = p.source[p.i]
  let min: number
  let max: number
  if (c === '*') [min, max] = [0, Infinity]
  else if (c === '+') [min, max] = [1, Infinity]
  else if (c === '?') [min, max] = [0, 1]
  else if (c === '{') {
    const found = /^\{(\d+)(,(\d*))?\}/.exec(p.source.slice(p.i))
    if (!found) return atom
    min = Number(found[1])
    max = found[2] === undefined ? min : found[3] === '' ? Infinity : Number(found[3])
    p.i += found[0].length - 1
  } else return atom
  p.i++
  if (p.source[p.i] === '?') p.i++
  return { type: 'repeat', body: atom, min, max }
}
