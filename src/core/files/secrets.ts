/**
 * Credentials in text, found with the maintained gitleaks rules (see secret-rules.ts) and
 * replaced by `[REDACTED:<rule>]`. This is the one detector for everything that leaves a file:
 * indexed content, notes, agent transcripts, thread entries and what is sent to an LLM.
 */
import { loadRuleSet, type Allowlist, type RuleSet, type SecretRule } from './secret-rules.js'

/** The gitleaks rule id (or one of ours, see secret-rules.ts) that found the secret. */
export type SecretKind = string

export interface Secret {
  kind: SecretKind
  /** Offsets of the secret itself (a rule's secret group), not of the assignment around it. */
  start: number
  end: number
}

/**
 * Rules whose matches are guesses from a name and randomness: a specific rule's kind wins on
 * overlap, and the value must also look random by our own measure (looksRandom). Without that,
 * gitleaks' entropy floor alone took 66 C constants of Linux for keys (`keylen -=
 * CTR_RFC3686_NONCE_SIZE`), and redacting them would have hidden real symbols from the index.
 */
const GENERIC = new Set(['generic-api-key'])

let compiled: { ruleSet: RuleSet; keywords: KeywordIndex } | undefined

function rules(): { ruleSet: RuleSet; keywords: KeywordIndex } {
  if (!compiled) {
    const ruleSet = loadRuleSet()
    compiled = { ruleSet, keywords: new KeywordIndex(ruleSet.rules.flatMap((rule) => rule.keywords)) }
  }
  return compiled
}

/** Every secret in the text, in order, overlapping findings merged. */
export function findSecrets(text: string): Secret[] {
  const { ruleSet, keywords } = rules()
  const present = keywords.present(text)
  const found: Secret[] = []
  for (const rule of ruleSet.rules) {
    if (rule.keywords.length > 0 && !rule.keywords.some((keyword) => present.has(keyword))) continue
    findByRule(text, rule, ruleSet.allowlist, found)
  }
  return merge(found)
}

/** What one rule finds in the text, keywords aside (for testing each rule on its own). */
export function findByRuleId(text: string, id: string): Secret[] {
  const { ruleSet } = rules()
  const rule = ruleSet.rules.find((candidate) => candidate.id === id)
  if (!rule) throw new Error(`no secret rule ${id}`)
  const found: Secret[] = []
  findByRule(text, rule, ruleSet.allowlist, found)
  return found
}

function findByRule(text: string, rule: SecretRule, global: Allowlist, found: Secret[]): void {
  const pattern = rule.pattern
  pattern.lastIndex = 0
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (match[0].length === 0) {
      pattern.lastIndex++
      continue
    }
    const span = secretSpan(match, rule.secretGroup)
    if (!span) continue
    const secret = text.slice(span[0], span[1])
    if (rule.entropy > 0 && shannonEntropy(secret) <= rule.entropy) continue
    if (GENERIC.has(rule.id) && !looksRandom(secret)) continue
    const end = match.index + match[0].length
    const where = { secret, match: () => text.slice(nameStart(text, match.index, rule.lookBack), end), line: () => lineAround(text, match.index, end) }
    if (allowed(global, where) || rule.allowlists.some((allowlist) => allowed(allowlist, where))) continue
    found.push({ kind: rule.id, start: span[0], end: span[1] })
  }
}

/** The secret group's offsets: the one named, else the first non-empty group, else the match without its edge newlines. */
function secretSpan(match: RegExpExecArray, group: number): [number, number] | undefined {
  const indices = match.indices!
  if (group >= 0 && indices.length > 1) {
    if (group > 0) return indices[group]
    for (let i = 1; i < indices.length; i++) {
      const span = indices[i]
      if (span && span[1] > span[0]) return span
    }
  }
  let [start, end] = indices[0]!
  const input = match.input
  while (start < end && input[start] === '\n') start++
  while (end > start && input[end - 1] === '\n') end--
  return end > start ? [start, end] : undefined
}

function allowed(allowlist: Allowlist, where: { secret: string; match: () => string; line: () => string }): boolean {
  if (allowlist.regexes.length > 0) {
    const target = allowlist.target === 'secret' ? where.secret : allowlist.target === 'match' ? where.match() : where.line()
    if (allowlist.regexes.some((regex) => regex.test(target))) return true
  }
  if (allowlist.stopwords.length === 0) return false
  const lower = where.secret.toLowerCase()
  return allowlist.stopwords.some((word) => lower.includes(word))
}

/** Where gitleaks' match would start: up to `lookBack` name characters (`[\w.-]`) before ours. */
function nameStart(text: string, start: number, lookBack: number): number {
  let from = start
  while (from > 0 && start - from < lookBack && /[\w.-]/.test(text[from - 1]!)) from--
  return from
}

function lineAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf('\n', start - 1) + 1
  const to = text.indexOf('\n', end)
  return text.slice(from, to === -1 ? text.length : to)
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A secret value rather than a name, constant, version or placeholder: letters and digits
 * interleaved the way random strings are (identifiers switch between the two rarely), and varied.
 */
function looksRandom(value: string): boolean {
  // UUIDs are far more often ids in examples and fixtures than keys.
  if (UUID.test(value)) return false
  let switches = 0
  let previous = 0 // 1 letter, 2 digit, 0 anything else
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    const kind = code >= 48 && code <= 57 ? 2 : (code | 32) >= 97 && (code | 32) <= 122 ? 1 : 0
    if (kind !== 0 && previous !== 0 && kind !== previous) switches++
    previous = kind
  }
  return switches >= 4 && new Set(value).size >= 10
}

/** Bits per character of the secret's character distribution (as gitleaks measures it). */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>()
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1)
  let entropy = 0
  for (const count of counts.values()) {
    const p = count / value.length
    entropy -= p * Math.log2(p)
  }
  return entropy
}

