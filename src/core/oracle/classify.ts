/**
 * What kind of question this is, and what to look up: the symbol a definition, references or
 * history question names, and the words left once the question's framing ("where is … defined",
 * "why was … changed") is removed — those frame words are in every question and in no answer.
 */
import { parseQuery } from '../query/search/index.js'
import type { QueryType } from './types.js'

export interface Classification {
  queryType: QueryType
  /** The identifier the question is about; null when it names none. */
  symbol: string | null
  /** Every identifier the question names, in order. */
  identifiers: string[]
  /** The question without its framing: what retrieval searches for. */
  searchText: string
}

const SYMBOL = String.raw`\`?([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*)(?:\(\))?\`?`

const DEFINITION = [
  new RegExp(String.raw`\bwhere\s+(?:is|are|do\s+we|does\s+\w+)\s+(?:the\s+)?(?:\w+\s+)?${SYMBOL}\s+(?:defined|declared|implemented|created|located)\b`, 'i'),
  new RegExp(String.raw`\b(?:definition|declaration|implementation)\s+of\s+(?:the\s+)?${SYMBOL}`, 'i'),
  new RegExp(String.raw`\b(?:find|show|go\s+to)\s+(?:the\s+)?(?:definition|source)\s+(?:of\s+)?${SYMBOL}`, 'i'),
  new RegExp(String.raw`\bwhere\s+(?:is|are)\s+${SYMBOL}\s*\??$`, 'i'),
]

const REFERENCES = [
  new RegExp(String.raw`\b(?:where|how)\s+(?:is|are|do\s+we|does\s+\w+)\s+(?:the\s+)?(?:\w+\s+)?${SYMBOL}\s+(?:used|called|referenced|invoked|imported|instantiated)\b`, 'i'),
  new RegExp(String.raw`\b(?:what|who|which\s+\w+)\s+(?:calls|uses|references|imports|invokes)\s+(?:the\s+)?${SYMBOL}`, 'i'),
  new RegExp(String.raw`\b(?:callers|usages?|uses|references|call\s+sites)\s+(?:of|to)\s+(?:the\s+)?${SYMBOL}`, 'i'),
]

const HISTORY = [
  /\b(?:why|when|who|how)\b.*\b(?:changed?|changes|added|introduced|removed|deleted|modified|rewritten|rewrote|renamed|refactored|moved|replaced|reverted|fixed|broke|became|switched|dropped)\b/i,
  /\b(?:history|evolution)\s+of\b/i,
  /\b(?:which|what)\s+commits?\b/i,
  /^\s*who\s+(?:wrote|added|owns|maintains|introduced|changed)\b/i,
  /\bwhen\s+(?:was|were|did)\b/i,
]

/** Words of every question's framing: they would otherwise match comments all over the tree. */
const FRAME_WORDS = new Set([
  'where', 'what', 'which', 'who', 'whom', 'whose', 'why', 'when', 'how', 'does', 'do', 'did', 'done', 'is', 'are', 'was', 'were',
  'can', 'could', 'should', 'would', 'we', 'i', 'you', 'our', 'my', 'me', 'tell', 'show', 'find', 'explain', 'about', 'there',
  'the', 'a', 'an', 'of', 'in', 'it', 'this', 'that', 'get', 'gets', 'happen', 'happens', 'work', 'works', 'code', 'codebase', 'repo', 'repository',
])
const TYPE_WORDS: Record<QueryType, Set<string>> = {
  definition: new Set(['defined', 'define', 'defines', 'definition', 'declared', 'declaration', 'implemented', 'implementation', 'located', 'source']),
  references: new Set(['used', 'use', 'uses', 'usage', 'usages', 'called', 'calls', 'call', 'callers', 'caller', 'referenced', 'references', 'invoked', 'imported', 'sites']),
  history: new Set(['changed', 'change', 'changes', 'added', 'introduced', 'removed', 'deleted', 'modified', 'rewritten', 'rewrote', 'renamed', 'refactored',
    'moved', 'replaced', 'reverted', 'became', 'switched', 'dropped', 'history', 'evolution', 'commit', 'commits', 'wrote', 'written', 'owns', 'last']),
  conceptual: new Set(),
}

