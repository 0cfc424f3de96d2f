/**
 * The credential rules: gitleaks' maintained rule set (`gitleaks/gitleaks.toml`, vendored unchanged
 * from gitleaks v8.30.1, MIT, see gitleaks/LICENSE), plus the few shapes it lacks (LOCAL_RULES),
 * compiled once per thread. Each rule is a regex whose capture group is the secret, the keywords
 * that must occur (lowercased) for it to be tried at all, a minimum Shannon entropy of the secret,
 * and allowlists of values that only look like secrets (placeholders, stop words).
 *
 * Rules that gitleaks applies only to some paths are left out: a blob's record must not depend on
 * its path (renames reuse it), and files are already judged by name in secret-names.ts.
 */
import { readFileSync } from 'node:fs'
import { parse } from 'smol-toml'
import { goRegexSource } from './go-regex.js'

export const GITLEAKS_VERSION = 'v8.30.1'
const RULES_FILE = new URL('./gitleaks/gitleaks.toml', import.meta.url)

type Target = 'secret' | 'match' | 'line'

export interface Allowlist {
  target: Target
  regexes: RegExp[]
  /** Lowercase; a secret containing one is allowed. */
  stopwords: string[]
}

export interface SecretRule {
  id: string
  /** Global: scanned with exec from lastIndex. */
  pattern: RegExp
  /** The capture group holding the secret; 0: the first non-empty one (the whole match without groups); -1: the whole match. */
  secretGroup: number
  /**
   * How far the match would reach back over a name's characters (`[\w.-]`) in gitleaks: the
   * lazy name prefix its rules start with is dropped from the pattern (it made them 10-30 times
   * slower) and put back only for allowlists that look at the whole match.
   */
  lookBack: number
  /** The secret's Shannon entropy must exceed this (0: no floor). */
  entropy: number
  /** Lowercase; the rule runs only on text containing one of them (all text when empty). */
  keywords: string[]
  allowlists: Allowlist[]
}

export interface RuleSet {
  rules: SecretRule[]
  /** Applies to every rule's findings. */
  allowlist: Allowlist
}

interface TomlAllowlist {
  condition?: string
  regexTarget?: string
  regexes?: string[]
  stopwords?: string[]
  paths?: string[]
  commits?: string[]
}

interface TomlRule {
  id: string
  regex?: string
  secretGroup?: number
  entropy?: number
  keywords?: string[]
  path?: string
  allowlists?: TomlAllowlist[]
}

/**
 * Shapes gitleaks has no rule for, in its format. AWS secret access keys have no prefix: 40
 * characters of base64 beside a name that says what they are. OpenAI and Anthropic keys by their
 * prefix alone: gitleaks wants their exact current layout (a marker inside, a fixed length), and
 * a key of an older or newer layout is still a key.
 */
const LOCAL_RULES: TomlRule[] = [
  {
    id: 'aws-secret-access-key',
    regex: String.raw`(?i)(?:aws)?_?(?:secret)_?(?:access)?_?(?:key)(?:_id)?["'\x60]?\s{0,30}(?::|=>|=|:=)\s{0,30}["'\x60]?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
    entropy: 3.5,
    keywords: ['secret_access_key', 'secretaccesskey', 'secret_key', 'secretkey', 'aws_secret'],
    allowlists: [{ regexes: ['EXAMPLEKEY$'] }],
  },
  {
    id: 'openai-prefixed-key',
    regex: String.raw`\b(sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{32,})`,
    entropy: 3.5,
    keywords: ['sk-proj-', 'sk-svcacct-', 'sk-admin-'],
  },
  {
    id: 'anthropic-prefixed-key',
    regex: String.raw`\b(sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{32,})`,
    entropy: 3.5,
    keywords: ['sk-ant-'],
  },
  {
    id: 'openrouter-api-key',
    regex: String.raw`\b(sk-or-v1-[a-f0-9]{64})\b`,
    keywords: ['sk-or-v1-'],
  },
]

/**
 * Rules whose capture groups only repeat a piece of the pattern: gitleaks would take one repeated
 * piece (five characters of a Teams webhook URL) for the secret; the whole URL is.
 */
const WHOLE_MATCH = new Set(['microsoft-teams-webhook'])

export function loadRuleSet(): RuleSet {
  const config = parse(readFileSync(RULES_FILE, 'utf8')) as { allowlist?: TomlAllowlist; rules?: TomlRule[] }
  const rules = [...(config.rules ?? []), ...LOCAL_RULES].filter((rule) => rule.regex !== undefined && rule.path === undefined).map(compileRule)
  return { rules, allowlist: compileAllowlist(config.allowlist ?? {}) ?? { target: 'secret', regexes: [], stopwords: [] } }
}

function compileRule(rule: TomlRule): SecretRule {
  const { regex, lookBack } = withoutNamePrefix(rule.regex!)
  return {
    id: rule.id,
    pattern: new RegExp(goRegexSource(regex), 'dg'),
    lookBack,
    secretGroup: WHOLE_MATCH.has(rule.id) ? -1 : (rule.secretGroup ?? 0),
    entropy: rule.entropy ?? 0,
    keywords: (rule.keywords ?? []).map((keyword) => keyword.toLowerCase()),
    allowlists: (rule.allowlists ?? []).map(compileAllowlist).filter((allowlist) => allowlist !== undefined),
  }
}

/** gitleaks' name prefix, at the start of a rule or of the case-insensitive group that opens it. */
const NAME_PREFIX = /^((?:\(\?i\))?(?:\(\?i:)?)\[\\w\.-\]\{0,(\d+)\}\?/

function withoutNamePrefix(regex: string): { regex: string; lookBack: number } {
  let lookBack = 0
  for (let found = NAME_PREFIX.exec(regex); found; found = NAME_PREFIX.exec(regex)) {
    lookBack += Number(found[2])
    regex = found[1] + regex.slice(found[0].length)
  }
  return { regex, lookBack }
}

/** Undefined for an allowlist that needs a path or commit to apply: a record knows neither. */
function compileAllowlist(allowlist: TomlAllowlist): Allowlist | undefined {
  const needsLocation = (allowlist.paths?.length ?? 0) > 0 || (allowlist.commits?.length ?? 0) > 0
  if (needsLocation && allowlist.condition?.toUpperCase() === 'AND') return undefined
  const regexes = (allowlist.regexes ?? []).map((source) => new RegExp(goRegexSource(source)))
  const stopwords = (allowlist.stopwords ?? []).map((word) => word.toLowerCase())
  if (regexes.length === 0 && stopwords.length === 0) return undefined
  const target = allowlist.regexTarget ?? 'secret'
  if (target !== 'secret' && target !== 'match' && target !== 'line') throw new Error(`unknown allowlist target ${target}`)
  return { target, regexes, stopwords }
}
