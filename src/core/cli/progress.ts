export interface Progress {
  /** Announce the amount of work; `unit` names what is counted (files, blobs…). */
  start(total: number, label: string, unit?: string): void
  tick(done?: number): void
  stop(): void
}

/** Silent in pipes and CI: only TTY users see progress. */
export const silentProgress: Progress = { start() {}, tick() {}, stop() {} }

/**
 * A one-line bar on stderr with rate and ETA, redrawn at most ~12 times a second so that
 * drawing never costs measurable time against the work it reports.
 */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  // Progress is for people watching a terminal; pipes and CI logs get only the summary.
  if (!stream.isTTY || process.env.CI) return silentProgress
  let total = 0
  let done = 0
  let label = ''
  let unit = 'files'
  let startedAt = 0
  let lastDraw = 0
  const draw = (force = false): void => {
    const now = Date.now()
    if (!force && now - lastDraw < 80) return
    lastDraw = now
    const seconds = Math.max((now - startedAt) / 1000, 0.001)
    const rate = done / seconds
    const width = 24
    const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0
    const eta = rate > 0 && total > done ? `ETA ${formatSeconds((total - done) / rate)}` : ''
    const line = `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${unit}  ${Math.round(rate)} ${unit}/s  ${eta}`
    stream.write(`\r${line.slice(0, (stream.columns ?? 100) - 1)}\u001B[K`)
  }
  return {
    start(n, what, countUnit = 'files') {
      total = n
      done = 0
      label = what
      unit = countUnit
      startedAt = Date.now()
      draw(true)
    },
    tick(n = 1) {
      done += n
      draw()
    },
    stop() {
      if (startedAt) stream.write('\r\u001B[K')
      startedAt = 0
    },
  }
}

function formatSeconds(s: number): string {
  if (s < 60) return `${Math.ceil(s)}s`
  return `${Math.floor(s / 60)}m${String(Math.ceil(s % 60)).padStart(2, '0')}s`
}
