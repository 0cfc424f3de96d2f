/**
 * Issue 18's oracle question sets: three real repositories (flask and click in Python, express in
 * JavaScript), each pinned at a commit, with 24 questions — 6 of each kind the oracle classifies —
 * whose gold answers are derived mechanically, never picked by hand. Committed as
 * bench/oracle/<name>.json; `npm run bench -- oracle --generate` rebuilds them (only when the list
 * changes: a new draw is a new benchmark).
 *
 * How each gold is derived, at the pin, over the repository's source files (.py / .js outside
 * tests, docs, examples and benchmarks):
 * - A *name* is a function, method or class universal-ctags reports exactly once (one
 *   path:line over all source files), at least 6 characters, not a dunder or ctags' anonymous
 *   function. Names are drawn in the order of sha1(repo + name), each name used by one question.
 * - definition — "Where is X defined?": gold = ctags' definition line.
 * - references — "What calls X?": gold = every `git grep -n -w X` line in a .py/.js file (tests
 *   included) other than the definition line, for names with 2–20 such lines.
 * - history — "When was X added?" (3) and "Why was X changed?" (3): gold commits = `git log -S X`
 *   (every commit that changed the number of occurrences of X; names with 1–15 of them) and
 *   `git log -L` of the definition's lines (ctags' line to its `end`); gold file = the definition's
 *   file.
 * - conceptual — a request in words: gen-localize's cases (subject + first body paragraph of a
 *   real commit, gold = the 1–3 source files it changed), keeping those whose gold files all still
 *   exist at the pin, drawn in sha1(case id) order.
 * Each question's half (tuning or held-out) is fixed by sha1(question id): even first byte tuning.
 */
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { git, WORK } from './corpus.js'

const BENCH = dirname(fileURLToPath(import.meta.url))
export const QUESTIONS_DIR = join(BENCH, 'oracle')
const CLONES = join(WORK, 'oracle')
const PER_KIND = 6

export interface OracleCorpus {
  name: string
  repo: string
  language: string
  pin: string
  /** gen-localize's committed cases for this repository at the same pin, if the localize bench has them. */
  localizeCases?: string
}

export const ORACLE_CORPORA: readonly OracleCorpus[] = [
  { name: 'flask', repo: 'pallets/flask', language: 'Python', pin: '2ac89889f4cc330eabd50f295dcef02828522c69' },
  { name: 'click', repo: 'pallets/click', language: 'Python', pin: '2c8cd3ac958a7eb316d67f2d316c27086c4c0369' },
  { name: 'express', repo: 'expressjs/express', language: 'JavaScript', pin: 'a3714473feb3d2908add734d340e7755fd85e0a3', localizeCases: 'express.json' },
]

export type Kind = 'definition' | 'references' | 'history' | 'conceptual'
export const KINDS: readonly Kind[] = ['definition', 'references', 'history', 'conceptual']
export type Half = 'tuning' | 'heldout'

export interface GoldLine {
  path: string
  line: number
}

export interface Question {
  id: string
  kind: Kind
  half: Half
  question: string
  /** The name asked about (definition, references, history). */
  symbol?: string
  /** Line gold: the definition line, or the reference lines. */
  lines?: GoldLine[]
  /** File gold: the files a conceptual case changed, or a history question's definition file. */
  files?: string[]
  /** Commit gold (history). */
  commits?: string[]
  /** Where a conceptual question came from. */
  origin?: { generator: 'gen-localize'; case: string; sha: string }
}

export interface QuestionSet {
  repo: string
  name: string
  language: string
  pin: string
  derivation: string[]
  questions: Question[]
}

const SOURCE = /\.(py|js)$/
const NOT_SOURCE = /(^|\/)(tests?|docs?|examples?|benchmarks?|artwork)\//
const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex')
export const halfOf = (id: string): Half => (parseInt(sha1(id).slice(0, 2), 16) % 2 === 0 ? 'tuning' : 'heldout')

