/**
 * The lines of a text most worth showing for a query: the window of up to `size` lines whose
 * per-line weights sum highest (the earliest on ties), starting on a line `startable` admits,
 * trailing blank lines dropped and long lines cut. Snippets of code chunks and note sections.
 */
export function bestWindow(lines: readonly string[], weights: readonly number[], size: number, maxLineChars: number, startable: (line: string) => boolean): string {
  let best = lines.findIndex(startable)
  if (best < 0) best = 0
  let bestWeight = 0
  for (let start = 0; start < lines.length; start++) {
    if (!startable(lines[start]!)) continue
    let weight = 0
    for (let i = start; i < Math.min(lines.length, start + size); i++) weight += weights[i]!
    if (weight > bestWeight) {
      best = start
      bestWeight = weight
    }
  }
  const window = lines.slice(best, best + size)
  while (window.length > 0 && window[window.length - 1]!.trim() === '') window.pop()
  return window.map((line) => (line.length > maxLineChars ? `${line.slice(0, maxLineChars - 1)}…` : line.trimEnd())).join('\n')
}
