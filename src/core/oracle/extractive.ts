/**
 * The answer without a language model: the evidence itself, grouped by what it is (definitions,
 * uses, related code, tests, notes, threads, conversations, commits), best first, each under its
 * copyable citation — preceded by one plain sentence saying what was found, and nothing more.
 * Everything taken from the sources is quoted so that it cannot pass for the answer's own text:
 * evidence in fences longer than any inside it, citations as code spans, other fields on one line.
 */
import { codeSpan, fencedBlock, visibleLine } from '../display/index.js'
import type { BlameLine } from '../git/index.js'
import type { OracleSource, QueryType } from './types.js'

const SNIPPET_LINES = 12
const SNIPPET_CHARS = 160

interface Group {
  title: string
  match: (source: OracleSource) => boolean
}

const GROUPS: Group[] = [
  { title: 'Definitions', match: (s) => s.sourceType === 'code' && s.metadata.role === 'definition' },
  { title: 'Uses', match: (s) => s.sourceType === 'code' && s.metadata.role === 'reference' },
  { title: 'Files it is about', match: (s) => s.sourceType === 'code' && s.metadata.role === 'localization' },
  { title: 'Code', match: (s) => s.sourceType === 'code' && s.metadata.role === 'search' },
  { title: 'Tests exercising it', match: (s) => s.sourceType === 'code' && s.metadata.role === 'test' },
  { title: 'Commits', match: (s) => s.sourceType === 'git' },
  { title: 'Notes', match: (s) => s.sourceType === 'vault' },
  { title: 'Threads', match: (s) => s.sourceType === 'threads' },
  { title: 'Agent conversations', match: (s) => s.sourceType === 'history' },
]

const NOUNS: Record<string, [string, string]> = {
  code: ['code location', 'code locations'],
  git: ['commit', 'commits'],
  vault: ['note section', 'note sections'],
  threads: ['thread entry', 'thread entries'],
  history: ['agent conversation', 'agent conversations'],
}

export function noEvidenceAnswer(question: string, consulted: readonly string[], missing?: string): string {
  return `${missing ? `${missing} ` : ''}No relevant evidence found for ${JSON.stringify(question)} in ${consulted.join(', ') || 'any source'}. Nothing is cited, because nothing in these sources matches the question well enough to answer it.`
}

type Match = (source: OracleSource) => boolean
const isCommit: Match = (s) => s.sourceType === 'git'

/**
 * The evidence that answers each kind of question outright, best tier first: the exact definition,
 * the resolved uses, the commits that added or removed the symbol or changed its definition's lines
 * (else those whose messages match), the files a question in words is about with the past commits
 * behind them. When the context holds some, the answer cites the first tier it has alone — an
 * answer that cites everything retrieval gathered (related code, tests, notes) points at a dozen
 * places for one definition (issue 18 measured 38% of its citations at the gold or next to it). The
 * rest stays in the response's sources and is counted in one line.
 */
const ANSWERING: Partial<Record<QueryType, Match[]>> = {
  definition: [(s) => s.sourceType === 'code' && s.metadata.role === 'definition'],
  references: [(s) => s.sourceType === 'code' && s.metadata.role === 'reference'],
  history: [(s) => isCommit(s) && (s.metadata.found === 'pickaxe' || s.metadata.found === 'lines'), isCommit],
  conceptual: [(s) => s.metadata.role === 'localization' || (isCommit(s) && s.metadata.found === 'similar')],
}

/**
 * A file file-level search ranked is cited when its score is within this share of the best one's:
 * the files that stand out, not a fixed count. Below it sit the changelog, docs and tests that
 * share the question's words (issue 18's tuning half: the runners-up scored 0.76–0.84 of the best
 * and were all off the gold).
 */
const STANDOUT = 0.9
const isFile: Match = (s) => s.sourceType === 'code' && s.metadata.role === 'localization'

function answeringEvidence(queryType: QueryType, sources: readonly OracleSource[]): readonly OracleSource[] {
  for (const tier of ANSWERING[queryType] ?? []) {
    const found = sources.filter(tier)
    if (found.length === 0) continue
    const best = Math.max(...found.filter(isFile).map((s) => s.score))
    return found.filter((s) => !isFile(s) || s.score >= STANDOUT * best)
  }
  return sources
}

/** `missing`: the question names what the code does not have (missing-symbols.ts); it is said first. */
export function extractiveAnswer(queryType: QueryType, symbol: string | null, sources: readonly OracleSource[], missing?: string): string {
  const cited = missing ? sources : answeringEvidence(queryType, sources)
  const parts = [summaryLine(queryType, symbol, sources, cited[0]!, missing)]
  for (const group of GROUPS) {
    const members = cited.filter(group.match)
    if (members.length === 0) continue
    parts.push(`## ${group.title}\n\n${members.map(renderSource).join('\n\n')}`)
  }
  const left = sources.length - cited.length
  if (left > 0) parts.push(`${left} more pieces of evidence were gathered (${counted(sources.filter((s) => !cited.includes(s)))}); they are in the response's sources, not cited here.`)
  return parts.join('\n\n')
}

