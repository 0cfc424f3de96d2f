/**
 * Issue 18's answer measures on bench/oracle/<repo>.json (see oracle-questions.ts for the gold):
 * every question asked in process at the pin, index built once per clone (kept under bench/.work).
 *
 * - gold-evidence recall (SC-002): share of questions with a gold item in the gathered context (the
 *   response's sources): definition — a code source whose range holds the definition line;
 *   references — one holding a reference line (and, reported beside it, the share of reference
 *   lines held); history — a gold commit; conceptual — a code source in a gold file.
 * - cited-location precision (SC-008): share of cited locations (each file:line range and context
 *   commit the answer's text names, see citedLocations) that are gold or adjacent. Adjacent:
 *   a code range in the same file within ADJACENT lines of a gold line (line gold) or in a gold
 *   file (file gold: conceptual, and the definition file of a history question); a commit that is
 *   gold or touched a gold file.
 * - latency p50/p95 (SC-001) of askOracle in process (the first question of each repository, which
 *   loads the index, is reported apart), the floor beside it: `git grep` of the question's name
 *   (or its longest word) in the same clone; context tokens per question.
 * - tool calls and tokens against an agent that only has grep and read (SC-006): the scripted
 *   baseline of oracle-baseline.ts, whose strategy its header states, asked the same questions; the
 *   oracle's calls are 1 offline (one question asked), and in LLM mode that one plus the tools its
 *   loop ran; its tokens are the context it gathered.
 * - facts kept after compression (SC-013): oracle-compression.ts.
 * - LLM mode (SC-005/006): the same questions through the agent loop, with tool calls, tokens and
 *   cost by role. VLT_BENCH_LLM_URL, VLT_BENCH_LLM_MODEL and VLT_BENCH_LLM_KEY name a real
 *   OpenAI-compatible endpoint; without them a loopback server scripts one tool call per question
 *   (figures labelled `loopback`: they prove the path runs, not answer quality).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { askOracle, type OracleResponse, type OracleSource } from '../src/core/oracle/index.js'
import { startFakeOpenAIServer } from '../test/helpers/fake-openai-server.js'
import { git } from './corpus.js'
import { baselineAgent, BUDGET, WINDOW, type BaselineRun } from './oracle-baseline.js'
import { compressionFacts, SMALLEST_BUDGET } from './oracle-compression.js'
import { KINDS, loadQuestionSets, ORACLE_CORPORA, oracleClone, type Half, type Kind, type Question } from './oracle-questions.js'

/** Lines either side of a gold line within which a cited range still counts as pointing at it. */
export const ADJACENT = 10

interface Location {
  path: string
  start: number
  end: number
}

function codeLocation(source: OracleSource): Location | null {
  if (source.sourceType !== 'code') return null
  const match = /^(.*):(\d+)-(\d+)$/.exec(source.sourcePath)
  return match ? { path: match[1]!, start: Number(match[2]), end: Number(match[3]) } : null
}

/** The files each commit touched (cached: a commit is asked about by several questions). */
const touched = new Map<string, Set<string>>()
function filesOf(dir: string, commit: string): Set<string> {
  if (!touched.has(commit)) touched.set(commit, new Set(git(dir, 'show', '--format=', '--name-only', commit).split('\n').filter(Boolean)))
  return touched.get(commit)!
}

/**
 * The locations the answer's text cites: each `path:start-end` (or `path:line`) it names, and each
 * commit of the context whose hash (12 characters or more of it) it names — whatever the context
 * held beside them is not cited.
 */
export function citedLocations(response: Pick<OracleResponse, 'answer' | 'sources'>): OracleSource[] {
  const cited = new Map<string, OracleSource>()
  // Quoted evidence (fenced code, quoted commit messages) is not the answer citing anything.
  const text = response.answer.replace(/^( *)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2 *$/gm, '').replace(/^ *>.*$/gm, '')
  for (const match of text.matchAll(/([\w./-]+\.\w+):(\d+)(?:-(\d+))?/g)) {
    const sourcePath = `${match[1]}:${match[2]}-${match[3] ?? match[2]}`
    cited.set(sourcePath, { sourceType: 'code', sourcePath, retrievalMethod: 'bm25', score: 0, tokenCount: 0, content: '', metadata: {} })
  }
  for (const commit of response.sources.filter((s) => s.sourceType === 'git')) {
    if (text.includes(commit.sourcePath.slice(0, 12))) cited.set(commit.sourcePath, commit)
  }
  return [...cited.values()]
}

