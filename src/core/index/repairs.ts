/**
 * What a command found missing or damaged under `.vlt/`, and what it rebuilt, told in one warning
 * line however many records were involved: a CI cache restored without `objects/` would otherwise
 * print a line per file. Each part of the index notes here what it found and did; the command's
 * entry point (init, sync, a query's context, a read that healed) reports it.
 */
import type { CorruptFileError } from '../errors.js'

export class Repairs {
  /** Damaged or missing files found since the last report: path → reason. */
  private found = new Map<string, string>()
  /** Files reported already: a warm context reports each once. */
  private readonly reported = new Set<string>()
  /** Blob records re-extracted since the last report because they were missing or damaged. */
  private restored = 0
  private readonly lost: string[] = []
  private actions: string[] = []

  /** A file that failed its checks (or is missing); the caller rebuilds it and says so with `rebuilt`. */
  damaged(error: CorruptFileError): void {
    if (!this.reported.has(error.path)) this.found.set(error.path, error.reason)
  }

  /** `count` blob records that were missing or damaged have been extracted again. */
  recordsRestored(count: number): void {
    this.restored += count
  }

  /** Blob records that could not be extracted again (their git object is gone, the file changed since). */
  recordsLost(count: number, reason: string): void {
    if (count > 0) this.lost.push(`${plural(count, 'record')} could not be re-extracted (${reason})`)
  }

  /** A file whose chunk text git could not serve (see chunk-text.ts): its chunks come without it. */
  textUnread(reason: string): void {
    const line = `chunk text unavailable: ${reason}`
    if (!this.lost.includes(line)) this.lost.push(line)
  }

  /** What was rebuilt, e.g. "rebuilt the index of tree 1a2b3c4d5e6f from the blob records". */
  rebuilt(action: string): void {
    if (!this.actions.includes(action)) this.actions.push(action)
  }

  /** One line for everything found since the last call; nothing when nothing was. */
  flush(warn: (message: string) => void): void {
    const causes = [...this.found].map(([path, reason]) => `${path}: ${reason}`)
    const parts = causes.length > 2 ? [...causes.slice(0, 2), `${causes.length - 2} more damaged files`] : causes
    if (this.restored > 0) parts.push(`${plural(this.restored, 'record')} of .vlt/objects ${this.restored === 1 ? 'was' : 'were'} missing or damaged`)
    const actions = [...(this.restored > 0 ? [`re-extracted ${this.restored === 1 ? 'it' : 'them'}`] : []), ...this.actions]
    const line = [parts.join('; '), actions.join(', '), ...this.lost].filter(Boolean).join('; ')
    for (const path of this.found.keys()) this.reported.add(path)
    this.found = new Map()
    this.restored = 0
    this.lost.length = 0
    this.actions = []
    if (line) warn(`warning: ${line}`)
  }
}

export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`
}