/** Sorted, overlaps joined; a specific rule's kind beats a generic one's. */
function merge(found: Secret[]): Secret[] {
  if (found.length < 2) return found
  found.sort((a, b) => a.start - b.start || b.end - a.end)
  const merged: Secret[] = [found[0]!]
  for (const secret of found.slice(1)) {
    const last = merged.at(-1)!
    if (secret.start >= last.end) {
      merged.push(secret)
      continue
    }
    last.end = Math.max(last.end, secret.end)
    if (GENERIC.has(last.kind) && !GENERIC.has(secret.kind)) last.kind = secret.kind
  }
  return merged
}

/**
 * Which rule keywords occur in a text, the way gitleaks prefilters its rules, in one pass over
 * it: the pass notes every lowercased pair of characters seen (a table entry each), and every
 * three and four (a bit per hash). A keyword counts as present when its pair or triple was seen,
 * or (longer ones) its opening and closing four: a hash collision only runs a rule for nothing,
 * and a keyword that occurs is never missed. (A search per keyword, or one regex of them all, ran
 * at 3 to 30 MB/s on Linux sources: V8 has no multi-string search.)
 */
class KeywordIndex {
  private readonly keywords: Array<{ keyword: string; pair: number; grams: number[] }>
  /** Scratch tables, reused: a thread scans one text at a time. */
  private readonly pairs = new Uint8Array(65_536)
  private readonly grams = new Uint32Array(GRAM_WORDS)

  constructor(keywords: readonly string[]) {
    this.keywords = [...new Set(keywords)].map((keyword) => {
      if (keyword.length < 2) throw new Error(`secret rule keyword too short: ${JSON.stringify(keyword)}`)
      const codes = Array.from(keyword, (c) => LOWERCASE[c.charCodeAt(0) & 0xff]!)
      const pack = (from: number, to: number): number => codes.slice(from, to).reduce((word, code) => (word << 8) | code, 0)
      const length = codes.length
      if (length === 2) return { keyword, pair: pack(0, 2), grams: [] }
      if (length === 3) return { keyword, pair: pack(0, 2), grams: [tripleHash(pack(0, 3))] }
      return { keyword, pair: pack(0, 2), grams: [quadHash(pack(0, 4)), quadHash(pack(length - 4, length))] }
    })
  }

  present(text: string): Set<string> {
    const { pairs, grams } = this
    pairs.fill(0)
    grams.fill(0)
    let word = 0
    for (let i = 0; i < text.length; i++) {
      word = (word << 8) | LOWERCASE[text.charCodeAt(i) & 0xff]!
      pairs[word & 0xffff] = 1
      const triple = tripleHash(word & 0xffffff)
      grams[triple >>> 5]! |= 1 << (triple & 31)
      const quad = quadHash(word)
      grams[quad >>> 5]! |= 1 << (quad & 31)
    }
    const present = new Set<string>()
    for (const keyword of this.keywords) {
      if (pairs[keyword.pair] === 1 && keyword.grams.every((bit) => (grams[bit >>> 5]! & (1 << (bit & 31))) !== 0)) present.add(keyword.keyword)
    }
    return present
  }
}

const GRAM_BITS = 20
const GRAM_WORDS = (1 << GRAM_BITS) / 32
const LOWERCASE = Uint8Array.from({ length: 256 }, (_, byte) => (byte >= 65 && byte <= 90 ? byte | 32 : byte))

function quadHash(word: number): number {
  return Math.imul(word, 0x9e3779b1) >>> (32 - GRAM_BITS)
}

function tripleHash(word: number): number {
  return Math.imul(word, 0x85ebca6b) >>> (32 - GRAM_BITS)
}

/** Whether the text holds anything redactSecrets would replace. */
export function looksLikeSecret(text: string): boolean {
  return findSecrets(text).length > 0
}

export interface RedactOptions {
  /**
   * Replace each secret with text of its exact length (the marker, padded with spaces), so that
   * every later line and column of the text stays where it was: what the index stores.
   */
  keepColumns?: boolean
}

/**
 * Replaces every secret with `[REDACTED:<kind>]`. Lines always stay where they were (a secret
 * spanning lines leaves its line breaks); with keepColumns, columns do too.
 */
export function redactSecrets(text: string, options: RedactOptions = {}): { text: string; redactions: number } {
  const secrets = findSecrets(text)
  return { text: replaceSecrets(text, secrets, options), redactions: secrets.length }
}

/** The text with the given secrets (found in it by findSecrets) replaced. */
export function replaceSecrets(text: string, secrets: readonly Secret[], options: RedactOptions = {}): string {
  if (secrets.length === 0) return text
  const parts: string[] = []
  let copied = 0
  for (const { kind, start, end } of secrets) {
    parts.push(text.slice(copied, start), options.keepColumns ? sameLength(text.slice(start, end), kind) : compact(text.slice(start, end), kind))
    copied = end
  }
  parts.push(text.slice(copied))
  return parts.join('')
}

function compact(secret: string, kind: SecretKind): string {
  return `[REDACTED:${kind}]${secret.replace(/[^\n]/g, '')}`
}

/** Each line of the secret becomes blanks of its length, the first one starting with the marker when it fits. */
function sameLength(secret: string, kind: SecretKind): string {
  return secret
    .split('\n')
    .map((line, i) => {
      const carriage = line.endsWith('\r') ? '\r' : ''
      const length = line.length - carriage.length
      const marker = i > 0 ? '' : [`[REDACTED:${kind}]`, '[REDACTED]'].find((candidate) => candidate.length <= length) ?? ''
      return marker + ' '.repeat(length - marker.length) + carriage
    })
    .join('\n')
}
