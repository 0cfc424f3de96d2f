/**
 * Text analysis shared by indexing and querying: identifier splitting, lowercasing, stopwords and
 * Porter2 stemming. `analyzeChunks` runs inside index workers and its output is stored with each
 * blob's artifact, so it depends on the content alone — the file path is folded in later by the
 * index (`Bm25Index.addFile`), which keeps blob records reusable across renames.
 */
import type { Chunk } from '../parse/types.js'
import { stem } from './stem.js'
import { grow } from './segment.js'
import { hashOf, sameChars, TermTable } from './terms.js'

/**
 * The chunks of one blob as the index sees them. Terms are listed once per blob (chunks of a
 * file share most of them) in one space-separated string (terms never contain spaces); each
 * chunk refers to them by position. That keeps worker messages, msgpack records and the heap
 * small, and lets the index resolve each distinct term of a file against its dictionary once.
 */
export interface AnalyzedChunks {
  terms: string
  docs: AnalyzedDoc[]
}

/**
 * One chunk: indexes into its blob's `terms` (ascending) with their field-weighted frequencies,
 * and its weighted length (the sum of `tfs`) that BM25 normalises by.
 */
export interface AnalyzedDoc {
  terms: number[]
  tfs: number[]
  length: number
}

/** Distinct terms with their weighted counts. */
export interface TermCounts {
  terms: string[]
  tfs: number[]
  length: number
}

/**
 * Field weights folded into term frequency (a simplified BM25F: one length, weighted counts).
 * A name match must beat many body mentions, and BM25's tf saturation (k1) keeps a body that
 * repeats a word from outscoring it.
 */
export const FIELD_WEIGHTS = { name: 5, signature: 3, docstring: 2, path: 2, body: 1 } as const

/** Prose glue and keywords present in nearly every chunk of their language: no ranking signal, long posting lists. */
const STOPWORDS = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'if', 'in', 'into', 'is', 'it', 'its',
  'of', 'on', 'or', 'that', 'the', 'then', 'this', 'to', 'was', 'were', 'will', 'with',
  'return', 'self', 'const', 'let', 'var', 'else', 'elif', 'void', 'static', 'int', 'unsigned', 'char',
  'null', 'nil', 'none', 'true', 'false', 'def', 'fn', 'func', 'function',
])

/** Tokens longer than this are data (hashes, base64), not words anyone searches for. */
const MAX_TOKEN = 64

/**
 * Term ids of one identifier-like token, appended to `out`. A compound identifier yields its
 * lowercased whole (not stemmed, so an exact identifier query matches it strongly) and its
 * stemmed parts; a simple word yields its stem. Numbers stay whole (`0x1f` is not split into 0,
 * x, 1, f). Parts follow `[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+`: parseHTTPResponse2 → parse,
 * HTTP, Response, 2. Runs once per distinct token (the memo below keeps the result), so parts
 * are looked up in place in `lower` and only a part never seen before allocates a string.
 */
function tokenTermIds(token: string, out: number[]): void {
  const lower = hasUpper(token) ? token.toLowerCase() : token
  const n = lower.length
  const first = token.charCodeAt(0)
  if (first >= 48 && first <= 57) {
    out.push(termIdAt(lower, 0, n))
    return
  }
  let parts = 0
  let i = 0
  while (i < n) {
    const c = token.charCodeAt(i)
    let j = i + 1
    if (c >= 48 && c <= 57) {
      while (j < n && isDigit(token.charCodeAt(j))) j++
    } else if (c >= 65 && c <= 90) {
      while (j < n && isUpper(token.charCodeAt(j))) j++
      if (j < n && isLower(token.charCodeAt(j))) {
        // The last capital of a run starts the next word: HTTPResponse → HTTP, Response.
        if (j - i > 1) {
          partBounds[2 * parts++] = i
          partBounds[2 * parts - 1] = j - 1
          i = j - 1
        }
        while (j < n && isLower(token.charCodeAt(j))) j++
      }
    } else if (c >= 97 && c <= 122) {
      while (j < n && isLower(token.charCodeAt(j))) j++
    } else {
      i = j
      continue
    }
    partBounds[2 * parts++] = i
    partBounds[2 * parts - 1] = j
    i = j
  }
  if (parts > 1) out.push(termIdAt(lower, 0, n))
  for (let p = 0; p < parts; p++) {
    const term = partTermId(lower, partBounds[2 * p]!, partBounds[2 * p + 1]!)
    if (term >= 0 && !out.includes(term)) out.push(term)
  }
}

/** Start and end of each part of the token being split (tokens are at most MAX_TOKEN long). */
const partBounds = new Int32Array(2 * 64)