/** The corpus clone at its pin (from VLT_BENCH_MIRRORS, default /work/.mirror, as the localize bench does). */
export function oracleClone(corpus: OracleCorpus): string {
  const dir = join(CLONES, corpus.name)
  if (!existsSync(join(dir, '.git'))) {
    const mirror = join(process.env.VLT_BENCH_MIRRORS ?? '/work/.mirror', corpus.repo.replace('/', '+'), 'repo')
    mkdirSync(CLONES, { recursive: true })
    execFileSync('git', ['clone', '-q', mirror, dir])
  }
  const head = git(dir, 'rev-parse', 'HEAD').trim()
  if (head !== corpus.pin) git(dir, 'checkout', '-q', '--detach', corpus.pin)
  return dir
}

interface Tag {
  name: string
  path: string
  line: number
  /** The definition's last line (ctags' `end` field; the first line when ctags has none). */
  end: number
  kind: string
}

function uniqueNames(dir: string): Tag[] {
  const files = git(dir, 'ls-files').split('\n').filter((path) => SOURCE.test(path) && !NOT_SOURCE.test(path))
  const out = execFileSync('ctags', ['--output-format=json', '--fields=+nKe', '-f', '-', ...files], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] })
  const at = new Map<string, Set<string>>()
  const first = new Map<string, Tag>()
  for (const text of out.split('\n').filter(Boolean)) {
    const tag = JSON.parse(text) as Omit<Tag, 'end'> & { _type: string; end?: number }
    if (tag._type !== 'tag') continue
    const where = `${tag.path}:${tag.line}`
    at.set(tag.name, (at.get(tag.name) ?? new Set()).add(where))
    if (['function', 'method', 'member', 'class'].includes(tag.kind) && !first.has(tag.name)) first.set(tag.name, { name: tag.name, path: tag.path, line: tag.line, end: tag.end ?? tag.line, kind: tag.kind })
  }
  return [...first.values()].filter((tag) => at.get(tag.name)!.size === 1 && tag.name.length >= 6 && !/^__.*__$/.test(tag.name) && !tag.name.startsWith('AnonymousFunction'))
}

function grepLines(dir: string, name: string, except: GoldLine): GoldLine[] {
  let out = ''
  try {
    out = git(dir, 'grep', '-n', '-w', '-e', name, '--', '*.py', '*.js')
  } catch {
    return []
  }
  return out
    .split('\n')
    .filter(Boolean)
    .map((row) => {
      const [path, line] = row.split(':') as [string, string]
      return { path, line: Number(line) }
    })
    .filter((hit) => !(hit.path === except.path && hit.line === except.line))
}

function pickaxe(dir: string, name: string): string[] {
  return git(dir, 'log', '-S', name, '--format=%H').split('\n').filter(Boolean)
}

/** The commits that changed the definition's lines (`git log -L`, following them back through moves). */
function lineLog(dir: string, tag: Tag): string[] {
  return git(dir, 'log', '-s', '--format=%H', '-L', `${tag.line},${tag.end}:${tag.path}`).split('\n').filter(Boolean)
}

interface LocalizeCase {
  id: string
  sha: string
  query: string
  gold: string[]
}

function localizeCases(corpus: OracleCorpus, dir: string): LocalizeCase[] {
  const committed = corpus.localizeCases ? join(BENCH, 'localize', 'cases', corpus.localizeCases) : null
  if (committed && existsSync(committed)) {
    const cases = JSON.parse(readFileSync(committed, 'utf8')) as { head: string; cases: LocalizeCase[] }
    if (cases.head === corpus.pin) return cases.cases
  }
  const tool = process.env.GEN_LOCALIZE ?? [join(BENCH, '..', '..', 'shared', 'tools', 'gen-localize'), '/work/shared/tools/gen-localize'].find(existsSync)
  if (!tool) throw new Error('gen-localize not found: set GEN_LOCALIZE')
  return (JSON.parse(execFileSync(tool, [dir, '--name', corpus.name], { encoding: 'utf8', maxBuffer: 1 << 28 })) as { cases: LocalizeCase[] }).cases
}