/** `first`: the best of the evidence the answer cites. */
function summaryLine(queryType: QueryType, symbol: string | null, sources: readonly OracleSource[], first: OracleSource, missing: string | undefined): string {
  const found = counted(sources)
  const defs = sources.filter((s) => s.metadata.role === 'definition')
  const uses = sources.filter((s) => s.metadata.role === 'reference')
  let lead: string
  if (missing) lead = missing
  else if (queryType === 'definition' && symbol && defs.length > 0) lead = `${codeSpan(symbol)} is defined at ${codeSpan(citation(defs[0]!))}${defs.length > 1 ? ` (and ${defs.length - 1} more candidate${defs.length > 2 ? 's' : ''})` : ''}.`
  else if (queryType === 'references' && symbol && uses.length > 0) lead = `${codeSpan(symbol)} is used in ${new Set(uses.map((s) => s.metadata.path)).size} file(s); the uses are listed below.`
  else if (queryType === 'history' && sources.some((s) => s.sourceType === 'git')) {
    const commit = sources.find((s) => s.sourceType === 'git')!
    lead = `The most relevant commit is ${shortHash(commit.sourcePath)} (${visibleLine(String(commit.metadata.subject))}).`
  } else lead = `The strongest match is ${codeSpan(citation(first))}.`
  return `${lead} Found ${found}, best first. This is the retrieved evidence itself (no language model is configured): read it to confirm the answer.`
}

/** "3 code locations, 1 commit". */
function counted(sources: readonly OracleSource[]): string {
  const counts = new Map<string, number>()
  for (const source of sources) counts.set(source.sourceType, (counts.get(source.sourceType) ?? 0) + 1)
  return [...counts].map(([type, n]) => `${n} ${NOUNS[type]![n === 1 ? 0 : 1]}`).join(', ')
}

function renderSource(source: OracleSource): string {
  const head = `- ${codeSpan(citation(source))}${visibleLine(describe(source))}`
  const body = source.sourceType === 'git' ? commitSummary(source) : snippet(source)
  const blame = Array.isArray(source.metadata.blame) ? blameLine(source.metadata.blame as BlameLine[]) : ''
  return [head, body, blame].filter(Boolean).join('\n')
}

export function citation(source: OracleSource): string {
  return source.sourceType === 'git' ? shortHash(source.sourcePath) : source.sourcePath
}

function describe(source: OracleSource): string {
  const meta = source.metadata
  if (source.sourceType === 'code') {
    const what = typeof meta.qualifiedName === 'string' && meta.qualifiedName !== '' ? ` — ${meta.qualifiedName}${meta.kind ? ` (${String(meta.kind)})` : ''}` : ''
    const exercises = meta.role === 'test' ? ` — exercises ${String(meta.exercises)}` : ''
    return what + exercises
  }
  if (source.sourceType === 'vault') return ` — ${String(meta.title)}${meta.heading && meta.heading !== meta.title ? ` › ${String(meta.heading)}` : ''}`
  if (source.sourceType === 'threads' && meta.summary === true) return ` — summary of the thread (${String(meta.generatedBy)})`
  if (source.sourceType === 'threads') return ` — ${String(meta.type)} by ${String(meta.author)}, ${String(meta.timestamp).slice(0, 10)}`
  if (source.sourceType === 'history') return ` — session "${String(meta.title)}", ${String(meta.timestamp).slice(0, 10)}`
  return ''
}

function snippet(source: OracleSource): string {
  const lines = source.content.split('\n')
  const shown = lines.slice(0, SNIPPET_LINES).map((line) => (line.length > SNIPPET_CHARS ? `${line.slice(0, SNIPPET_CHARS - 1)}…` : line))
  if (lines.length > SNIPPET_LINES) shown.push(`… (${lines.length - SNIPPET_LINES} more lines)`)
  const language = source.sourceType === 'code' && typeof source.metadata.language === 'string' ? source.metadata.language : ''
  return fencedBlock(shown.join('\n'), language, '  ')
}

function commitSummary(source: OracleSource): string {
  const meta = source.metadata
  const body = source.content.split('\n\n').slice(1).join('\n\n').split('\n').slice(0, SNIPPET_LINES)
  // A quote prefixes every line, so no line of the message can leave it.
  return `  ${visibleLine(`${String(meta.author)}, ${String(meta.date)}`)}\n${body.map((line) => `  > ${visibleLine(line)}`).join('\n')}`
}

function blameLine(blame: BlameLine[]): string {
  if (blame.length === 0) return ''
  const shown = blame.slice(0, 3).map((b) => (b.boundary ? `${shortHash(b.commit)} (shallow clone boundary: written at or before it, author unknown)` : `${shortHash(b.commit)} ${b.author} ${b.date} "${b.subject}"`))
  return `  last changed by: ${visibleLine(shown.join('; '))}`
}

export function shortHash(hash: string): string {
  return hash.slice(0, 12)
}
