/**
 * What prose words mean in this repository's code, learned from the repository itself: every
 * documented chunk pairs the words of its docstring with the code terms of its name, signature
 * and body. From those pairs comes a translation table t(word | code term) — how often a chunk
 * whose code has the term is described with the word — so an undocumented function can be
 * matched against a prose query by its code alone (a translation language model, Berger and
 * Lafferty 1999): "permission" is likely for code with `has_perm`, "redirect" for code with
 * `HttpResponseRedirect`.
 */
import { analyzeQuery } from '../search/index.js'
import { grow } from '../search/segment.js'

/** Chunks as the model reads them (a Chunk has these fields). */
export interface DocumentedText {
  name: string
  signature: string
  docstring: string
  body: string
}

/** Plain data (msgpack record payload): per prose word, its code terms and t(word | term). */
export interface TermAssociations {
  /** Prose terms, sorted; word i's entries are `starts[i]..starts[i+1]` of `targets`/`strengths`. */
  words: string[]
  /** Documented chunks each word occurs in. */
  wordChunks: Uint32Array
  starts: Uint32Array
  /** Indexes into `codeTerms`. */
  targets: Uint32Array
  /** t(word | code term), in (0, 1). */
  strengths: Float32Array
  codeTerms: string[]
  /** Documented chunks the model was learned from. */
  pairs: number
}

export const LEARNING = {
  /** A code term must co-occur with the word at least this often: one pair is chance. */
  minPairCount: 2,
  /** Added to a code term's count: a term seen in few chunks cannot claim a word outright. */
  smoothing: 5,
  /** Entries kept per word, the strongest. */
  perWord: 200,
  /** Code terms read per chunk: the name's and signature's, then the body's in order. */
  codeTermsPerChunk: 64,
  /** Body text read per chunk, enough for `codeTermsPerChunk` distinct terms. */
  bodyChars: 3000,
} as const

/** Learns the table from the documented chunks among `chunks`; the others are skipped. */
export function learnAssociations(chunks: Iterable<DocumentedText>): TermAssociations {
  const vocabulary = new Map<string, number>()
  const id = (term: string): number => {
    let found = vocabulary.get(term)
    if (found === undefined) {
      found = vocabulary.size
      vocabulary.set(term, found)
    }
    return found
  }
  /** By word id: the documented chunks it describes (their count is the word's). */
  const chunksOfWord = new Map<number, number[]>()
  /** By code term id: the documented chunks whose code has it. */
  let codeCounts = new Int32Array(1 << 16)
  const codes = new ChunkCodes()
  for (const chunk of chunks) {
    if (chunk.docstring.trim() === '') continue
    const words = analyzeQuery(chunk.docstring).map(id)
    const code = codeView(chunk).terms.map(id)
    if (words.length === 0 || code.length === 0) continue
    const learned = codes.add(code)
    for (const w of words) {
      const list = chunksOfWord.get(w)
      if (list) list.push(learned)
      else chunksOfWord.set(w, [learned])
    }
    if (vocabulary.size > codeCounts.length) codeCounts = grow(codeCounts, Math.max(vocabulary.size, codeCounts.length * 2))
    for (const c of code) codeCounts[c]!++
  }

  const terms = [...vocabulary.keys()]
  const words = [...chunksOfWord.keys()].sort((a, b) => (terms[a]! < terms[b]! ? -1 : 1))
  const codeIds = new Map<number, number>()
  const codeTerms: string[] = []
  const starts = new Uint32Array(words.length + 1)
  const targets: number[] = []
  const strengths: number[] = []
  const pairCounts = new Int32Array(terms.length)
  const touched: number[] = []
  words.forEach((w, i) => {
    starts[i] = targets.length
    // How many of the word's chunks have each code term: a dense counter, reset after the word.
    for (const learned of chunksOfWord.get(w)!) {
      for (let k = codes.starts[learned]!; k < codes.starts[learned + 1]!; k++) {
        const c = codes.terms[k]!
        if (pairCounts[c]++ === 0) touched.push(c)
      }
    }
    const candidates: Array<{ code: number; strength: number }> = []
    for (const c of touched) {
      const count = pairCounts[c]!
      pairCounts[c] = 0
      if (count >= LEARNING.minPairCount) candidates.push({ code: c, strength: count / (codeCounts[c]! + LEARNING.smoothing) })
    }
    touched.length = 0
    const best = candidates.sort((a, b) => b.strength - a.strength || a.code - b.code).slice(0, LEARNING.perWord)
    for (const { code, strength } of best) {
      let target = codeIds.get(code)
      if (target === undefined) {
        target = codeTerms.push(terms[code]!) - 1
        codeIds.set(code, target)
      }
      targets.push(target)
      strengths.push(strength)
    }
  })
  starts[words.length] = targets.length
  return {
    words: words.map((w) => terms[w]!),
    wordChunks: Uint32Array.from(words, (w) => chunksOfWord.get(w)!.length),
    starts,
    targets: Uint32Array.from(targets),
    strengths: Float32Array.from(strengths),
    codeTerms,
    pairs: codes.count,
  }
}

