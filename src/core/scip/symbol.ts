/**
 * What a SCIP symbol string names, read from its descriptors (the SCIP spec's grammar:
 * `<scheme> <manager> <package> <version> <descriptors>`, spaces inside a field doubled; a
 * descriptor is a name followed by `/` namespace, `#` type, `.` term, `:` meta, `!` macro,
 * `(disambiguator).` method, or is `[name]` a type parameter, `(name)` a parameter; a name with
 * other characters than [\w+$-] is in backticks, a backtick doubled). Only what `def` needs: the
 * qualified name in our style (the names inside the file, dot-joined: `Circle.area`) and a kind.
 * A constructor's parameter the indexer's hover calls a property (TypeScript's `constructor(public
 * radius: number)`) is the class's field: scip-typescript gives it no other symbol.
 */
import type { SymbolKind } from '../parse/types.js'

type Suffix = 'namespace' | 'type' | 'term' | 'meta' | 'macro' | 'method' | 'type-parameter' | 'parameter'

interface Descriptor {
  name: string
  suffix: Suffix
}

export interface ScipName {
  /** The names below the file's namespaces, dot-joined (`Circle.area`, `width`). */
  qualifiedName: string
  /** The last of them. */
  name: string
  kind: SymbolKind
}

/** The name a global symbol defines (`hover`: the indexer's, if any), or undefined for a local, a parameter, or what does not parse. */
export function scipName(symbol: string, hover?: string): ScipName | undefined {
  if (symbol.startsWith('local ')) return undefined
  const parsed = parseDescriptors(descriptorText(symbol))
  if (!parsed || parsed.length === 0) return undefined
  // Meta descriptors (scip-typescript's `typeLiteral0:` in `Point#typeLiteral0:x.`) name no scope a reader writes.
  let descriptors = parsed.filter((d, i) => d.suffix !== 'meta' || i === parsed.length - 1)
  const last = descriptors[descriptors.length - 1]!
  const owner = descriptors[descriptors.length - 2]
  const parameterProperty = last.suffix === 'parameter' && owner?.suffix === 'method' && owner.name === '<constructor>' && hover?.startsWith('(property)') === true
  if (parameterProperty) descriptors = [...descriptors.slice(0, -2), { name: last.name, suffix: 'term' }]
  const kind = kindOf(descriptors[descriptors.length - 1]!, descriptors[descriptors.length - 2])
  if (kind === undefined) return undefined
  // Namespaces are the package's modules and the file's path: our qualified names start inside the file.
  const inside = descriptors.filter((d) => d.suffix !== 'namespace')
  if (inside.length === 0) return undefined
  return { qualifiedName: inside.map((d) => d.name).join('.'), name: last.name, kind }
}

function kindOf(last: Descriptor, owner: Descriptor | undefined): SymbolKind | undefined {
  switch (last.suffix) {
    case 'type':
      return 'class'
    case 'method':
      return owner?.suffix === 'type' ? 'method' : 'function'
    case 'term':
      return owner?.suffix === 'type' ? 'field' : 'variable'
    case 'macro':
      return 'macro'
    default:
      return undefined
  }
}

/** The descriptors field: after four space-separated fields, where a doubled space is a space. */
function descriptorText(symbol: string): string {
  let fields = 0
  for (let i = 0; i < symbol.length; i++) {
    if (symbol[i] !== ' ') continue
    if (symbol[i + 1] === ' ') {
      i++
      continue
    }
    if (++fields === 4) return symbol.slice(i + 1)
  }
  return ''
}

function parseDescriptors(text: string): Descriptor[] | undefined {
  const out: Descriptor[] = []
  let i = 0
  const readName = (): string | undefined => {
    if (text[i] === '`') {
      let name = ''
      for (i++; i < text.length; i++) {
        if (text[i] === '`') {
          if (text[i + 1] !== '`') {
            i++
            return name
          }
          i++
        }
        name += text[i]
      }
      return undefined
    }
    const start = i
    while (i < text.length && /[\w+$-]/.test(text[i]!)) i++
    return i > start ? text.slice(start, i) : undefined
  }
  while (i < text.length) {
    if (text[i] === '[' || text[i] === '(') {
      const close = text[i] === '[' ? ']' : ')'
      i++
      const name = readName()
      if (name === undefined || text[i] !== close) return undefined
      i++
      out.push({ name, suffix: close === ']' ? 'type-parameter' : 'parameter' })
      continue
    }
    const name = readName()
    if (name === undefined) return undefined
    const mark = text[i++]
    if (mark === '(') {
      // `(disambiguator).`: the disambiguator is a simple name or empty.
      while (i < text.length && text[i] !== ')') i++
      if (text[i + 1] !== '.') return undefined
      i += 2
      out.push({ name, suffix: 'method' })
      continue
    }
    const suffix = ({ '/': 'namespace', '#': 'type', '.': 'term', ':': 'meta', '!': 'macro' } as const)[mark as '/' | '#' | '.' | ':' | '!']
    if (suffix === undefined) return undefined
    out.push({ name, suffix })
  }
  return out
}