function questionSet(corpus: OracleCorpus): QuestionSet {
  const dir = oracleClone(corpus)
  const names = uniqueNames(dir).sort((a, b) => sha1(corpus.name + a.name).localeCompare(sha1(corpus.name + b.name)))
  const used = new Set<string>()
  const questions: Question[] = []
  const add = (question: Omit<Question, 'half'>): void => {
    questions.push({ ...question, half: halfOf(question.id) })
  }
  const draw = (count: number, accept: (tag: Tag) => boolean, make: (tag: Tag, n: number) => void): void => {
    let n = 0
    for (const tag of names) {
      if (n === count) break
      if (used.has(tag.name) || !accept(tag)) continue
      used.add(tag.name)
      make(tag, n++)
    }
  }
  const id = (kind: string, n: number): string => `${corpus.name}:${kind}:${n}`
  draw(PER_KIND, () => true, (tag, n) => add({ id: id('definition', n), kind: 'definition', question: `Where is ${tag.name} defined?`, symbol: tag.name, lines: [{ path: tag.path, line: tag.line }] }))
  const refs = new Map<string, GoldLine[]>()
  draw(
    PER_KIND,
    (tag) => {
      const lines = grepLines(dir, tag.name, tag)
      refs.set(tag.name, lines)
      return lines.length >= 2 && lines.length <= 20
    },
    (tag, n) => add({ id: id('references', n), kind: 'references', question: `What calls ${tag.name}?`, symbol: tag.name, lines: refs.get(tag.name)! }),
  )
  const commits = new Map<string, string[]>()
  draw(
    PER_KIND,
    (tag) => {
      const found = pickaxe(dir, tag.name)
      commits.set(tag.name, found)
      return found.length >= 1 && found.length <= 15
    },
    (tag, n) =>
      add({
        id: id('history', n),
        kind: 'history',
        question: n % 2 === 0 ? `When was ${tag.name} added?` : `Why was ${tag.name} changed?`,
        symbol: tag.name,
        files: [tag.path],
        commits: [...new Set([...commits.get(tag.name)!, ...lineLog(dir, tag)])],
      }),
  )
  const present = new Set(git(dir, 'ls-files').split('\n'))
  const cases = localizeCases(corpus, dir)
    .filter((c) => c.gold.every((path) => present.has(path)))
    .sort((a, b) => sha1(a.id).localeCompare(sha1(b.id)))
    .slice(0, PER_KIND)
  cases.forEach((c, n) =>
    add({ id: id('conceptual', n), kind: 'conceptual', question: c.query, files: c.gold, origin: { generator: 'gen-localize', case: c.id, sha: c.sha } }),
  )
  return {
    repo: corpus.repo,
    name: corpus.name,
    language: corpus.language,
    pin: corpus.pin,
    derivation: HEADER,
    questions,
  }
}

const HEADER = [
  'Generated by `npm run bench -- oracle --generate` (bench/oracle-questions.ts); never edited by hand.',
  'Names: functions/methods/classes universal-ctags reports at exactly one path:line over the source files (.py/.js outside tests, docs, examples, benchmarks), >= 6 characters, no dunders; drawn in sha1(repo + name) order, one question per name.',
  'definition: "Where is X defined?" -> lines = the ctags definition line.',
  'references: "What calls X?" -> lines = every `git grep -n -w X` line in *.py/*.js (tests included) except the definition, for names with 2-20 of them.',
  'history: "When was X added?" / "Why was X changed?" -> commits = `git log -S X` at the pin (names with 1-15 of them) plus `git log -L start,end:path` of the ctags definition; files = the definition file.',
  'conceptual: gen-localize cases (commit subject + first body paragraph -> the 1-3 source files it changed) whose files all exist at the pin, drawn in sha1(case id) order.',
  'half: sha1(id) first byte even -> tuning, odd -> heldout (fixed before any result was seen).',
]

export function generateQuestionSets(): QuestionSet[] {
  mkdirSync(QUESTIONS_DIR, { recursive: true })
  return ORACLE_CORPORA.map((corpus) => {
    const set = questionSet(corpus)
    writeFileSync(join(QUESTIONS_DIR, `${corpus.name}.json`), `${JSON.stringify(set, null, 1)}\n`)
    return set
  })
}

export function loadQuestionSets(): QuestionSet[] {
  return ORACLE_CORPORA.map((corpus) => JSON.parse(readFileSync(join(QUESTIONS_DIR, `${corpus.name}.json`), 'utf8')) as QuestionSet)
}
