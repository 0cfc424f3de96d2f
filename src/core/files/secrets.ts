/**
 * Credentials in file content. Every pattern is high-precision (a vendor prefix, a fixed shape, or
 * a credential-named assignment whose value looks random), because a false positive silently
 * changes indexed code.
 */

export type SecretKind =
  | 'private-key' | 'aws-access-key' | 'github-token' | 'anthropic-key' | 'openrouter-key' | 'openai-key'
  | 'slack-token' | 'google-api-key' | 'jwt' | 'credential'

/**
 * The shape of each kind; order matters where prefixes overlap (sk-ant- and sk-or- before sk-).
 * A `credential` match keeps the assignment's name and opening quote in `lead`, so that only the
 * value is replaced.
 */
const TOKEN_SOURCES: Record<SecretKind, string> = {
  'private-key': String.raw`-----BEGIN (?<pemLabel>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----[A-Za-z0-9+/=\s\\:,.-]{40,}?-----END \k<pemLabel>-----`,
  'aws-access-key': String.raw`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`,
  'github-token': String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`,
  'anthropic-key': String.raw`\bsk-ant-[A-Za-z0-9_-]{32,}`,
  'openrouter-key': String.raw`\bsk-or-[A-Za-z0-9_-]{32,}`,
  'openai-key': String.raw`\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{32,}|[A-Za-z0-9]{32,}\b)`,
  'slack-token': String.raw`\bxox[abposr]-[0-9A-Za-z]+-[0-9A-Za-z-]{8,}`,
  'google-api-key': String.raw`\bAIza[0-9A-Za-z_-]{35}\b`,
  jwt: String.raw`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`,
  credential:
    String.raw`(?<lead>(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key)\w*['"]?\s*(?::=|=>|=|:)\s*(?<quote>['"]?))` +
    String.raw`(?<value>[A-Za-z0-9+/=_.~!@#$%^*-]{16,200})\k<quote>(?![\w(.[])`,
}

const KINDS = Object.keys(TOKEN_SOURCES) as SecretKind[]
const CREDENTIAL_GROUP = 'credential'
/** One pass over the text finds every candidate; only the credential alternative has a named group. */
const SECRET_PATTERN = new RegExp(
  KINDS.map((kind) => (kind === 'credential' ? `(?<${CREDENTIAL_GROUP}>${TOKEN_SOURCES[kind]})` : `(?:${TOKEN_SOURCES[kind]})`)).join('|'),
  'gi',
)

/** Vendor shapes re-checked case-sensitively, since the combined pattern ignores case for credential names. */
const VENDOR_SHAPES = KINDS.filter((kind) => kind !== 'credential').map((kind) => ({
  kind,
  exact: new RegExp(`^(?:${TOKEN_SOURCES[kind]})$`),
}))

function vendorKind(value: string): SecretKind | undefined {
  return VENDOR_SHAPES.find((shape) => shape.exact.test(value))?.kind
}

interface Secret {
  kind: SecretKind
  /** Offsets of the replaced text: the whole match, or a credential assignment's value. */
  start: number
  end: number
}

/**
 * Calls `found` for each secret in order, until it returns true. A credential-named assignment
 * whose value is neither random nor a vendor token is no secret; scanning resumes at its value so
 * that a token inside it is still seen.
 */
function scan(text: string, found: (secret: Secret) => boolean): boolean {
  const pattern = new RegExp(SECRET_PATTERN)
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const groups = match.groups!
    if (groups[CREDENTIAL_GROUP] === undefined) {
      const kind = vendorKind(match[0])
      if (kind && found({ kind, start: match.index, end: match.index + match[0].length })) return true
      continue
    }
    const start = match.index + groups.lead!.length
    const value = groups.value!
    const kind = vendorKind(value) ?? (looksRandom(value) ? 'credential' : undefined)
    if (!kind) pattern.lastIndex = start
    else if (found({ kind, start, end: start + value.length })) return true
  }
  return false
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A secret value rather than a name, path, version or placeholder: long, and letters and digits
 * interleaved the way random strings are (words and identifiers switch between the two rarely).
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

/** Whether the text holds anything redactSecrets would replace. */
export function looksLikeSecret(text: string): boolean {
  return scan(text, () => true)
}

/** Replaces every credential with `[REDACTED:<kind>]`, leaving lines and the surrounding code intact. */
export function redactSecrets(text: string): { text: string; redactions: number } {
  const parts: string[] = []
  let copied = 0
  let redactions = 0
  scan(text, ({ kind, start, end }) => {
    parts.push(text.slice(copied, start), `[REDACTED:${kind}]`)
    copied = end
    redactions++
    return false
  })
  if (redactions === 0) return { text, redactions }
  parts.push(text.slice(copied))
  return { text: parts.join(''), redactions }
}

/** Whether the text holds a private key, and the total length of its secrets. */
export function secretLength(text: string): { privateKey: boolean; length: number } {
  let privateKey = false
  let length = 0
  scan(text, ({ kind, start, end }) => {
    if (kind === 'private-key') privateKey = true
    length += end - start
    return false
  })
  return { privateKey, length }
}
