/**
 * Credentials in text, found with the maintained gitleaks rules (see secret-rules.ts) and
 * replaced by `[REDACTED:<rule>]`. This is the one detector for everything that leaves a file:
 * indexed content, notes, agent transcripts, thread entries and what is sent to an LLM.
 */
import { KeywordIndex } from './keyword-index.js'
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
