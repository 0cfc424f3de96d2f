/**
 * Adaptive fusion of file rankings. Each path's scores are divided by its best (so every path
 * ranges over [0, 1] and keeps how far apart its candidates are — rank fusion throws that away),
 * and the path is weighted by a prior times its confidence for this query: how much its best
 * candidate stands out from its next ones. A path that is unsure (a flat list: the query matched
 * many things about equally) then moves the result little, so adding it cannot drown a path that
 * is sure; a sure path leads even when its prior is lower.
 */

export interface ScoredFile {
  path: string
  score: number
}

export interface FusionPath {
  files: readonly ScoredFile[]
  /** The path's weight before confidence. */
  prior: number
}

export interface FusedFile {
  path: string
  score: number
  /** Each path's normalised score for the file (absent: the path did not find it). */
  parts: Record<string, number>
}

export interface FusionOutcome {
  files: FusedFile[]
  /** Per path: confidence in [0, 1] and the weight it got (prior × confidence, normalised to sum 1). */
  weights: Record<string, { confidence: number; weight: number }>
}

/** Candidates after the best that confidence compares it with. */
export const CONFIDENCE_DEPTH = 5
/** A path's weight never falls below this share of its prior: a flat list still breaks ties. */
export const CONFIDENCE_FLOOR = 0.1

/**
 * 1 minus the mean normalised score of the next CONFIDENCE_DEPTH candidates (missing ones count
 * 0): a lone candidate, or one far ahead of the rest, gives 1; a flat list gives about 0.
 */
export function confidenceOf(files: readonly ScoredFile[]): number {
  const best = files[0]?.score ?? 0
  if (best <= 0) return 0
  let sum = 0
  for (let i = 1; i <= CONFIDENCE_DEPTH; i++) sum += (files[i]?.score ?? 0) / best
  return 1 - sum / CONFIDENCE_DEPTH
}

export function fuseFiles(paths: Record<string, FusionPath>): FusionOutcome {
  const raw: Record<string, { confidence: number; weight: number }> = {}
  let total = 0
  for (const [name, path] of Object.entries(paths)) {
    const confidence = confidenceOf(path.files)
    const weight = path.files.length === 0 ? 0 : path.prior * Math.max(CONFIDENCE_FLOOR, confidence)
    raw[name] = { confidence, weight }
    total += weight
  }
  const fused = new Map<string, FusedFile>()
  for (const [name, path] of Object.entries(paths)) {
    const best = path.files[0]?.score ?? 0
    const weight = total > 0 ? raw[name]!.weight / total : 0
    raw[name]!.weight = weight
    if (best <= 0) continue
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
  return { files, weights: raw }
}
