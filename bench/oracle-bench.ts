/**
 * Issue 18's answer measures on three real repositories (oracle-answers.ts, the default part), and
 * issue 4's targets: an offline oracle answer on a ~1k-file repository in ≤ 1 s p50 warm and
 * ≤ 2 s cold (the built CLI in a fresh process, index already built), and answers that cite the
 * code a question is about. The second is measured on real history: each small non-merge commit's
 * subject becomes a question asked at HEAD, and a hit is an answer citing a file that commit changed.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { askOracle, type OracleResponse } from '../src/core/oracle/index.js'
import { corpus, git, WORK } from './corpus.js'
import { answers } from './oracle-answers.js'
import { generateQuestionSets } from './oracle-questions.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = join(ROOT, 'bin', 'run.js')
const SELF = '/work/main'
const SLICE_FILES = 1000
/** Commits changing more files than this are sweeping changes no single answer could cover. */
const MAX_CHANGED = 20

const QUESTIONS_1K = [
  'Where is QuerySet defined?',
  'Where is get_object_or_404 defined?',
  'Definition of HttpResponseRedirect',
  'Where is the ModelAdmin class defined?',
  'Where is reverse_lazy defined?',
  'Who calls get_object_or_404?',
  'Where is slugify used?',
  'What calls render_to_string?',
  'Usages of ValidationError',
  'Where is csrf_exempt used?',
  'Why was QuerySet.bulk_create changed?',
  'When was the cache middleware added?',
  'History of ModelForm',
  'Who wrote the password hashers?',
  'How does the CSRF middleware validate the token?',
  'How are database migrations applied?',
  'How does template inheritance with extends and block work?',
  'How are signals connected to receivers?',
  'How is the session stored in a cookie?',
  'What is the meaning of life?',
]

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}
const ms = (started: bigint): number => Math.round(Number(process.hrtime.bigint() - started) / 1e6)

function cli(cwd: string, args: string[]): { wallMs: number; stdout: string } {
  const started = process.hrtime.bigint()
  const child = spawnSync('node', [CLI, ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, CI: '1' } })
  const wallMs = ms(started)
  if (child.status !== 0) throw new Error(`vlt ${args.join(' ')} failed (${child.status}): ${child.stderr}`)
  return { wallMs, stdout: child.stdout }
}

/** The Django corpus's .py files, then its other files, in `git ls-files` order, up to 1,000 — committed once. */
function slice1k(): string {
  const dir = join(WORK, 'oracle-1k')
  if (existsSync(join(dir, '.git'))) return dir
  const source = corpus('django')
  const tracked = git(source, 'ls-files').split('\n').filter(Boolean)
  const text = /\.(py|py-tpl|html|txt|js|css|md|rst)$/
  const picked = [...tracked.filter((path) => path.endsWith('.py')), ...tracked.filter((path) => !path.endsWith('.py') && text.test(path))].slice(0, SLICE_FILES)
  mkdirSync(dir, { recursive: true })
  for (const path of picked) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    cpSync(join(source, path), join(dir, path))
  }
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', `corpus: ${picked.length} files of Django (.py first, git ls-files order)`)
  return dir
}

function summary(response: OracleResponse) {
  return { queryType: response.queryType, sources: response.sources.length, model: response.model, top: response.sources[0]?.sourcePath ?? null }
}

async function latency() {
  const dir = slice1k()
  const files = git(dir, 'ls-files').split('\n').filter(Boolean).length
  rmSync(join(dir, '.vlt'), { recursive: true, force: true })
  const firstQuestion = QUESTIONS_1K[0]!
  const first = cli(dir, ['oracle', firstQuestion, '--json', '--no-log'])

  const cold = QUESTIONS_1K.map((question) => ({ question, ...cli(dir, ['oracle', question, '--json', '--no-log']) }))
  const coldMs = cold.map((run) => run.wallMs)
  // What any command pays before the oracle starts: Node and oclif loading.
  const cliStartMs = percentile(Array.from({ length: 5 }, () => cli(dir, ['--version']).wallMs), 50)

  // One untimed pass loads what a long-lived process keeps warm; the next passes are timed.
  for (const question of QUESTIONS_1K) await askOracle(dir, question, { noLog: true })
  const warm: Array<{ question: string; ms: number; answer: ReturnType<typeof summary> }> = []
  for (let pass = 0; pass < 3; pass++) {
    for (const question of QUESTIONS_1K) {
      const started = process.hrtime.bigint()
      const response = await askOracle(dir, question, { noLog: true })
      warm.push({ question, ms: ms(started), answer: summary(response) })
    }
  }
  const warmMs = warm.map((run) => run.ms)
  const byQuestion = QUESTIONS_1K.map((question) => {
    const runs = warm.filter((run) => run.question === question)
    return { question, ...runs[0]!.answer, warmMsMedian: percentile(runs.map((run) => run.ms), 50), coldMs: cold.find((run) => run.question === question)!.wallMs }
  })
  return {
    corpus: 'oracle-1k',
    files,
    questions: QUESTIONS_1K.length,
    firstRunBuildingIndexMs: first.wallMs,
    cliStartMsMedian: cliStartMs,
    coldCli: { p50Ms: percentile(coldMs, 50), p95Ms: percentile(coldMs, 95), maxMs: Math.max(...coldMs) },
    warmInProcess: { runs: warmMs.length, p50Ms: percentile(warmMs, 50), p95Ms: percentile(warmMs, 95), maxMs: Math.max(...warmMs) },
    byQuestion,
  }
}