function hasUpper(token: string): boolean {
  for (let i = 0; i < token.length; i++) if (isUpper(token.charCodeAt(i))) return true
  return false
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}
function isUpper(c: number): boolean {
  return c >= 65 && c <= 90
}
function isLower(c: number): boolean {
  return c >= 97 && c <= 122
}

/**
 * The term id of the word part `lower[start, end)`: its stem's (a number's own), or -1 for a
 * stopword or a one-letter word. The same parts recur in many identifiers (get_device,
 * device_add, …), so each distinct part is stemmed once per memo generation.
 */
function partTermId(lower: string, start: number, end: number): number {
  const known = partTable.size
  const part = partTable.idAt(lower, start, end, hashOf(lower, start, end))
  if (part < known) return partTerms[part]!
  if (part >= partTerms.length) partTerms = grow(partTerms, partTerms.length * 2)
  const word = partTable.terms[part]!
  const isNumber = word.charCodeAt(0) <= 57
  if (STOPWORDS.has(word) || (!isNumber && word.length < 2)) {
    partTerms[part] = -1
  } else {
    const term = isNumber ? word : stem(word)
    partTerms[part] = termIdAt(term, 0, term.length)
  }
  return partTerms[part]!
}

/**
 * Per-thread memo from token to term ids, looked up straight from the text (hash computed while
 * scanning, compared in place) so repeated identifiers — nearly all of them — cost no substring,
 * no splitting and no stemming. Term ids index `counts`, a dense tf accumulator for the chunk in
 * progress. Everything is dropped when it grows past `MEMO_LIMIT` tokens, between blobs only.
 * A token's term ids live in one shared pool (`poolStart`/`poolCount` per token) rather than a
 * typed array each: a million small arrays cost more heap than the text they summarise.
 */
const MEMO_LIMIT = 1 << 18
let tokenTable = new TermTable()
let poolStart = new Int32Array(1 << 12)
let poolCount = new Uint8Array(1 << 12)
let pool = new Int32Array(1 << 14)
let poolUsed = 0
let termTable = new TermTable()
let partTable = new TermTable()
let partTerms = new Int32Array(1 << 12)
let counts = new Uint32Array(1 << 16)
/**
 * Position + 1 of each term id in the blob being analysed (0: not in it yet): a typed array
 * indexed like `counts` rather than a Map, which was most of analyzeChunks' own time. Cleared
 * for the blob's terms once it is done.
 */
let blobPositions = new Int32Array(1 << 16)
/** One chunk's term positions, sorted natively (a comparator sort of a number[] cost as much again). */
let docPositions = new Int32Array(1 << 12)
const touched: number[] = []

/**
 * The memo's most recent tokens, by hash: a table small enough to stay in the CPU's cache, where a
 * blob's own identifiers (most of its tokens) are found without probing the memo's megabytes.
 * Entries are memo indexes, -1 when empty; a hash may collide, so the token is compared too.
 */
const RECENT_SLOTS = 1 << 12
const recentHash = new Int32Array(RECENT_SLOTS)
const recentIndex = new Int32Array(RECENT_SLOTS).fill(-1)

function resetMemo(): void {
  tokenTable = new TermTable()
  recentIndex.fill(-1)
  poolUsed = 0
  termTable = new TermTable()
  partTable = new TermTable()
}

function termIdAt(text: string, start: number, end: number): number {
  const id = termTable.idAt(text, start, end, hashOf(text, start, end))
  if (id >= counts.length) {
    counts = grow(counts, counts.length * 2)
    blobPositions = grow(blobPositions, counts.length)
  }
  return id
}

const tokenScratch: number[] = []

/** The memo index of the token `text[start, end)`, splitting and stemming it on first sight. */
function lookup(text: string, start: number, end: number, hash: number): number {
  const slot = hash & (RECENT_SLOTS - 1)
  const recent = recentIndex[slot]
  if (recent >= 0 && recentHash[slot] === hash) {
    const token = tokenTable.terms[recent]
    if (token.length === end - start && sameChars(text, start, end, token, 0)) return recent
  }
  const memoized = tokenTable.size
  const index = tokenTable.idAt(text, start, end, hash)
  recentHash[slot] = hash
  recentIndex[slot] = index
  if (index < memoized) return index
  const terms = tokenScratch
  terms.length = 0
  tokenTermIds(tokenTable.terms[index]!, terms)
  if (index >= poolStart.length) {
    poolStart = grow(poolStart, poolStart.length * 2)
    poolCount = grow(poolCount, poolCount.length * 2)
  }
  if (poolUsed + terms.length > pool.length) pool = grow(pool, pool.length * 2)
  poolStart[index] = poolUsed
  poolCount[index] = terms.length
  for (let k = 0; k < terms.length; k++) pool[poolUsed++] = terms[k]!
  return index
}

