/**
 * What a search query asks for: its analysed terms (as BM25 sees them) and the exact identifiers
 * it names. An identifier is a token shaped like code — `authenticate_user`, `UserService.login`,
 * `parseHTTPResponse`, `Foo::bar`, `run()`, anything in backticks — or the whole query when it is
 * a single word; prose words are left to BM25, since "user" or "login" name too many symbols.
 */
import { analyzeQuery } from '../../search/index.js'

export interface ParsedQuery {
  text: string
  terms: string[]
  /** Distinct, in query order, as written (`UserService.login`, `Foo::bar`). */
  identifiers: string[]
  /**
   * The identifiers that can only be code (`snake_case`, `lowerCamel`, qualified, called, or the
   * whole query): their definitions go first. A capitalised word (`QuerySet`, `HttpRequest`) or a
   * plain backticked word may just be mentioned in prose about something else, so it only helps.
   */
  strong: Set<string>
  /** The user is looking for tests: they are not demoted. */
  mentionsTests: boolean
}

const TOKEN = /`([^`]+)`|[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*(\(\))?/g
/** `UserService`, `HTTPServer`: a type name, or a brand in prose (`NumPy`). */
const PASCAL_CASE = /^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*[A-Z]|^[A-Z]{2,}[a-z]/
const TEST_WORDS = new Set(['test', 'tests', 'testing', 'spec', 'specs', 'unittest', 'pytest', 'fixture', 'fixtures', 'mock'])

export function parseQuery(text: string): ParsedQuery {
  const identifiers: string[] = []
  const strong = new Set<string>()
  const words = text.trim().split(/\s+/).filter(Boolean)
  const single = words.length === 1
  for (const match of text.matchAll(TOKEN)) {
    const quoted = match[1] !== undefined
    const token = (quoted ? match[1]!.trim() : match[0]).replace(/\(\)$/, '').replace(/#|->/g, '.')
    if (token === '' || !/^[A-Za-z_$]/.test(token)) continue
    const code = single || match[2] !== undefined || looksLikeCode(token)
    if (quoted || code || PASCAL_CASE.test(token)) {
      if (!identifiers.includes(token)) identifiers.push(token)
      if (code) strong.add(token)
    }
  }
  return {
    text,
    terms: analyzeQuery(text),
    identifiers,
    strong,
    mentionsTests: words.some((word) => TEST_WORDS.has(word.toLowerCase().replace(/[^a-z]/g, ''))),
  }
}

/** Inner underscore, a lower-to-upper case change, or a qualifier: prose never has these. */
function looksLikeCode(token: string): boolean {
  // `e.g`, `i.e` are prose abbreviations, not qualified names.
  if (/[.:]/.test(token)) return token.split(/\.|::/).every((part) => part.length >= 2)
  return /[A-Za-z0-9]_[A-Za-z0-9]/.test(token) || /^_[a-z]/.test(token) || /^[a-z]\w*[a-z][A-Z]/.test(token)
}