interface CommitCase {
  hash: string
  subject: string
  changed: string[]
}

function smallCommits(dir: string): CommitCase[] {
  const log = git(dir, 'log', '--no-merges', '--format=%x00%H%x09%s', '--name-only')
  return log
    .split('\0')
    .filter(Boolean)
    .map((entry) => {
      const [header, ...paths] = entry.split('\n')
      const [hash, subject] = header!.split('\t') as [string, string]
      return { hash, subject, changed: paths.filter(Boolean) }
    })
    .filter((commit) => commit.changed.length > 0 && commit.changed.length <= MAX_CHANGED)
}

/**
 * Two phrasings of a commit subject: a "why" question (conceptual unless the subject names a
 * change) and a "which commit" one, which the classifier takes as history and sends to git too.
 * "How does … work" is not a third: its frame words are stripped, leaving the same search as "why".
 */
const PHRASINGS: Record<string, (subject: string) => string> = {
  why: (subject) => `Why ${lowerFirst(subject)}?`,
  whichCommit: (subject) => `Which commit did this: ${lowerFirst(subject)}?`,
}
const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1)
const pathOf = (sourcePath: string): string => sourcePath.replace(/:\d+(?:-\d+)?$/, '')

async function citationShare(name: string, dir: string) {
  cli(dir, ['coderag', 'init', '--json'])
  const commits = smallCommits(dir)
  const phrasings: Record<string, unknown> = {}
  for (const [phrasing, ask] of Object.entries(PHRASINGS)) {
    const tally = { citesChangedFile: 0, citesChangedCode: 0, citesTheCommit: 0, noEvidence: 0 }
    const misses: Array<{ question: string; changed: string[]; cited: string[]; commits: string[] }> = []
    const queryTypes: Record<string, number> = {}
    for (const commit of commits) {
      const question = ask(commit.subject)
      const response = await askOracle(dir, question, { noLog: true })
      queryTypes[response.queryType] = (queryTypes[response.queryType] ?? 0) + 1
      // Any cited file counts (code, or a note under version control); a git source is a commit hash.
      const files = response.sources.filter((source) => source.sourceType !== 'git')
      const changed = new Set(commit.changed)
      const cites = (sources: typeof files): boolean => sources.some((source) => changed.has(pathOf(source.sourcePath)))
      if (response.sources.length === 0) tally.noEvidence++
      if (cites(files.filter((source) => source.sourceType === 'code'))) tally.citesChangedCode++
      if (response.sources.some((source) => source.sourceType === 'git' && source.sourcePath === commit.hash)) tally.citesTheCommit++
      if (cites(files)) tally.citesChangedFile++
      else {
        misses.push({
          question: question.length > 140 ? `${question.slice(0, 137)}…` : question,
          changed: commit.changed.slice(0, 6),
          cited: [...new Set(files.map((source) => pathOf(source.sourcePath)))].slice(0, 6),
          commits: response.sources.filter((source) => source.sourceType === 'git').map((source) => source.sourcePath.slice(0, 8)),
        })
      }
    }
    phrasings[phrasing] = {
      example: ask(commits[0]?.subject ?? 'subject'),
      questions: commits.length,
      ...tally,
      citesChangedFileShare: +(tally.citesChangedFile / Math.max(1, commits.length)).toFixed(2),
      queryTypes,
      missExamples: misses.slice(0, 6),
    }
  }
  const gone = commits.filter((commit) => commit.changed.every((path) => !existsSync(join(dir, path)))).length
  return { repo: name, commits: Number(git(dir, 'rev-list', '--count', 'HEAD').trim()), smallNonMergeCommits: commits.length, changedFilesAllGoneAtHead: gone, phrasings }
}

/** This repository, cloned once and brought up to date: its own history is real, small and known. */
function selfClone(): string {
  const dir = join(WORK, 'vlt-self')
  if (!existsSync(join(dir, '.git'))) execFileSync('git', ['clone', '-q', SELF, dir])
  else execFileSync('git', ['pull', '-q', '--ff-only'], { cwd: dir })
  return dir
}

/**
 * `npm run bench -- oracle [answers] [latency] [citations] [--no-llm] [--generate]`: issue 18's
 * answer measures (oracle-answers.ts) by default; issue 4's latency and citation share on request;
 * `--generate` redraws the question sets (oracle-questions.ts).
 */
export async function run(args: string[]): Promise<unknown> {
  if (args.includes('--generate')) return generateQuestionSets().map((set) => ({ repo: set.name, pin: set.pin, questions: set.questions.length }))
  const named = args.filter((arg) => !arg.startsWith('--'))
  const parts = named.length ? named : ['answers']
  // Other processes share the machine: the load average puts the timings in context.
  const figures: Record<string, unknown> = { loadAverage1m: +loadavg()[0]!.toFixed(1), cpus: cpus().length }
  if (parts.includes('answers')) figures.answers = await answers(args)
  if (parts.includes('latency')) figures.latency = await latency()
  if (parts.includes('citations')) figures.citations = [await citationShare('git-vlt (this repository)', selfClone())]
  return figures
}