export function classifyQuestion(question: string): Classification {
  const identifiers = codeIdentifiers(question)
  let queryType: QueryType = 'conceptual'
  let symbol: string | null = null
  const framed = (patterns: RegExp[]): string | null => {
    for (const pattern of patterns) {
      const match = pattern.exec(question)
      if (match) return match[1]!.replace(/#/g, '.')
    }
    return null
  }
  const reference = framed(REFERENCES)
  const definition = reference === null ? framed(DEFINITION) : null
  if (reference !== null) [queryType, symbol] = ['references', reference]
  else if (definition !== null) [queryType, symbol] = ['definition', definition]
  else if (HISTORY.some((pattern) => pattern.test(question))) [queryType, symbol] = ['history', identifiers[0] ?? null]
  else symbol = identifiers[0] ?? null
  // "where is the lock acquired": a framed word that is plain prose names no symbol of its own.
  if (symbol !== null && FRAME_WORDS.has(symbol.toLowerCase())) symbol = identifiers[0] ?? null
  return { queryType, symbol, identifiers, searchText: searchTextOf(question, queryType) }
}

/** The word a history question asks about: "why was X changed", "when was X added", "history of X". */
const HISTORY_SUBJECT = [
  new RegExp(String.raw`\b(?:was|were|did|has|have|had)\s+(?:the\s+)?${SYMBOL}\s+(?:first\s+|last\s+|get\s+|been\s+)?(?:changed?|added|introduced|removed|deleted|modified|rewritten|renamed|refactored|moved|replaced|reverted|fixed|written)\b`, 'i'),
  new RegExp(String.raw`\b(?:history|evolution)\s+of\s+(?:the\s+)?${SYMBOL}`, 'i'),
]

/**
 * `cls` with the words the code defines under exactly that name added to its identifiers, the first
 * becoming the symbol when the question named none: its capitalised words, and the word a history
 * question asks about ("when was setupmethod added"). Either may be prose (a sentence's first word,
 * "Python"; "when was the cache changed"), so classifyQuestion leaves them to BM25; only the index
 * can tell that `Context` is a class. Once it has, that definition is evidence whatever else the
 * question says: a word that matches nothing ("how does Context 45 work") cannot hide it.
 */
export function withDefinedNames(cls: Classification, question: string, defines: (name: string) => boolean): Classification {
  const subject = cls.queryType === 'history' ? HISTORY_SUBJECT.map((pattern) => pattern.exec(question)?.[1]).filter((word): word is string => word !== undefined) : []
  const named = [...new Set([...subject, ...(question.match(/\b[A-Z][\w$]*/g) ?? [])])].filter(
    (word) => !cls.identifiers.includes(word) && !FRAME_WORDS.has(word.toLowerCase()) && defines(word),
  )
  if (named.length === 0) return cls
  return { ...cls, identifiers: [...cls.identifiers, ...named], symbol: cls.symbol ?? named[0]! }
}

/** Identifiers only code can be, plus backticked ones (prose capitals are left to BM25). */
function codeIdentifiers(question: string): string[] {
  const parsed = parseQuery(question)
  const quoted = new Set([...question.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.trim().replace(/\(\)$/, '')))
  return parsed.identifiers.filter((id) => parsed.strong.has(id) || quoted.has(id) || /[a-z][A-Z]|^[A-Z][a-z]+[A-Z]/.test(id))
}

function searchTextOf(question: string, queryType: QueryType): string {
  const own = TYPE_WORDS[queryType]
  const words = question.replace(/[?!]+/g, ' ').split(/\s+/).filter((word) => {
    const bare = word.toLowerCase().replace(/^[^\w`$]+|[^\w`$)]+$/g, '')
    return bare !== '' && !FRAME_WORDS.has(bare) && !own.has(bare)
  })
  return words.join(' ').trim() || question.trim()
}
