/**
 * The code source's retrieval paths: the definition and reference indexes for a symbol the
 * question names (exact file:line with the surrounding code), and hybrid code search for the
 * question's words.
 */
import type { QueryContext } from '../query/context.js'
import { findDefinitions } from '../query/def.js'
import { findReferences } from '../query/refs.js'
import { searchCode, searchFiles, type SearchExplain } from '../query/search/index.js'
import { makeSource, type Candidate } from './candidate.js'
import type { Classification } from './classify.js'
import type { FileLines } from './file-lines.js'
import { commitCandidate } from './git-context.js'
import { coverage } from './relevance.js'

/** Lines shown around a reference, and at most this many lines of a definition. */
const REFERENCE_CONTEXT = 2
const MAX_DEFINITION_LINES = 80
const MAX_DEFINITIONS = 5
const MAX_REFERENCES = 40
export const SEARCH_LIMIT = 20

export function definitionPath(qctx: QueryContext, symbol: string, files: FileLines): Candidate[] {
  const found = findDefinitions(qctx, symbol, { limit: MAX_DEFINITIONS })
  return found.definitions.map((def, i) => {
    const end = Math.min(def.endLine, def.line + MAX_DEFINITION_LINES - 1)
    const lines = files.slice(def.path, def.line, end)
    const start = lines?.start ?? def.line
    const stop = lines?.end ?? end
    return {
      source: makeSource('code', `${def.path}:${start}-${stop}`, 'symbol', 1 - i * 0.05, lines?.text ?? def.signature, {
        path: def.path,
        startLine: start,
        endLine: stop,
        definitionLine: def.line,
        name: def.name,
        qualifiedName: def.qualifiedName,
        kind: def.kind,
        signature: def.signature,
        role: 'definition',
      }),
      path: 'code:definition',
      relevance: 1,
      exact: true,
      range: { path: def.path, start, end: stop },
    }
  })
}

/** References grouped into windows of surrounding code, one candidate per window. */
export function referencesPath(qctx: QueryContext, symbol: string, files: FileLines): Candidate[] {
  const found = findReferences(qctx, symbol, { limit: MAX_REFERENCES })
  const windows: Array<{ path: string; start: number; end: number; refs: Array<{ line: number; enclosing: string }> }> = []
  for (const ref of found.references) {
    const last = windows.at(-1)
    const start = Math.max(1, ref.line - REFERENCE_CONTEXT)
    if (last && last.path === ref.path && start <= last.end + 1) {
      last.end = Math.max(last.end, ref.line + REFERENCE_CONTEXT)
      last.refs.push({ line: ref.line, enclosing: ref.enclosing })
    } else {
      windows.push({ path: ref.path, start, end: ref.line + REFERENCE_CONTEXT, refs: [{ line: ref.line, enclosing: ref.enclosing }] })
    }
  }
  return windows.map((window, i) => {
    const lines = files.slice(window.path, window.start, window.end)
    const start = lines?.start ?? window.start
    const end = lines?.end ?? window.end
    const content = lines?.text ?? found.references.filter((r) => r.path === window.path).map((r) => r.context).join('\n')
    return {
      source: makeSource('code', `${window.path}:${start}-${end}`, 'references', 0.9 - (i / windows.length) * 0.3, content, {
        path: window.path,
        startLine: start,
        endLine: end,
        symbol,
        references: window.refs,
        role: 'reference',
      }),
      path: 'code:references',
      relevance: 1,
      exact: true,
      range: { path: window.path, start, end },
    }
  })
}

export interface SearchPathResult {
  candidates: Candidate[]
  warnings: string[]
  explain?: SearchExplain
}