/** 1 for the characters of identifier-like tokens: [A-Za-z0-9_$]. */
const WORD = new Uint8Array(65536)
for (let c = 0; c < 128; c++) {
  WORD[c] = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 ? 1 : 0
}

/** Adds `weight` to the count of every term of every identifier-like token of `text` (`once`: only to terms not yet counted). */
function addText(text: string, weight: number, once = false): void {
  const n = text.length
  let i = 0
  while (i < n) {
    if (WORD[text.charCodeAt(i)] === 0) { i++; continue }
    const start = i
    let hash = -2128831035
    let c: number
    while (i < n && WORD[(c = text.charCodeAt(i))] === 1) {
      hash = Math.imul(hash ^ c, 16777619)
      i++
    }
    // One-character tokens (i, x, 0, 1) are everywhere and mean nothing alone.
    if (i - start > MAX_TOKEN || i - start === 1) continue
    const token = lookup(text, start, i, hash ^ (hash >>> 15))
    const from = poolStart[token]
    const to = from + poolCount[token]
    for (let k = from; k < to; k++) {
      const id = pool[k]
      const count = counts[id]
      if (count === 0) touched.push(id)
      else if (once) continue
      counts[id] = count + weight
    }
  }
}

/** Collects the counts accumulated since the last call and clears them. */
function takeCounts(): TermCounts {
  const terms: string[] = new Array(touched.length)
  const tfs: number[] = new Array(touched.length)
  let length = 0
  for (let k = 0; k < touched.length; k++) {
    const id = touched[k]
    terms[k] = termTable.terms[id]
    tfs[k] = counts[id]
    length += counts[id]
    counts[id] = 0
  }
  touched.length = 0
  if (tokenTable.size > MEMO_LIMIT) resetMemo()
  return { terms, tfs, length }
}

export function analyzeChunks(chunks: Chunk[]): AnalyzedChunks {
  const blobTerms: string[] = []
  /** Term id of each of blobTerms. */
  const blobIds: number[] = []
  const docs = chunks.map((chunk): AnalyzedDoc => {
    // name and qualifiedName overlap (equal for top-level symbols): each distinct term counts once.
    addText(chunk.name, FIELD_WEIGHTS.name, true)
    if (chunk.qualifiedName !== chunk.name) addText(chunk.qualifiedName, FIELD_WEIGHTS.name, true)
    addText(chunk.signature, FIELD_WEIGHTS.signature)
    addText(chunk.docstring, FIELD_WEIGHTS.docstring)
    addText(chunk.body, FIELD_WEIGHTS.body)
    const n = touched.length
    if (n > docPositions.length) docPositions = new Int32Array(Math.max(n, docPositions.length * 2))
    const sorted = docPositions.subarray(0, n)
    let length = 0
    for (let k = 0; k < n; k++) {
      const id = touched[k]
      let position = blobPositions[id]
      if (position === 0) {
        position = blobTerms.length + 1
        blobPositions[id] = position
        blobTerms.push(termTable.terms[id])
        blobIds.push(id)
      }
      sorted[k] = position - 1
      length += counts[id]
    }
    // Ascending positions: a record stores them as gaps (see index/blob-task.ts), small numbers that msgpack writes in a byte.
    sorted.sort()
    const terms: number[] = new Array(n)
    const tfs: number[] = new Array(n)
    for (let k = 0; k < n; k++) {
      const position = sorted[k]
      terms[k] = position
      tfs[k] = counts[blobIds[position]]
    }
    for (let k = 0; k < n; k++) counts[touched[k]] = 0
    touched.length = 0
    return { terms, tfs, length }
  })
  for (let k = 0; k < blobIds.length; k++) blobPositions[blobIds[k]] = 0
  // Term ids must survive the whole blob, so the memo is only ever dropped between blobs.
  if (tokenTable.size > MEMO_LIMIT) resetMemo()
  return { terms: blobTerms.join(' '), docs }
}

/** The path's terms, weighted, to be merged into each of the file's chunks. */
export function analyzePath(path: string): TermCounts {
  addText(path, FIELD_WEIGHTS.path)
  return takeCounts()
}

/** Weighted term counts of free-text fields (a commit's subject, body, symbol names), analysed as code chunks are. */
export function analyzeFields(fields: ReadonlyArray<readonly [text: string, weight: number]>): TermCounts {
  for (const [text, weight] of fields) addText(text, weight)
  return takeCounts()
}

/** Distinct query terms, analysed exactly as indexed text is. */
export function analyzeQuery(text: string): string[] {
  addText(text, 1)
  return takeCounts().terms
}