/**
 * The code term ids of every documented chunk learned from, one after another. Counting each
 * word's pairs over its own chunks in a dense array replaced a hash table of every (word, code
 * term) pair: Linux's 3,000 files make millions of distinct pairs, most seen once, and counting
 * and growing that table was most of a first prose search's time.
 */
class ChunkCodes {
  terms = new Int32Array(1 << 16)
  /** Chunk i's terms are `terms[starts[i]..starts[i + 1]]`. */
  starts = new Int32Array(1 << 12)
  count = 0

  /** Appends a chunk's code term ids; its number. */
  add(code: readonly number[]): number {
    const end = this.starts[this.count]! + code.length
    if (end > this.terms.length) this.terms = grow(this.terms, Math.max(end, this.terms.length * 2))
    if (this.count + 2 > this.starts.length) this.starts = grow(this.starts, this.starts.length * 2)
    this.terms.set(code, this.starts[this.count]!)
    this.starts[this.count + 1] = end
    return this.count++
  }
}

/**
 * A chunk's code without its docstring: the terms of its name and signature (`head`, which say
 * most about what it does), then its body's, in order, up to a bound.
 */
export function codeView(chunk: DocumentedText): { terms: string[]; head: Set<string> } {
  // The first distinct terms come early: analysing a long body in full would only be discarded.
  const body = (chunk.docstring === '' ? chunk.body : chunk.body.replace(chunk.docstring, ' ')).slice(0, LEARNING.bodyChars)
  const head = analyzeQuery(`${chunk.name} ${chunk.signature}`).slice(0, LEARNING.codeTermsPerChunk)
  const headSet = new Set(head)
  const terms = head.slice()
  for (const term of analyzeQuery(body)) {
    if (terms.length >= LEARNING.codeTermsPerChunk) break
    if (!headSet.has(term)) terms.push(term)
  }
  return { terms, head: headSet }
}

/** Measured on Django with the docstrings of the benchmark cases removed (bench/search-bench.ts). */
export const SCORING = {
  /** Share of a word's probability that comes from the word itself being in the code. */
  direct: 0.5,
  /** A name or signature term weighs this many body terms. */
  headWeight: 5,
  /** Scales the background probability of a word: lower rewards any evidence more. */
  background: 0.1,
} as const

/** One query's words with their table rows, looked up once and reused for every candidate. */
export interface PreparedQuery {
  words: Array<{ term: string; background: number; table: Map<string, number> | undefined }>
}

export function prepareQuery(model: TermAssociations, queryTerms: readonly string[]): PreparedQuery {
  const floor = 1 / Math.max(1, model.pairs)
  return {
    words: queryTerms.map((term) => {
      const i = findWord(model.words, term)
      if (i < 0) return { term, background: floor, table: undefined }
      const table = new Map<string, number>()
      for (let k = model.starts[i]!; k < model.starts[i + 1]!; k++) table.set(model.codeTerms[model.targets[k]!]!, model.strengths[k]!)
      return { term, background: Math.max(floor, model.wordChunks[i]! / model.pairs), table }
    }),
  }
}

/**
 * How likely the code of `view` is to be described by the query: for each word, the chance it
 * is the code itself (the term is in the code) or a translation of the code's terms, each term
 * weighted by where it occurs; against the word's background chance, so rare words count more.
 */
export function scoreCode(query: PreparedQuery, view: { terms: readonly string[]; head: ReadonlySet<string> }): number {
  let total = 0
  for (const term of view.terms) total += view.head.has(term) ? SCORING.headWeight : 1
  if (total === 0) return 0
  const present = new Set(view.terms)
  let score = 0
  for (const word of query.words) {
    let translated = 0
    if (word.table) {
      for (const term of view.terms) {
        const t = word.table.get(term)
        if (t !== undefined) translated += (view.head.has(term) ? SCORING.headWeight : 1) * t
      }
      translated /= total
    }
    const direct = view.head.has(word.term) ? 1 : present.has(word.term) ? 1 / SCORING.headWeight : 0
    const p = SCORING.direct * direct + (1 - SCORING.direct) * translated
    score += Math.log1p(p / (SCORING.background * word.background))
  }
  return score
}

function findWord(words: readonly string[], term: string): number {
  let lo = 0
  let hi = words.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const word = words[mid]!
    if (word === term) return mid
    if (word < term) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}