/** A cited location is gold (exact) or adjacent (near it). */
function judge(dir: string, question: Question, source: OracleSource): 'gold' | 'adjacent' | 'off' {
  const goldFiles = new Set([...(question.files ?? []), ...(question.lines ?? []).map((line) => line.path)])
  if (source.sourceType === 'git') {
    if (question.commits?.includes(source.sourcePath)) return 'gold'
    return [...filesOf(dir, source.sourcePath)].some((path) => goldFiles.has(path)) ? 'adjacent' : 'off'
  }
  const at = codeLocation(source)
  if (!at) return 'off'
  if (question.lines) {
    const near = question.lines.filter((gold) => gold.path === at.path)
    if (near.some((gold) => gold.line >= at.start && gold.line <= at.end)) return 'gold'
    if (near.some((gold) => gold.line >= at.start - ADJACENT && gold.line <= at.end + ADJACENT)) return 'adjacent'
  }
  if (question.files?.includes(at.path)) return question.kind === 'conceptual' ? 'gold' : 'adjacent'
  return 'off'
}

function recalled(question: Question, sources: readonly OracleSource[]): { hit: boolean; lineShare?: number } {
  if (question.kind === 'history') return { hit: sources.some((s) => s.sourceType === 'git' && question.commits!.includes(s.sourcePath)) }
  const locations = sources.map(codeLocation).filter((at): at is Location => at !== null)
  if (question.kind === 'conceptual') return { hit: locations.some((at) => question.files!.includes(at.path)) }
  const held = question.lines!.filter((gold) => locations.some((at) => at.path === gold.path && gold.line >= at.start && gold.line <= at.end))
  return { hit: held.length > 0, ...(question.kind === 'references' ? { lineShare: held.length / question.lines!.length } : {}) }
}

/** What one answer scored. */
interface Scored {
  id: string
  kind: Kind
  half: Half
  hit: boolean
  lineShare?: number
  cited: number
  goldOrAdjacent: number
  ms: number
  floorMs: number
  contextTokens: number
  /** The grep/read agent on the same question (offline rows). */
  baseline?: BaselineRun
  llm?: { toolCalls: number; turns: number; tokens: number; byRole: OracleResponse['usageByRole'] }
}

const percentile = (xs: number[], p: number): number => {
  if (xs.length === 0) return 0
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}
const share = (n: number, of: number): number => +(n / Math.max(1, of)).toFixed(3)
const mean = (xs: number[]): number => +(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)).toFixed(1)

function tally(rows: readonly Scored[]) {
  const cited = rows.reduce((n, r) => n + r.cited, 0)
  const refs = rows.filter((r) => r.lineShare !== undefined)
  return {
    questions: rows.length,
    goldEvidenceRecall: share(rows.filter((r) => r.hit).length, rows.length),
    citedLocations: cited,
    citedPrecision: share(rows.reduce((n, r) => n + r.goldOrAdjacent, 0), cited),
    ...(refs.length ? { referenceLinesHeld: share(refs.reduce((n, r) => n + r.lineShare!, 0), refs.length) } : {}),
    p50Ms: percentile(rows.map((r) => r.ms), 50),
    p95Ms: percentile(rows.map((r) => r.ms), 95),
    floorGitGrepP50Ms: percentile(rows.map((r) => r.floorMs), 50),
    contextTokensMean: mean(rows.map((r) => r.contextTokens)),
  }
}

/**
 * SC-006 per kind: the grep/read agent's tool calls and tokens until it saw the gold evidence (or
 * its budget ran out) beside the oracle's, and the share of calls the oracle saves.
 */
