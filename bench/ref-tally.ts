/** What the references benchmarks (refs-bench.ts for TypeScript, refs-python.ts) share: GNU global's answer and the recall/precision tally. */
import { execFileSync } from 'node:child_process'

/** `path:line` of every row GNU global prints for `name` with each of these flags (e.g. -rx references, -sx other symbols). */
export function globalRefs(dir: string, name: string, flags: readonly string[]): Set<string> {
  const out = new Set<string>()
  for (const flag of flags) {
    const text = execFileSync('global', [flag, name], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 })
    for (const row of text.split('\n')) {
      const match = /^\S+\s+(\d+)\s+(\S+)/.exec(row)
      if (match) out.add(`${match[2]}:${match[1]}`)
    }
  }
  return out
}

export interface Tally {
  truth: number
  answered: number
  correct: number
}

export const emptyTally = (): Tally => ({ truth: 0, answered: 0, correct: 0 })

export function addToTally(tally: Tally, truth: Set<string>, answer: Set<string>): void {
  tally.truth += truth.size
  tally.answered += answer.size
  for (const key of answer) if (truth.has(key)) tally.correct++
}

/** Recall and precision rounded to 4 digits of `scale` (1 for a share, 100 for a percentage). */
export function tallyFigures(tally: Tally, scale: 1 | 100): { recall: number; precision: number } & Tally {
  const round = (part: number, whole: number): number => Math.round((part / Math.max(1, whole)) * 10000) / (10000 / scale)
  return { ...tally, recall: round(tally.correct, tally.truth), precision: round(tally.correct, tally.answered) }
}
