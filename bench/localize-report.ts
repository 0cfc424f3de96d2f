/**
 * Scores and tables of the localize benchmark: hit@1/5/10 (a gold file among the first k unique
 * paths) and recall@5 (the share of gold files among the first 5) per repository and half, their
 * mean over repositories (each repository weighs the same, whatever its case count), and each
 * ranker's difference from plain BM25.
 */
import { BASELINE } from './localize-rankers.js'
import type { Half } from './localize-corpora.js'

/** Only the first this many unique paths of a ranking are scored. */
export const SCORED_DEPTH = 10

export interface CaseOutcome {
  id: string
  corpus: string
  half: Half
  /** Per ranker: each gold file's 1-based rank among the first SCORED_DEPTH unique paths, 0 when absent. */
  goldRanks: Record<string, number[]>
}

export interface Metrics {
  cases: number
  hitAt1: number
  hitAt5: number
  hitAt10: number
  recallAt5: number
}

/** `ranking` reduced to its first SCORED_DEPTH unique paths, then each gold file's rank in it. */
export function goldRanks(ranking: string[], gold: string[]): number[] {
  const unique = [...new Set(ranking)].slice(0, SCORED_DEPTH)
  return gold.map((path) => unique.indexOf(path) + 1)
}

function metricsOf(outcomes: CaseOutcome[], ranker: string): Metrics {
  const hit = (ranks: number[], k: number): number => (ranks.some((rank) => rank > 0 && rank <= k) ? 1 : 0)
  const mean = (values: number[]): number => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length)
  const ranks = outcomes.map((o) => o.goldRanks[ranker]!)
  return {
    cases: outcomes.length,
    hitAt1: mean(ranks.map((r) => hit(r, 1))),
    hitAt5: mean(ranks.map((r) => hit(r, 5))),
    hitAt10: mean(ranks.map((r) => hit(r, 10))),
    recallAt5: mean(ranks.map((r) => r.filter((rank) => rank > 0 && rank <= 5).length / r.length)),
  }
}

const round = (x: number): number => Math.round(x * 1000) / 1000

/** Figures are kept exact until they are reported, so a delta is never the difference of two roundings. */
function rounded<T extends object>(figures: T): T {
  return JSON.parse(JSON.stringify(figures, (_, value: unknown) => (typeof value === 'number' ? round(value) : value))) as T
}

type Scores = Omit<Metrics, 'cases'>
const SCORES = ['hitAt1', 'hitAt5', 'hitAt10', 'recallAt5'] as const

const minus = (a: Scores, b: Scores): Scores => Object.fromEntries(SCORES.map((k) => [k, a[k] - b[k]])) as Scores

export interface HalfFigures {
  /** corpus → ranker → metrics, and their difference from plain BM25's on the same cases. */
  perRepository: Record<string, Record<string, Metrics & { vsBm25: Scores }>>
  /** ranker → mean over repositories, and its difference from plain BM25's mean. */
  mean: Record<string, Scores & { vsBm25: Scores }>
  /** ranker → the largest drop below plain BM25 at hit@5 over repositories (0 when none is below). */
  worstHitAt5VsBm25: Record<string, number>
}

export function halfFigures(outcomes: CaseOutcome[], corpora: string[], rankers: string[]): HalfFigures {
  const perRepository: HalfFigures['perRepository'] = {}
  for (const corpus of corpora) {
    const mine = outcomes.filter((o) => o.corpus === corpus)
    if (mine.length === 0) continue
    const base = metricsOf(mine, BASELINE)
    perRepository[corpus] = Object.fromEntries(rankers.map((r) => {
      const m = metricsOf(mine, r)
      return [r, { ...m, vsBm25: minus(m, base) }]
    }))
  }
  const rows = Object.values(perRepository)
  const meanOf = (ranker: string): Scores => Object.fromEntries(SCORES.map((k) => [k, rows.reduce((sum, row) => sum + row[ranker]![k], 0) / Math.max(1, rows.length)])) as Scores
  const base = meanOf(BASELINE)
  const mean = Object.fromEntries(rankers.map((r) => {
    const m = meanOf(r)
    return [r, { ...m, vsBm25: minus(m, base) }]
  }))
  const worstHitAt5VsBm25 = Object.fromEntries(rankers.map((r) => [r, Math.min(0, ...rows.map((row) => row[r]!.vsBm25.hitAt5))]))
  return rounded({ perRepository, mean, worstHitAt5VsBm25 })
}