function toolCalls(rows: readonly Scored[], oracleCalls: (row: Scored) => number) {
  const figures = (kind: readonly Scored[]) => {
    const baseline = kind.map((r) => r.baseline!)
    const oracle = mean(kind.map(oracleCalls))
    const grep = mean(baseline.map((b) => b.calls))
    return {
      questions: kind.length,
      oracle: { callsPerQuestion: oracle, tokensPerQuestion: mean(kind.map((r) => r.contextTokens)), reachedGold: share(kind.filter((r) => r.hit).length, kind.length) },
      grepRead: { callsPerQuestion: grep, tokensPerQuestion: mean(baseline.map((b) => b.tokens)), reachedGold: share(baseline.filter((b) => b.reached).length, kind.length) },
      fewerCalls: +(1 - oracle / Math.max(1e-9, grep)).toFixed(3),
    }
  }
  return { baselineBudgetCalls: BUDGET, readWindowLines: WINDOW, all: figures(rows), byKind: Object.fromEntries(KINDS.map((kind) => [kind, figures(rows.filter((r) => r.kind === kind))])) }
}

function breakdown(rows: readonly Scored[]) {
  const byKind = Object.fromEntries(KINDS.map((kind) => [kind, tally(rows.filter((r) => r.kind === kind))]))
  return { all: tally(rows), tuning: tally(rows.filter((r) => r.half === 'tuning')), heldout: tally(rows.filter((r) => r.half === 'heldout')), byKind }
}

/** The floor a user has without us: one `git grep` for the name (or the question's longest word). */
function gitGrepMs(dir: string, question: Question): number {
  const word = question.symbol ?? question.question.split(/\W+/).sort((a, b) => b.length - a.length)[0]!
  const started = process.hrtime.bigint()
  try {
    execFileSync('git', ['grep', '-n', '-w', '-i', '-e', word], { cwd: dir, stdio: 'ignore' })
  } catch {
    // No match exits 1: still a measured search.
  }
  return Number(process.hrtime.bigint() - started) / 1e6
}

async function ask(dir: string, question: Question, llm: boolean): Promise<Scored> {
  const started = process.hrtime.bigint()
  const response = await askOracle(dir, question.question, { noLog: true, explain: true, warn: () => {} })
  const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e6)
  const cited = citedLocations(response)
  const judged = cited.map((s) => judge(dir, question, s))
  const spent = Object.values(response.usageByRole ?? {}).reduce((n, role) => n + role.inputTokens + role.outputTokens, 0)
  return {
    id: question.id,
    kind: question.kind,
    half: question.half,
    ...recalled(question, response.sources),
    cited: cited.length,
    goldOrAdjacent: judged.filter((j) => j !== 'off').length,
    ms,
    floorMs: +gitGrepMs(dir, question).toFixed(1),
    contextTokens: response.traces?.budget.used ?? 0,
    ...(llm ? {} : { baseline: baselineAgent(dir, question) }),
    ...(llm ? { llm: { toolCalls: response.agent?.toolCalls.length ?? 0, turns: response.agent?.turns ?? 0, tokens: spent, byRole: response.usageByRole } } : {}),
  }
}

/** The loopback model: per question one tool call the evidence suggests, then a fixed answer. */
async function withModel<T>(body: (next: (question: Question) => void, label: string) => Promise<T>): Promise<T> {
  const config = mkdtempSync(join(tmpdir(), 'oraclebench-llm-'))
  const file = join(config, 'config.toml')
  const saved = process.env.GIT_VLT_CONFIG
  const real = process.env.VLT_BENCH_LLM_URL
  const server = real ? null : await startFakeOpenAIServer({ costPerToken: 1e-6 })
  const url = real ?? server!.baseUrl
  const model = process.env.VLT_BENCH_LLM_MODEL ?? 'loopback/scripted'
  writeFileSync(file, `[llm]\nprovider = "openai"\nbase_url = ${JSON.stringify(url)}\nmodel = ${JSON.stringify(model)}\napi_key_env = "VLT_BENCH_LLM_KEY"\n`)
  process.env.GIT_VLT_CONFIG = file
  try {
    return await body((question) => {
      if (!server) return
      const call = question.symbol ? { name: 'find_definition', arguments: { symbol: question.symbol } } : { name: 'search_code', arguments: { query: question.question.slice(0, 200) } }
      server.replyNext({ toolCalls: [{ id: `call_${question.id}`, ...call }] }, { text: 'Scripted loopback answer: the evidence above.' })
    }, real ? `endpoint ${model}` : 'loopback (scripted tool calls: proves the path runs, not quality)')
  } finally {
    if (saved === undefined) delete process.env.GIT_VLT_CONFIG
    else process.env.GIT_VLT_CONFIG = saved
    await server?.close()
    rmSync(config, { recursive: true, force: true })
  }
}