/** Hybrid search for the question's words; each chunk's relevance is its share of the question's terms. */
export async function searchPath(qctx: QueryContext, cls: Classification, terms: readonly string[], explain: boolean): Promise<SearchPathResult> {
  const query = [cls.searchText, ...cls.identifiers.filter((id) => !cls.searchText.includes(id))].join(' ')
  // The oracle ranks its evidence itself and its answer already costs an LLM call: no LLM rerank here.
  const response = await searchCode(qctx, query, { limit: SEARCH_LIMIT, explain, rerank: 'offline' })
  const top = response.results[0]?.score || 1
  const candidates = response.results.map((result): Candidate => {
    const chunk = qctx.artifact(result.path)?.chunks.find((c) => c.startLine === result.startLine && c.endLine === result.endLine)
    const content = chunk?.body ?? result.snippet
    const named = cls.identifiers.some((id) => result.qualifiedName === id || result.name === id)
    return {
      source: makeSource('code', `${result.path}:${result.startLine}-${result.endLine}`, result.methods.length > 1 ? 'hybrid' : 'bm25', result.score / top, content, {
        path: result.path,
        startLine: result.startLine,
        endLine: result.endLine,
        name: result.name,
        qualifiedName: result.qualifiedName,
        kind: result.kind,
        language: result.language,
        methods: result.methods,
        searchScore: result.score,
        role: 'search',
      }),
      path: 'code:search',
      relevance: named ? 1 : coverage(terms, `${result.path} ${chunk ? `${chunk.signature}\n${chunk.docstring}\n${chunk.body}` : content}`),
      exact: named,
      range: { path: result.path, start: result.startLine, end: result.endLine },
    }
  })
  return { candidates, warnings: response.warnings, explain: response.explain }
}

/** Files file-level search names for a conceptual question, and the past commits it cites at most. */
export const LOCALIZED_FILES = 5
const LOCALIZED_COMMITS = 4

/**
 * "Where would I change …", "how does … work": the files file-level search ranks (code fused with
 * HEAD's history), each as its best chunk, and — when git is a source — the past commits behind
 * them, with their messages, as citable evidence (a shallow clone's `boundary` commits marked as such).
 */
export async function localizationPath(
  qctx: QueryContext,
  cls: Classification,
  terms: readonly string[],
  withCommits: boolean,
  boundary: ReadonlySet<string>,
): Promise<SearchPathResult> {
  const query = [cls.searchText, ...cls.identifiers.filter((id) => !cls.searchText.includes(id))].join(' ')
  const response = await searchFiles(qctx, query, { limit: LOCALIZED_FILES })
  const top = response.files[0]?.score || 1
  const history = response.files.some((file) => file.commits.length > 0) ? await qctx.commits() : undefined
  const byHash = new Map((history?.commits ?? []).map((commit) => [commit.hash, commit]))
  const message = (hash: string): string => {
    const commit = byHash.get(hash)
    return commit ? `${commit.subject}\n${commit.body}` : ''
  }
  const candidates: Candidate[] = []
  const cited = new Set<string>()
  for (const file of response.files) {
    const chunk = file.chunks[0]
    if (chunk) {
      const body = qctx.artifact(file.path)?.chunks.find((c) => c.startLine === chunk.startLine && c.endLine === chunk.endLine)
      const content = body?.body ?? chunk.snippet
      // A file past commits like the question changed is relevant through them, whatever its code says.
      const relevance = Math.max(coverage(terms, `${file.path} ${body ? `${body.signature}\n${body.docstring}\n${body.body}` : content}`), ...file.commits.map((commit) => coverage(terms, message(commit.hash))))
      candidates.push({
        source: makeSource('code', `${file.path}:${chunk.startLine}-${chunk.endLine}`, 'hybrid', file.score / top, content, {
          path: file.path,
          startLine: chunk.startLine,
          endLine: chunk.endLine,
          name: chunk.name,
          qualifiedName: chunk.qualifiedName,
          kind: chunk.kind,
          language: file.language,
          methods: file.methods,
          commits: file.commits.map((commit) => commit.hash),
          role: 'localization',
        }),
        path: 'code:files',
        relevance,
        exact: false,
        range: { path: file.path, start: chunk.startLine, end: chunk.endLine },
      })
    }
    for (const commit of withCommits ? file.commits : []) cited.add(commit.hash)
  }
  const commits = [...cited].slice(0, LOCALIZED_COMMITS).flatMap((hash) => byHash.get(hash) ?? [])
  commits.forEach((commit, i) => {
    const files = commit.files.map((file) => file.path)
    candidates.push(commitCandidate({ hash: commit.hash, author: commit.author, date: new Date(commit.time * 1000).toISOString().slice(0, 10), subject: commit.subject, body: commit.body, files, boundary: boundary.has(commit.hash) }, 'similar', 0.9 - i / (commits.length + 1), terms))
  })
  return { candidates, warnings: response.warnings }
}