const fixed = (x: number): string => x.toFixed(3)
const signed = (x: number): string => (x > 0 ? '+' : x < 0 ? '−' : '±') + Math.abs(x).toFixed(3)

/** One markdown table: a row per (repository, ranker), then the means, with deltas against plain BM25. */
export function qualityTable(half: Half, figures: HalfFigures, rankers: string[]): string {
  const lines = [
    `### ${half === 'tuning' ? 'Tuning half' : 'Held-out half'}`,
    '',
    '| repository | cases | ranker | hit@1 | hit@5 | hit@10 | recall@5 | Δhit@1 | Δhit@5 |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const [corpus, row] of Object.entries(figures.perRepository)) {
    for (const r of rankers) {
      const m = row[r]!
      lines.push(`| ${corpus} | ${m.cases} | ${r} | ${fixed(m.hitAt1)} | ${fixed(m.hitAt5)} | ${fixed(m.hitAt10)} | ${fixed(m.recallAt5)} | ${signed(m.vsBm25.hitAt1)} | ${signed(m.vsBm25.hitAt5)} |`)
    }
  }
  for (const r of rankers) {
    const m = figures.mean[r]!
    lines.push(`| **mean** | | ${r} | ${fixed(m.hitAt1)} | ${fixed(m.hitAt5)} | ${fixed(m.hitAt10)} | ${fixed(m.recallAt5)} | ${signed(m.vsBm25.hitAt1)} | ${signed(m.vsBm25.hitAt5)} |`)
  }
  return lines.join('\n')
}

export interface Spread {
  p50Ms: number
  p90Ms: number
}

/** p50 and p90 of `samples`; null when there are none (a run of one case has no sync after the first). */
export function spread(samples: number[]): Spread | null {
  if (samples.length === 0) return null
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number): number => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10
  return { p50Ms: at(0.5), p90Ms: at(0.9) }
}

export interface CorpusTimings {
  cases: number
  /** Indexed files at the last case's parent, and the commits it reaches. */
  files: number
  commits: number
  /** First sync (cold: nothing indexed yet in a fresh clone) and the incremental ones after each checkout. */
  firstSyncMs: number
  syncMs: Spread | null
  /** Opening the synced index for queries, its term associations learned (what a warm index has loaded). */
  openMs: Spread | null
  /** Updating the bench's reference indexes (whole-file BM25, reachable commits). */
  referenceMs: Spread | null
  rankMs: Record<string, Spread | null>
  /** Peers timed in the same run on the last case's parent: universal-ctags over the tree, `git rev-list --count`. */
  peers: { ctagsMs: number; revListMs: number }
  wallS: number
  /** The machine's 1-minute load average when the repository was done (2 cores, shared). */
  loadAverage1m: number
}

export function timingTable(timings: Record<string, CorpusTimings>, rankers: string[]): string {
  const lines = [
    '### Timings (ms; per case p50, p90 in brackets)',
    '',
    `| repository | files | commits | first sync | sync | open | reference | ${rankers.join(' | ')} | ctags | rev-list | wall s | load |`,
    `| --- | ${Array.from({ length: 10 + rankers.length }, () => '---:').join(' | ')} |`,
  ]
  const cell = (s: Spread | null): string => (s ? `${s.p50Ms} (${s.p90Ms})` : '—')
  for (const [corpus, t] of Object.entries(timings)) {
    lines.push(`| ${corpus} | ${t.files} | ${t.commits} | ${t.firstSyncMs} | ${cell(t.syncMs)} | ${cell(t.openMs)} | ${cell(t.referenceMs)} | ${rankers.map((r) => cell(t.rankMs[r] ?? null)).join(' | ')} | ${t.peers.ctagsMs} | ${t.peers.revListMs} | ${t.wallS} | ${t.loadAverage1m} |`)
  }
  return lines.join('\n')
}