export async function answers(args: readonly string[]) {
  const sets = loadQuestionSets()
  const offline: Scored[] = []
  const perRepo: Record<string, unknown> = {}
  const firstQuestionMs: Record<string, number> = {}
  const misses: Array<{ id: string; question: string; cited: number; goldOrAdjacent: number; hit: boolean }> = []
  const dirs = new Map<string, string>()
  for (const set of sets) {
    const dir = oracleClone(ORACLE_CORPORA.find((c) => c.name === set.name)!)
    dirs.set(set.name, dir)
    // Builds (or syncs) the index once: not part of any question's latency.
    const warm = await askOracle(dir, 'Where is main defined?', { noLog: true, warn: () => {} })
    firstQuestionMs[set.name] = warm.durationMs
    const rows: Scored[] = []
    for (const question of set.questions) {
      const row = await ask(dir, question, false)
      rows.push(row)
      if (!row.hit || row.goldOrAdjacent < row.cited) misses.push({ id: row.id, question: question.question.slice(0, 100), cited: row.cited, goldOrAdjacent: row.goldOrAdjacent, hit: row.hit })
    }
    offline.push(...rows)
    perRepo[set.name] = { language: set.language, pin: set.pin, ...breakdown(rows) }
  }
  const figures: Record<string, unknown> = {
    questions: offline.length,
    adjacentLines: ADJACENT,
    offline: { ...breakdown(offline), perRepo, indexLoadFirstQuestionMs: firstQuestionMs, imperfect: misses },
    toolCallsAgainstGrepRead: toolCalls(offline, () => 1),
  }
  // After the questions above: a context's exchanges are these answers again, asked into it.
  const compression: Record<string, unknown> = {}
  for (const budget of [2 * SMALLEST_BUDGET, SMALLEST_BUDGET]) {
    const runs = []
    for (const set of sets) runs.push({ repo: set.name, ...(await compressionFacts(dirs.get(set.name)!, set, budget)) })
    const facts = runs.reduce((n, r) => n + r.all.facts, 0)
    const kept = runs.reduce((n, r) => n + r.all.kept, 0)
    compression[`budget${budget}`] = { factsKept: share(kept, facts), facts, perRepo: runs }
  }
  figures.factsKeptAfterCompression = compression
  if (!args.includes('--no-llm')) {
    figures.llm = await withModel(async (next, label) => {
      const rows: Scored[] = []
      for (const set of sets) {
        for (const question of set.questions) {
          next(question)
          rows.push(await ask(dirs.get(set.name)!, question, true))
        }
      }
      const cost = rows.flatMap((r) => Object.entries(r.llm!.byRole ?? {}))
      const byRole = Object.fromEntries(
        ['agent', 'answer'].map((role) => {
          const spent = cost.filter(([name]) => name === role).map(([, usage]) => usage)
          const cents = spent.map((u) => (typeof u.costCents === 'number' ? u.costCents : 0))
          return [role, { requestsPerQuestion: +(spent.reduce((n, u) => n + u.requests, 0) / rows.length).toFixed(2), tokensPerQuestion: mean(spent.map((u) => u.inputTokens + u.outputTokens)), costCentsPerQuestion: +(cents.reduce((a, b) => a + b, 0) / rows.length).toFixed(4) }]
        }),
      )
      return {
        model: label,
        ...breakdown(rows),
        toolCallsPerQuestion: mean(rows.map((r) => r.llm!.toolCalls)),
        turnsPerQuestion: mean(rows.map((r) => r.llm!.turns)),
        tokensPerQuestion: mean(rows.map((r) => r.llm!.tokens)),
        oracleCallsPerQuestionAgainstGrepRead: mean(rows.map((r) => 1 + r.llm!.toolCalls)),
        byRole,
      }
    })
  }
  return figures
}
