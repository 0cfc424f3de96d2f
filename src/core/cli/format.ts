import type { SkippedCounts } from '../index/manifest.js'

/** ", skipped: 3 binary, 1 too large" or '' when nothing was skipped. */
export function formatSkipped(skipped: SkippedCounts): string {
  const labels: Record<keyof SkippedCounts, string> = {
    binary: 'binary',
    tooLarge: 'too large',
    minified: 'minified',
    invalidUtf8: 'invalid UTF-8',
    secret: 'secret',
    parseErrors: 'with parse errors (indexed best effort)',
    parseTimeout: 'past the parse time bound (indexed as text)',
    parseMemory: 'past the parse memory bound (indexed as text)',
    parseCrash: 'that crashed the parser (indexed as text)',
    submodule: "submodule (its files are another repository's: not indexed)",
  }
  const parts = (Object.keys(labels) as Array<keyof SkippedCounts>).filter((key) => skipped[key] > 0).map((key) => `${skipped[key]} ${labels[key]}`)
  return parts.length ? `\nskipped: ${parts.join(', ')}` : ''
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 ** 2).toFixed(1)} MiB`
}
