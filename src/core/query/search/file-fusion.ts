/**
 * Adaptive fusion of file rankings. Each path's scores are divided by its best, so every path
 * ranges over [0, 1] and keeps how far apart its candidates are (rank fusion throws that away and
 * lets a weak path's rank 1 count as much as a strong path's). A file's score is the weighted sum
 * of its paths' scores, and a path's weight is its prior times its confidence for this query:
 *
 *   confidence = ½(1 + margin) × ½(1 + agreement)
 *   margin     = 1 − second score / best score (does its best candidate stand out?)
 *   agreement  = share of its top AGREEMENT_TOP files among the other paths' top AGREEMENT_POOL
 *
 * so a path that is unsure (a flat list) or alone in what it proposes moves the result at most
 * half as much as its prior says, and one that is sure and corroborated gets its full prior.
 * Paths derived from the others (co-change is seeded by them) have no agreement term: they agree
 * by construction.
 */

export interface ScoredFile {
  path: string
  score: number
}

export interface FusionPath {
  files: readonly ScoredFile[]
  /** The path's weight before confidence. */
  prior: number
  /** Seeded by the other paths: its agreement with them says nothing. */
  derived?: boolean
}

export interface FusedFile {
  path: string
  score: number
  /** Each path's normalised score for the file (absent: the path did not find it). */
  parts: Record<string, number>
}

export interface PathWeight {
  margin: number
  /** null for a derived path. */
  agreement: number | null
  /** prior × confidence, the factor of the path's normalised scores. */
  weight: number
}

export interface FusionOutcome {
  files: FusedFile[]
  weights: Record<string, PathWeight>
}

/** A path's top files checked against the others' … */
const AGREEMENT_TOP = 5
/** … top files. */
const AGREEMENT_POOL = 20

function marginOf(files: readonly ScoredFile[]): number {
  const best = files[0]?.score ?? 0
  return best > 0 ? 1 - (files[1]?.score ?? 0) / best : 0
}

export function fuseFiles(paths: Record<string, FusionPath>): FusionOutcome {
  const names = Object.keys(paths)
  const weights: Record<string, PathWeight> = {}
  for (const name of names) {
    const path = paths[name]!
    const margin = marginOf(path.files)
    let agreement: number | null = null
    if (!path.derived) {
      const others = new Set(names.filter((other) => other !== name && !paths[other]!.derived).flatMap((other) => paths[other]!.files.slice(0, AGREEMENT_POOL).map((file) => file.path)))
      const top = path.files.slice(0, AGREEMENT_TOP)
      // Alone, a path has nothing to agree with: its weight is then irrelevant anyway.
      agreement = others.size === 0 || top.length === 0 ? 1 : top.filter((file) => others.has(file.path)).length / top.length
    }
    const confidence = ((1 + margin) / 2) * ((1 + (agreement ?? 1)) / 2)
    weights[name] = { margin, agreement, weight: path.files.length === 0 ? 0 : path.prior * confidence }
  }
  const fused = new Map<string, FusedFile>()
  for (const name of names) {
    const path = paths[name]!
    const best = path.files[0]?.score ?? 0
    if (best <= 0) continue
    const weight = weights[name]!.weight
    for (const file of path.files) {
      const part = file.score / best
      let entry = fused.get(file.path)
      if (!entry) {
        entry = { path: file.path, score: 0, parts: {} }
        fused.set(file.path, entry)
      }
      entry.parts[name] = part
      entry.score += weight * part
    }
  }
  const files = [...fused.values()].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return { files, weights }
}
